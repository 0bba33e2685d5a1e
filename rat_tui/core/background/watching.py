"""Watch-and-run, for every face: the folder watcher's saves and landed files become runs as rat.yaml's
`watch:` settings say, told as notices on the project's one event stream.

- a saved pipeline file is versioned (with a bucket: uploaded) and its pipeline re-runs (one run for a
  burst of saves, or for saves while a run waits); with `watch.cascade` what is downstream of it runs
  once that run succeeded;
- new files in a landing zone get fresh samples; with `watch.run_on_landing` the pipelines reading the
  zone run, else, on a warm Spark session, its CSV files get typed Parquet twins.

Cascade and run-on-landing are the automation's implicit `after` and `landing` triggers
(core/automation/implicit.py): the watcher evaluates them when a save's run ends or files land (unless
a `serve` runs the project's triggers), so they obey cooldown and overlap and leave ticks with reasons.

Each batch of changes is handled in its own thread, so a run waiting for its upstream never holds up
the watcher; `wait_idle` waits until every batch is done and its runs have finished (the script's
`wait-idle`).
"""
from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol

from ..automation.evaluate import Decision
from ..automation.scheduler import other_scheduler
from ..automation.service import Automation, StartedRun
from ..automation.triggers import Kind
from ..errors import RatError
from ..events import Event, EventBus, Notice, RunFinished, RunQueued
from ..failures import failure_sentence
from ..lake.session import SessionState, SparkManager
from ..landing.uploads import refresh_samples
from ..project.model import PipelineRef, Project, active_landing_files
from ..project.pipeline_source import zone_readers
from ..project.watch import Change, PipelineChanged, ProjectWatcher, SettingsChanged, ZoneChanged
from ..run.runner import RunHandle, Runner
from ..store.state import RunRecord
from ..text import one_line

CLOCK_REALTIME_COARSE = 5  # Linux's clock id; Python names only the fine clocks


def _mtime_lag() -> float:
    """A file's time comes from a coarse clock, up to one of its ticks behind time.time(): a run that started
    before the write could otherwise look as if it read it. A save's run starts no sooner (runner.py), so the
    lag is the tick this kernel has (Linux: 1-10 ms by its HZ) and a millisecond more, not the slowest tick:
    a warm save's run waited out 15 ms where 4 would do."""
    if sys.platform == "linux":
        with contextlib.suppress(OSError):
            return time.clock_getres(CLOCK_REALTIME_COARSE) + 0.001
    return 0.015


MTIME_LAG = _mtime_lag()


def changed_at(paths: Iterable[Path]) -> float:
    """When the newest of `paths` was written (now, if none is left): the same moment for every app that
    saw the change, so a run another app started after it covers it."""
    times = []
    for path in paths:
        with contextlib.suppress(OSError):
            times.append(path.stat().st_mtime)
    return max(times, default=time.time()) + MTIME_LAG


class RunRequests(Protocol):
    """What watch-and-run asks of the runs service (commands/runs.py)."""

    def request_run(self, ref: PipelineRef, trigger: str, changed_at: float) -> RunHandle: ...

    def wait_idle(self, timeout: float | None = None) -> object: ...


class Saves(Protocol):
    """The files service (commands/files.py): a saved pipeline file is versioned (with a bucket: uploaded)."""

    def record_saves(self, relpaths: list[str]) -> dict[str, str]: ...


class Twins(Protocol):
    """The landing service (commands/landing_commands.py): typed Parquet twins of a zone's new CSV files."""

    def make_typed_twins(self, namespace: str, zone: str) -> dict: ...


@dataclass(frozen=True)
class WatchToggled(Notice):
    on: bool


@dataclass(frozen=True)
class FilesChanged(Notice):
    """A debounced batch of changes, before its runs are asked for (the project's overview changed)."""

    changes: tuple[Change, ...]

    def as_dict(self) -> dict:
        """`changes`: `{pipeline, paths}` for a pipeline's files, `{namespace, zone, active}` for a zone's."""
        return {"event": self.kind, "at": self.at, "changes": [
            {"pipeline": c.pipeline.fqn, "paths": list(c.paths)} if isinstance(c, PipelineChanged) else asdict(c)
            for c in self.changes]}


