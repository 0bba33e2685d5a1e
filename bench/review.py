"""The key-aware diff of a reviewed run: a 1% merge into a large table, against the merge itself.

    python bench/review.py [--rows 5000000] [--delta 0.01]

A bronze table of N rows feeds an incremental (merge-on-read) silver table keyed on `id`. A 1%
batch (half updates of random existing keys, half new keys) lands in bronze; the silver run is
made in review mode, so it stops on its branch with its diff. Printed: the merge (the run's
iceberg_write phase), the diff as the run computed it (inside quality_tests), and the same diff
again on the warm session (the `diff` command's path), with the ratio diff / merge.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import scratch_project, timed, warm_workbench, write_pipeline  # noqa: E402
from merge_vs_refresh import BATCH, BRONZE, SILVER  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--delta", type=float, default=0.01)
    args = parser.parse_args()
    delta_rows = int(args.rows * args.delta)
    root = scratch_project("review")
    bronze = write_pipeline(root, "bronze", "events", "-- @merge_strategy: append_only\n" + BRONZE.format(rows=args.rows))
    silver = write_pipeline(root, "silver", "incremental", SILVER.format(strategy="incremental"))
    with warm_workbench(root) as wb:
        wb.runs.run(bronze)
        wb.runs.run(silver)
        print(f"bronze and silver hold {args.rows:,} rows")
        write_pipeline(root, "bronze", "events", "-- @merge_strategy: append_only\n"
                       + BATCH.format(rows=args.rows, delta_rows=delta_rows))
        wb.runs.run(bronze)
        wb.warm_up().join()  # as the app does once the session is ready (diff included)
        held = wb.runs.run(silver, review=True).as_dict()["run"]
        record = wb.state.get_run(held["run_id"])
        base, head = record.review["base_snapshot"], wb.tables.snapshots(silver)["refs"][record.review["branch"]]
        merge_s = held["phases"]["iceberg_write"] / 1000
        in_run_s = held["phases"]["quality_tests"] / 1000
        times = []
        for _ in range(3):
            seconds, diff = timed(lambda: wb.review.key_diff(silver, base, head))
            times.append(seconds)
        spark = wb.spark.session()  # for scale on this machine: one plain scan of every column of main
        scan_s, _ = timed(lambda: spark.sql(f"SELECT sum(hash(*)) FROM {silver}").collect())
        wb.review.reject(held["run_id"])
    warm = min(times)
    print(f"diff: {diff.added:,} added, {diff.removed:,} removed, {diff.changed:,} changed "
          f"(columns {diff.columns}; read {diff.read})")
    print(f"merge of the {args.delta:.0%} batch ({held['rows_written']:,} rows, the run's iceberg_write): {merge_s:.2f} s")
    print(f"diff inside the run (its quality_tests phase): {in_run_s:.2f} s")
    print(f"diff on the warm session: {', '.join(f'{t:.2f}' for t in times)} s (best {warm:.2f} s)")
    print(f"for scale, one scan of every column of the {args.rows:,}-row table: {scan_s:.2f} s")
    print(f"diff / merge = {warm / merge_s:.2f}x (target <= 0.5x); warm diff {warm:.2f} s (target <= 2 s)")


if __name__ == "__main__":
    main()
