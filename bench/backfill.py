"""A backfill of 365 daily intervals of 10k rows each against one full refresh of the same data (issue 39):
wall time of each, and the ratio (aim: at most 3x).

    python bench/backfill.py [--days 365] [--rows-per-day 10000]

The source (bronze.events, its table partitioned by day as a partitioned pipeline's table is, so each
interval reads its own day) is built once; then `silver.full` (one full refresh of it) and `silver.daily` (`partitions:` by day, every
interval in one backfill run, with its delete-then-insert write) run on the same warm session.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from devkit.sample import copy_sample  # noqa: E402
from rat_tui.core.compose import open_project  # noqa: E402
from rat_tui.core.store.state import RunRecord  # noqa: E402

SOURCE = """SELECT id, DATE_ADD(DATE '2024-01-01', CAST(id DIV {per_day} AS INT)) AS event_date,
       CAST(id % 997 AS DOUBLE) AS amount, concat('e', CAST(id AS STRING)) AS label
FROM range({rows})
"""
FULL = "SELECT id, event_date, amount, label FROM {{ ref('bronze.events') }}\n"
DAILY = ("SELECT id, event_date, amount, label FROM {{ ref('bronze.events') }}\n"
         "WHERE event_date >= '{{ interval_start }}' AND event_date < '{{ interval_end }}'\n")


def pipeline(root: Path, layer: str, name: str, sql: str, config: str | None = None) -> str:
    folder = root / "bench" / "pipelines" / layer / name
    folder.mkdir(parents=True)
    (folder / "pipeline.sql").write_text(sql)
    if config:
        (folder / "config.yaml").write_text(config)
    return f"bench.{layer}.{name}"


def timed(what: str, call) -> tuple[float, RunRecord]:
    began = time.monotonic()
    run = call().run
    seconds = time.monotonic() - began
    assert run.status == "success", run.error
    print(f"{what:44} {seconds:7.1f} s  ({run.rows_written:,} rows)", flush=True)
    return seconds, run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--rows-per-day", type=int, default=10_000)
    args = parser.parse_args()
    root = copy_sample(Path(tempfile.mkdtemp(prefix="rat-bench-backfill-")) / "project")
    rows = args.days * args.rows_per_day
    source = pipeline(root, "bronze", "events", SOURCE.format(per_day=args.rows_per_day, rows=rows))
    full = pipeline(root, "silver", "full", FULL)
    daily = pipeline(root, "silver", "daily", DAILY, "partitions: {column: event_date, grain: day, start: 2024-01-01}\n")
    workbench = open_project(root)
    try:
        workbench.spark.session(timeout=600)
        workbench.spark.ensure_catalog("bench")
        began = time.monotonic()
        with workbench.spark.using() as spark:  # the source's table, partitioned by day, made straight by Spark
            spark.sql("CREATE NAMESPACE IF NOT EXISTS bench.bronze")
            spark.sql(f"CREATE TABLE {source} USING iceberg PARTITIONED BY (days(event_date)) AS "
                      + SOURCE.format(per_day=args.rows_per_day, rows=rows))
        print(f"source: {rows:,} rows in {time.monotonic() - began:.1f} s", flush=True)
        timed("warm-up: the full refresh once", lambda: workbench.runs.run(full))
        refresh, _ = timed("full refresh of the same data", lambda: workbench.runs.run(full))
        end = str(date(2024, 1, 1) + timedelta(days=args.days))
        backfill, run = timed(f"backfill of {args.days} daily intervals", lambda: workbench.intervals.backfill(
            daily, "2024-01-01", end))
        again, _ = timed(f"the same {args.days} intervals again (--all)", lambda: workbench.intervals.backfill(
            daily, "2024-01-01", end, ("all",)))
        print(f"backfill / full refresh: {backfill / refresh:.1f}x (a rerun of every interval: "
              f"{again / refresh:.1f}x); phases of the backfill (ms): {run.phases}")
    finally:
        workbench.close()
        shutil.rmtree(root.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
