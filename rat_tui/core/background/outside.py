"""What changes the project from outside this process, told to the faces as it happens (notices on the
project's one event stream):

- runs made by another process on the project (a script, a second terminal): queued, running, finished;
- `.rat/state.db` deleted under the app: the state is made again (store/state.py), runs in flight get
  their rows back, the app's open mark is renewed, and one sentence says so;
- a namespace's `warehouse/` deleted under the app: its tables are gone; one sentence says so.

A thread looks every POLL_SECONDS: SQLite's `data_version` (changes when another connection commits) and
whether the warehouses are there. Cheap, off the UI thread; nothing here waits on Spark.
"""
from __future__ import annotations

import logging
import os
import socket
import threading
import time
from dataclasses import dataclass

from ..events import EventBus, Notice
from ..project.model import Project
from ..run.runner import Runner
from ..store.presence import OpenMark
from ..store.state import StateDB

log = logging.getLogger(__name__)
POLL_SECONDS = 0.25


@dataclass(frozen=True)
class OtherProcessRun(Notice):
    """A run of another process changed status (queued, running, success, failed, ...)."""

    run_id: str
    pipeline: str
    status: str
    error: str | None
    pid: int | None

    @property
    def finished(self) -> bool:
        return self.status not in ("queued", "running")

    def sentence(self) -> str:
        tail = f": {self.error}" if self.error and self.finished else ""
        return f"run {self.run_id} of {self.pipeline} by another process (pid {self.pid}): {self.status}{tail}"


@dataclass(frozen=True)
class StateVanished(Notice):
    """`.rat/state.db` or a warehouse was deleted under the app; the tree and panels reload."""

    sentence: str


class OutsideChanges:
    def __init__(self, project: Project, events: EventBus, state: StateDB, runner: Runner, open_mark: OpenMark):
        self.project, self.events, self.state, self.runner, self.open_mark = project, events, state, runner, open_mark
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._statuses: dict[str, str] = {}
        self._since = time.time()
        self._warehouses: set[str] = set()
        state.on_recreated(self._state_recreated)

    def start(self) -> None:
        if self._thread is None:
            self._stop = threading.Event()
            self._since = time.time()
            self._warehouses = self._present_warehouses()
            self._other_runs(publish=False)  # what runs elsewhere now is a starting point, not news
            self._thread = threading.Thread(target=self._loop, name="outside", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread = None

    def _loop(self) -> None:
        version, stop = None, self._stop
        while not stop.wait(POLL_SECONDS):
            try:
                now = self.state.query_one("PRAGMA data_version")[0]  # also reopens a deleted state.db
                if now != version:
                    version = now
                    self._other_runs(publish=True)
                self._check_warehouses()
            except Exception:  # a look that failed is tried again at the next tick
                log.exception("looking for changes from outside failed")

    # -- runs of other processes -------------------------------------------------------
    def _other_runs(self, publish: bool) -> None:
        rows = self.state.query(
            "SELECT run_id, pipeline, status, error, pid FROM runs WHERE NOT (host IS ? AND pid IS ?)"
            " AND (status IN ('queued', 'running') OR finished_at >= ?) ORDER BY queued_at",
            (socket.gethostname(), os.getpid(), self._since))
        for row in rows:
            if self._statuses.get(row["run_id"]) == row["status"]:
                continue
            self._statuses[row["run_id"]] = row["status"]
            if publish:
                self.events.publish(OtherProcessRun(row["run_id"], row["pipeline"], row["status"], row["error"],
                                                     row["pid"]))

    # -- state deleted under the app ---------------------------------------------------
    def _state_recreated(self, emptied: bool) -> None:
        """In whichever thread first used the state after it vanished."""
        self.open_mark.renew()
        for handle in list(self.runner.active.values()):
            self.state.restore_run(handle.record)
        self._statuses.clear()
        history = "its run history starts again" if emptied else "another process had made it again"
        self.events.publish(StateVanished(
            f"The project's state ({self.state.path.parent.name}/{self.state.path.name}) was deleted under "
            f"the app and has been recreated: {history}, and runs in flight carry on."))

    def _present_warehouses(self) -> set[str]:
        root = self.project.root
        try:
            return {entry.name for entry in os.scandir(root) if entry.is_dir() and (root / entry.name / "warehouse").is_dir()}
        except FileNotFoundError:
            return set()

    def _check_warehouses(self) -> None:
        present = self._present_warehouses()
        gone, self._warehouses = self._warehouses - present, present
        for namespace in sorted(gone):
            if (self.project.root / namespace).is_dir():  # a namespace deleted whole is just gone from the tree
                self.events.publish(StateVanished(
                    f"{namespace}/warehouse was deleted under the app: its tables are gone, and the next run of "
                    "each pipeline builds its table again."))
