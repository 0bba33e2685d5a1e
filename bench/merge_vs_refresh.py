"""Incremental merge of a 1% delta into a large silver table versus a full refresh of it.

    python bench/merge_vs_refresh.py [--rows 5000000] [--delta 0.01]

The realistic shape: a bronze table of N rows feeds a silver table. A new batch of 1%
(half updates of random existing keys, half new keys) lands in bronze; then the silver
table is brought up to date either incrementally (watermark + MERGE INTO on the run's
branch) or by a full refresh that recomputes it from all of bronze. Both go through the
real runner; bare Spark MERGE INTO of the same batch (again, into the incremental table) is printed for comparison.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import scratch_project, timed, warm_workbench, write_pipeline  # noqa: E402

BRONZE = ("SELECT id, id % 1000 AS customer_id, CAST(id % 5000 AS DOUBLE) AS amount, "
          "CAST(1 AS BIGINT) AS batch FROM range({rows})")
BATCH = ("SELECT CAST(IF(id % 2 = 0, pmod(hash(id), {rows}), {rows} + id) AS BIGINT) AS id, 7L AS customer_id, "
         "1.0D AS amount, CAST(2 AS BIGINT) AS batch FROM range({delta_rows})")
SILVER = """\
-- @merge_strategy: {strategy}
-- @unique_key: id
-- @watermark_column: batch
SELECT id, customer_id, amount * 1.2 AS amount_with_tax, batch
FROM {{{{ ref('bronze.events') }}}}
{{% if is_incremental() %}} WHERE batch > {{{{ watermark_value }}}} {{% endif %}}
"""


def phases(run: dict) -> str:
    return ", ".join(f"{name} {ms / 1000:.1f}" for name, ms in run["phases"].items())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--delta", type=float, default=0.01)
    parser.add_argument("--master", default=None, help="Spark master (default: local[*])")
    args = parser.parse_args()
    delta_rows = int(args.rows * args.delta)
    root = scratch_project("merge")
    if args.master:
        (root / "rat.yaml").write_text(f"spark:\n  master: {args.master}\n")
    bronze = write_pipeline(root, "bronze", "events", "-- @merge_strategy: append_only\n" + BRONZE.format(rows=args.rows))
    incremental = write_pipeline(root, "silver", "incremental", SILVER.format(strategy="incremental"))
    refresh = write_pipeline(root, "silver", "refresh", SILVER.format(strategy="full_refresh"))
    with warm_workbench(root) as wb:
        wb.runs.run(bronze)
        wb.runs.run(incremental)
        wb.runs.run(refresh)
        print(f"bronze and both silver tables hold {args.rows:,} rows")
        write_pipeline(root, "bronze", "events", "-- @merge_strategy: append_only\n"
                       + BATCH.format(rows=args.rows, delta_rows=delta_rows))
        wb.runs.run(bronze)
        merge_s, merged = timed(lambda: wb.runs.run(incremental).as_dict()["run"])
        refresh_s, refreshed = timed(lambda: wb.runs.run(refresh).as_dict()["run"])
        spark = wb.spark.session()
        spark.sql("SELECT id, MAX(customer_id) AS customer_id, MAX(amount) * 1.2 AS amount_with_tax, MAX(batch) AS batch "
                  "FROM bench.bronze.events WHERE batch = 2 GROUP BY id").createOrReplaceTempView("bench_delta")
        bare_s, _ = timed(lambda: spark.sql(
            "MERGE INTO bench.silver.incremental t USING bench_delta s ON t.id = s.id "
            "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"))
    print(f"incremental merge of a {args.delta:.0%} batch ({merged['rows_written']:,} rows): {merge_s:.1f} s  [{phases(merged)}]")
    print(f"full refresh of {args.rows + delta_rows // 2:,} rows: {refresh_s:.1f} s  [{phases(refreshed)}]")
    print(f"bare Spark MERGE INTO of the same batch: {bare_s:.1f} s")
    print(f"full refresh / merge = {refresh_s / merge_s:.1f}x; rat merge / bare merge = {merge_s / bare_s:.2f}")


if __name__ == "__main__":
    main()
