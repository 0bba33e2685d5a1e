"""Time per phase of a 10k-row silver pipeline on a warm session, against bare Spark doing the same
write; and save → run finished through the real file watcher, as the TUI's watch-and-run does.

The JVM compiles Spark's and Iceberg's write path over its first few dozen writes (a write's time
falls by a third meanwhile; after 15 of each it still compiled about 100 methods a write), so the bench first warms it with both writes, then interleaves them:
a save through the watcher, a run, a bare write, and again, each after the same pause. An idle JVM
wakes slowly (its first call after 0.3 s idle takes a few ms, then a tenth of one; each of Spark's
threads pays it), and a save comes after idle: a bare write measured straight after a run would not
pay it. Neither side gets a warmer JVM or a quieter moment than the other.

    python bench/warm_run.py [--rows 10000] [--repeat 7] [--warmup 60]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import cpu_clock, scratch_project, timed, warm_workbench, write_pipeline  # noqa: E402

SQL = """\
-- @merge_strategy: full_refresh
SELECT id, id % 97 AS customer_id, CAST(id * 1.5 AS DECIMAL(12, 2)) AS amount,
       DATE_ADD(DATE '2024-01-01', CAST(id % 365 AS INT)) AS order_date
FROM range({rows})
"""
PAUSE = 0.3  # seconds of idle before each save, run and bare write


@contextmanager
def watched_saves(wb, fqn: str, sql: str) -> Iterator[Callable[[int], float]]:
    """A function that saves the pipeline as an editor does (temp file, rename) and returns the seconds
    from the save to the end of the run it causes, through the real watcher."""
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

    def save(n: int) -> float:
        time.sleep(PAUSE)  # the last save's events are long reported
        finished.clear()
        temp = source.with_name(".pipeline.sql.tmp")
        temp.write_text(sql + f"-- save {n}\n")
        began = time.monotonic()
        os.replace(temp, source)
        assert finished.wait(60), "the save never produced a finished run"
        return time.monotonic() - began

    try:
        yield save
    finally:
        watcher.stop()
        unsubscribe()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--warmup", type=int, default=60, help="runs and bare writes first, not measured")
    args = parser.parse_args()
    root = scratch_project("warm")
    sql = SQL.format(rows=args.rows)
    fqn = write_pipeline(root, "silver", "orders", sql)
    with warm_workbench(root) as wb:
        spark = wb.spark.session()

        def bare() -> None:
            spark.sql(SQL.split("\n", 1)[1].format(rows=args.rows)).writeTo("bench.silver.bare").using(
                "iceberg").createOrReplace()

        for _ in range(args.warmup):
            wb.runs.run(fqn)
            bare()
        cpu = cpu_clock(spark)
        runs, run_cpu, bares, bare_cpu, saves = [], [], [], [], []
        with watched_saves(wb, fqn, sql) as save:
            for n in range(args.repeat):
                saves.append(save(n))
                time.sleep(PAUSE)
                began = cpu()
                runs.append(wb.runs.run(fqn).as_dict()["run"])
                run_cpu.append(cpu() - began)
                time.sleep(PAUSE)
                began = cpu()
                bares.append(timed(bare)[0])
                bare_cpu.append(cpu() - began)
    print(f"warm run of a {args.rows}-row silver pipeline, median of {args.repeat} (after {args.warmup} runs and "
          f"bare writes to warm the JVM; saves, runs and bare writes interleaved, each after {PAUSE} s idle):")
    for phase in runs[0]["phases"]:
        print(f"  {phase:18s} {statistics.median(r['phases'][phase] for r in runs):7.0f} ms")
    total = statistics.median(sum(r["phases"].values()) for r in runs) / 1000
    bare_s = statistics.median(bares)
    print(f"  {'total':18s} {total * 1000:7.0f} ms")
    print(f"bare Spark CREATE OR REPLACE of the same rows: {bare_s * 1000:.0f} ms; ratio rat/bare = {total / bare_s:.2f}")
    print(f"CPU (Spark's JVM and this process) per run: {statistics.median(run_cpu) * 1000:.0f} ms; per bare write: "
          f"{statistics.median(bare_cpu) * 1000:.0f} ms; ratio {statistics.median(run_cpu) / statistics.median(bare_cpu):.2f}")
    save_s = statistics.median(saves)
    print(f"save → run finished through the watcher: {save_s * 1000:.0f} ms (min {min(saves) * 1000:.0f}, max "
          f"{max(saves) * 1000:.0f}); ratio save→finished/bare = {save_s / bare_s:.2f}")


if __name__ == "__main__":
    main()
