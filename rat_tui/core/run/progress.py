"""Spark's own progress inside a running phase: tasks done / total of the run's active stages.

Read from the status tracker by a small thread while the phase runs. Only the run's job group is
counted (other runs and the console share the SparkContext), and a figure is reported only when it
changed, at most every POLL_SECONDS, so a phase with thousands of tasks never floods a face.
"""
from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator

log = logging.getLogger(__name__)

POLL_SECONDS = 0.25
# A phase shorter than this shows no figures: a warm small run's phases all are, and each look is a dozen
# JVM round trips from another thread while the run makes its own (measured: 40–80 a run on a busy machine).
FIRST_POLL_SECONDS = 1.0


def group_tasks(tracker, group: str) -> tuple[int, int]:
    """(tasks done, tasks in all) over the active stages of the group's running jobs."""
    running = set(tracker.getJobIdsForGroup(group)) & set(tracker.getActiveJobsIds())
    if not running:
        return 0, 0
    active = set(tracker.getActiveStageIds())
    stages: set[int] = set()
    for job_id in running:
        job = tracker.getJobInfo(job_id)
        if job is not None:
            stages |= active & set(job.stageIds)
    done = total = 0
    for stage_id in stages:
        stage = tracker.getStageInfo(stage_id)
        if stage is not None:
            done, total = done + stage.numCompletedTasks, total + stage.numTasks
    return done, total


@contextlib.contextmanager
def watch_tasks(spark_context, group: str, report: Callable[[int, int], None]) -> Iterator[None]:
    """Reports (done, total) while the block runs; nothing is reported once the block has ended."""
    stop = threading.Event()
    lock = threading.Lock()  # the last report and the end of the block never interleave

    def poll() -> None:
        if stop.wait(FIRST_POLL_SECONDS):
            return
        tracker, last = spark_context.statusTracker(), (0, 0)
        while True:
            try:
                figures = group_tasks(tracker, group)
            except Exception:  # the context stopping under a run: the phase itself reports that
                log.debug("reading Spark progress of %s failed", group, exc_info=True)
                return
            if figures != last and figures[1]:
                with lock:
                    if stop.is_set():
                        return
                    report(*figures)
                last = figures
            if stop.wait(POLL_SECONDS):
                return

    thread = threading.Thread(target=poll, name=f"progress-{group}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        with lock:
            stop.set()
        thread.join(timeout=2 * POLL_SECONDS)
