"""Time per phase of a 10k-row silver pipeline on a warm session, against bare Spark doing the same
write; and save → run finished through the real file watcher, as the TUI's watch-and-run does.

    python bench/warm_run.py [--rows 10000] [--repeat 7]
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import cpu_clock, scratch_project, timed, warm_workbench, write_pipeline  # noqa: E402

SQL = """\
-- @merge_strategy: full_refresh
SELECT id, id % 97 AS customer_id, CAST(id * 1.5 AS DECIMAL(12, 2)) AS amount,
       DATE_ADD(DATE '2024-01-01', CAST(id % 365 AS INT)) AS order_date
FROM range({rows})
"""


def save_to_finished(wb, fqn: str, sql: str, repeat: int) -> list[float]:
    """Seconds from an editor-style save (temp file, rename) to the end of the run it causes."""
    import os
    import threading
    import time

    from rat_tui.core.background.watching import changed_at
    from rat_tui.core.events import RunFinished
    from rat_tui.core.project.watch import PipelineChanged, ProjectWatcher

    finished = threading.Event()
    unsubscribe = wb.events.subscribe(lambda e: finished.set() if isinstance(e, RunFinished) else None)

    def on_changes(changes) -> None:
        for change in changes:
            if isinstance(change, PipelineChanged):
                wb.runs.request_run(change.pipeline, trigger="watch",
                               changed_at=changed_at(wb.project.root / path for path in change.paths))

    watcher = ProjectWatcher(wb.project, on_changes, wb.project.settings.watch_debounce_ms / 1000)
    watcher.start()
    source = wb.project.pipeline_dir(wb.browse.resolve(fqn)) / "pipeline.sql"
    took = []
    try:
        for n in range(repeat):
            time.sleep(0.5)
            finished.clear()
            temp = source.with_name(".pipeline.sql.tmp")
            temp.write_text(sql + f"-- save {n}\n")
            began = time.monotonic()
            os.replace(temp, source)
            assert finished.wait(60), "the save never produced a finished run"
            took.append(time.monotonic() - began)
    finally:
        watcher.stop()
        unsubscribe()
    return took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    root = scratch_project("warm")
    fqn = write_pipeline(root, "silver", "orders", SQL.format(rows=args.rows))
    with warm_workbench(root) as wb:
        wb.runs.run(fqn)  # first run pays for the first query and table creation
        spark = wb.spark.session()
        cpu = cpu_clock(spark)
        began = cpu()
        runs = [wb.runs.run(fqn).as_dict()["run"] for _ in range(args.repeat)]
        run_cpu = (cpu() - began) / args.repeat
        saves = save_to_finished(wb, fqn, SQL.format(rows=args.rows), args.repeat)
        began = cpu()
        bare = [timed(lambda: spark.sql(SQL.split("\n", 1)[1].format(rows=args.rows))
                      .writeTo("bench.silver.bare").using("iceberg").createOrReplace())[0]
                for _ in range(args.repeat)]
        bare_cpu = (cpu() - began) / args.repeat
    print(f"warm run of a {args.rows}-row silver pipeline, median of {args.repeat}:")
    for phase in runs[0]["phases"]:
        print(f"  {phase:18s} {statistics.median(r['phases'][phase] for r in runs):7.0f} ms")
    total = statistics.median(sum(r["phases"].values()) for r in runs) / 1000
    bare_s = statistics.median(bare)
    print(f"  {'total':18s} {total * 1000:7.0f} ms")
    print(f"bare Spark CREATE OR REPLACE of the same rows: {bare_s * 1000:.0f} ms; ratio rat/bare = {total / bare_s:.2f}")

    print(f"CPU (Spark's JVM and this process) per run: {run_cpu * 1000:.0f} ms; per bare write: {bare_cpu * 1000:.0f} ms; "
          f"ratio {run_cpu / bare_cpu:.2f}")
    print(f"save → run finished through the watcher, median of {args.repeat}: {statistics.median(saves) * 1000:.0f} ms "
          f"(min {min(saves) * 1000:.0f}, max {max(saves) * 1000:.0f})")

if __name__ == "__main__":
    main()