@dataclass(frozen=True)
class RunRequested(Notice):
    """A save or newly landed files queued a run (or joined a run already queued)."""

    pipeline: str
    run_id: str
    cause: str  # "saved" | "new files in <zone>"

    def sentence(self) -> str:
        return f"{self.cause}: running {self.pipeline} ({self.run_id})"


@dataclass(frozen=True)
class ZoneUpdated(Notice):
    """A zone's samples were refreshed or its files typed: what shows the zone reloads."""

    namespace: str
    zone: str


@dataclass(frozen=True)
class CascadeRan(Notice):
    """watch.cascade's implicit `after` triggers ran what is downstream of a saved pipeline; `runs` in
    execution order."""

    title: str
    runs: list[RunRecord]

    def as_dict(self) -> dict:
        return {"event": self.kind, "title": self.title, "runs": [run.as_dict() for run in self.runs]}


@dataclass(frozen=True)
class WatchFailed(Notice):
    what: str  # e.g. "save <path>", "auto-run <pipeline>", "sample of <ns>/<zone>"
    sentence: str


class Watching:
    """Off until started; publishes the notices above on the project's event stream, with the runs' own events."""

    def __init__(self, project: Project, events: EventBus, spark: SparkManager, runner: Runner, automation: Automation,
                 runs: RunRequests, saves: Saves, twins: Twins):
        self.project, self.events, self.spark, self.runner, self.automation = project, events, spark, runner, automation
        self.runs, self.saves, self.twins = runs, saves, twins
        self._watcher: ProjectWatcher | None = None
        self._busy = 0
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self._watcher is not None

    def set(self, on: bool) -> bool:
        if on and self._watcher is None:
            self.automation.implicit_since = time.time()  # the implicit triggers start then
            settings = self.project.settings
            self._watcher = ProjectWatcher(self.project, self._changed, settings.watch_debounce_ms / 1000)
            self._watcher.start()
        elif not on and self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
            self.automation.implicit_since = None
        self.events.publish(WatchToggled(on))
        return on

    def stop(self) -> None:
        if self._watcher is not None:
            self.set(False)

    def wait_idle(self, timeout: float | None = None) -> list[RunRecord]:
        """Until the saves seen so far are handled (their runs asked for, a cascade run) and no run is queued
        or running; `runs`: those that finished meanwhile, in the order they were queued."""
        deadline = None if timeout is None else time.monotonic() + timeout
        handles: dict[str, RunHandle] = {}
        finished: set[str] = set()

        def seen(event: Event) -> None:  # in the run's thread, before its handle says done
            if isinstance(event, RunQueued) and event.run_id in self.runner.active:
                handles[event.run_id] = self.runner.active[event.run_id]
            elif isinstance(event, RunFinished):
                finished.add(event.run_id)

        unsubscribe = self.events.subscribe(seen)
        for run_id, handle in list(self.runner.active.items()):  # queued or running now
            handles.setdefault(run_id, handle)
        try:
            self._settle(deadline)
            self.runs.wait_idle(timeout)  # the runs have the whole timeout; handling the saves had its own
        finally:
            unsubscribe()
        return [h.record for run_id, h in handles.items() if run_id in finished]

    def _settle(self, deadline: float | None) -> None:
        if self._watcher is None and not self._busy:
            return
        time.sleep(0.2)  # let the file system event arrive
        while (self._watcher is not None and self._watcher.pending) or self._busy:
            if deadline is not None and time.monotonic() > deadline:
                return
            time.sleep(0.05)

    # -- in the watcher's thread ------------------------------------------------------
    def _changed(self, changes: list[Change]) -> None:
        changes = [c for c in changes if not isinstance(c, SettingsChanged)]  # settings_watch.py reloads rat.yaml
        for change in changes:
            handle: Callable = self._saved if isinstance(change, PipelineChanged) else self._landed
            self._start(handle, change)
        if changes:
            self.events.publish(FilesChanged(tuple(changes)))

    def _start(self, handle: Callable, change: Change) -> None:
        with self._lock:
            self._busy += 1

        def work() -> None:
            try:
                handle(change)
            finally:
                with self._lock:
                    self._busy -= 1

        threading.Thread(target=work, name="watch", daemon=True).start()

    def _failed(self, what: str, sentence: str) -> None:
        self.events.publish(WatchFailed(what, sentence))

    # -- one change each, in its own thread -------------------------------------------
    def _saved(self, change: PipelineChanged) -> None:
        fqn = change.pipeline.fqn
        for path, problem in self.saves.record_saves(list(change.paths)).items():  # a failed upload does not stop the run
            self._failed(f"save {path}", problem)
        if not self.project.pipeline_dir(change.pipeline).is_dir():
            return
        try:
            handle = self.runs.request_run(change.pipeline, trigger="watch",
                                    changed_at=changed_at(self.project.root / path for path in change.paths))
        except RatError as exc:
            self._failed(f"auto-run {fqn}", exc.sentence())
            return
        self.events.publish(RunRequested(fqn, handle.run_id, "saved"))
        if self.project.settings.watch_cascade:
            self._cascade(fqn, handle)

    def _cascade(self, fqn: str, handle: RunHandle) -> None:
        """Once the saved pipeline's run has ended, the implicit `after` triggers run what is downstream of it,
        each once, upstream first (a failed or joined run has no new success: nothing follows)."""
        handle.wait()
        runs: list[RunRecord] = []
        try:
            while fired := self._evaluate_implicit():
                for run in {run.run_id: run for _, run in fired}.values():  # ticks of one run share it
                    runs.append(run.wait())  # type: ignore[arg-type]  (a RunHandle's RunRecord)
        except Exception as exc:
            self._failed(f"run downstream of {fqn}", failure_sentence(f"run downstream of {fqn}", exc))
            return
        if runs:
            self.events.publish(CascadeRan(f"downstream of {fqn}", runs))

    def _evaluate_implicit(self) -> list[tuple[Decision, StartedRun]]:
        """The watch: settings' implicit triggers evaluated now (unless a `serve` runs the project's triggers):
        the ticks that fired, with their runs."""
        if other_scheduler(self.project.state_dir) is not None:
            return []
        started = self.automation.evaluate_and_start(implicit_only=True)
        return [(decision, run) for decision, run in started if decision.fire and run is not None]

    def _landed(self, change: ZoneChanged) -> None:
        where = f"{change.namespace}/{change.zone}"
        zone_dir = self.project.zone_dir(change.namespace, change.zone)
        try:
            refresh_samples(zone_dir, active_landing_files(zone_dir))
        except Exception as exc:  # a half-written or unreadable file: the upload check reports it
            self._failed(f"sample of {where}", one_line(str(exc)))
        self.events.publish(ZoneUpdated(change.namespace, change.zone))
        auto_run = change.active and self.project.settings.watch_run_on_landing and active_landing_files(zone_dir)
        readers = zone_readers(self.project, change.namespace, change.zone) if auto_run else []
        try:
            fired = self._evaluate_implicit() if readers else []
        except Exception as exc:
            self._failed(f"auto-run readers of {where}", failure_sentence("evaluating the landing triggers", exc))
            fired = []
        for decision, run in fired:
            if decision.trigger.kind == Kind.LANDING:
                self.events.publish(RunRequested(decision.pipeline, run.run_id, f"new files in {decision.trigger.zone}"))
        if readers or not change.active or self.spark.state not in (SessionState.READY, SessionState.BUSY):
            return
        # Converted now, on the warm session, so the next run reads Parquet; an auto-run reads the CSV itself.
        try:
            typed = self.twins.make_typed_twins(change.namespace, change.zone)
        except Exception as exc:  # the runs read the CSV then: slower, never wrong
            self._failed(f"typed copy of {where}", failure_sentence("typed copy", exc))
            return
        if typed.typed:
            self.events.publish(ZoneUpdated(change.namespace, change.zone))
