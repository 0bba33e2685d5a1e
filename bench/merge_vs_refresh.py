"""Incremental merge of a 1% delta into a large table versus a full refresh of the same table.

    python bench/merge_vs_refresh.py [--rows 5000000] [--delta 0.01]

Both go through the real runner (branch, write, fast-forward); bare Spark MERGE INTO on
the same table is printed for comparison.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import scratch_project, timed, warm_workbench, write_pipeline  # noqa: E402

BASE = "SELECT id, id % 1000 AS customer_id, CAST(id % 5000 AS DOUBLE) AS amount, 'v1' AS version FROM range({rows})"
# A delta of random existing keys (hash spreads them over the whole key range).
DELTA = ("SELECT DISTINCT CAST(pmod(hash(id), {rows}) AS BIGINT) AS id, 7L AS customer_id, 1.0D AS amount, "
         "'v2' AS version FROM range({delta_rows})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--delta", type=float, default=0.01)
    args = parser.parse_args()
    delta_rows = int(args.rows * args.delta)
    root = scratch_project("merge")
    refresh = write_pipeline(root, "silver", "refresh", "-- @merge_strategy: full_refresh\n" + BASE.format(rows=args.rows))
    merge = write_pipeline(root, "silver", "merged", "-- @merge_strategy: incremental\n-- @unique_key: id\n"
                           + BASE.format(rows=args.rows))
    with warm_workbench(root) as wb:
        load_s, _ = timed(lambda: wb.run(merge))
        print(f"initial load of {args.rows:,} rows (incremental table): {load_s:.1f} s")
        write_pipeline(root, "silver", "merged", "-- @merge_strategy: incremental\n-- @unique_key: id\n"
                       + DELTA.format(rows=args.rows, delta_rows=delta_rows))
        merge_s, result = timed(lambda: wb.run(merge))
        refresh_first, _ = timed(lambda: wb.run(refresh))
        refresh_s, _ = timed(lambda: wb.run(refresh))
        spark = wb.spark.session()
        spark.sql(DELTA.format(rows=args.rows, delta_rows=delta_rows)).createOrReplaceTempView("bench_delta")
        bare_s, _ = timed(lambda: spark.sql(
            "MERGE INTO bench.silver.merged t USING bench_delta s ON t.id = s.id "
            "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"))
    print(f"incremental merge of a {args.delta:.0%} delta ({result['run']['rows_written']:,} rows): {merge_s:.1f} s")
    print(f"full refresh of {args.rows:,} rows: {refresh_s:.1f} s (first, creating the table: {refresh_first:.1f} s)")
    print(f"bare Spark MERGE INTO of the same delta: {bare_s:.1f} s")
    print(f"full refresh / merge = {refresh_s / merge_s:.1f}x; rat merge / bare merge = {merge_s / bare_s:.2f}")


if __name__ == "__main__":
    main()
