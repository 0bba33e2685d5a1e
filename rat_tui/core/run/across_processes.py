"""Runs of one pipeline from several processes on one project (two apps, an app and a script).

One at a time: every run holds `.rat/locks/<pipeline>.lock` (store/locks.py) from before it starts until
it ends. A run of a pipeline already running in another process waits for that run (it stays queued, and
a log line says whom it waits for), then runs; it never fails for that reason. If the holder was killed,
the kernel freed the lock: the waiter marks the dead run failed (recovery.py) and runs. The kernel frees a
killed process's lock before the process is gone (its files close first), and a live holder records how its
run ended just after it lets go: so the waiter first waits, briefly, for one or the other (`wait_out`).

A save run once: a run asked for by a save or by new landing files carries `join_since`, the moment the
files changed. If, once it holds the lock, it finds a successful run of the pipeline's working copy that
started at or after that moment, that run read the changed files: this one joins it instead of running
again. It ends a success that wrote nothing, says which run did the work, and leaves no row in the run
history (one save, one run, whichever app saw it). A run asked for by hand always runs.
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..events import EventBus, LogLine
from ..store.locks import held
from ..store.state import RunRecord, StateDB, process_alive


@contextmanager
def pipeline_held(state_dir: Path, record: RunRecord, cancelled: threading.Event,
                  events: EventBus) -> Iterator[str | None]:
    """The pipeline's lock for the block; yields the holder it waited for (None when it did not wait)."""

    def waiting(holder: str) -> None:
        who = f"run {holder}" if holder else "a run"
        events.publish(LogLine(record.run_id, "info", f"{record.pipeline} is running in another process ({who}); "
                                                      "this run starts when that one ends"))

    with held(state_dir, record.pipeline, f"{record.run_id} (pid {os.getpid()})", cancelled, waiting) as last:
        yield last


WAIT_OUT_SECONDS = 5.0  # a process's exit takes milliseconds; a live run's last state write, as long


def wait_out(state: StateDB, last_holder: str) -> None:
    """Until the run that last held the lock has recorded its end or its process is gone, at most
    WAIT_OUT_SECONDS: then a dead holder's run is an orphan to `mark_orphans`, and a live one's is not."""
    run = state.get_run(last_holder.split(" ", 1)[0]) if last_holder else None
    deadline = time.monotonic() + WAIT_OUT_SECONDS
    while (run is not None and run.status in ("queued", "running") and time.monotonic() < deadline
           and process_alive(run.host, run.pid)):
        time.sleep(0.02)
        run = state.get_run(run.run_id)


@dataclass(frozen=True)
class Joined:
    """This run ends as having joined `run_id`, a successful run that read the same change."""

    run_id: str
    snapshot_id: int | None

    @property
    def note(self) -> str:
        return f"joined run {self.run_id}, which started after the change and read it; not run again"


def join_covering_run(state: StateDB, events: EventBus, record: RunRecord, join_since: float | None) -> Joined | None:
    """If a successful run started after this run's files changed (`join_since`), this one joins it: its row
    goes, the log says so, and the runner ends it as the returned join says."""
    if join_since is None:
        return None
    covering = state.covering_run(record.pipeline, join_since, other_than=record.run_id)
    if covering is None:
        return None
    state.delete_run(record.run_id)
    joined = Joined(covering.run_id, covering.snapshot_id)
    events.publish(LogLine(record.run_id, "info", f"{record.pipeline}: {joined.note}"))
    return joined
