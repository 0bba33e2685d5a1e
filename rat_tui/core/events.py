"""The one typed event stream: runs, the Spark session and the long-running services (watch-and-run,
changes from outside the process, live settings: core/background/) report through it; faces subscribe
once and dispatch by type, and `--events` prints them all."""
from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields

from .run_record import RunRecord

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Event:
    at: float = field(default_factory=time.time, kw_only=True)

    @property
    def kind(self) -> str:
        return type(self).__name__

    def as_dict(self) -> dict:
        return {"event": self.kind, **asdict(self)}


@dataclass(frozen=True)
class Notice(Event):
    """What a long-running service tells the faces (core/background/: watch-and-run, outside changes, live
    settings): on the stream with the run events, but no part of a run's history (the run log leaves it out)."""


@dataclass(frozen=True)
class SessionStateChanged(Event):
    state: str  # stopped | starting | ready | busy | failed
    reason: str = ""
    master: str = ""
    executors: int = 0  # executors besides the driver (0 in local mode)
    cores: int = 0


@dataclass(frozen=True)
class WarmUpProgress(Event):
    """The warm-up (background/warm_up.py) ran `done` of its `total` steps; `state` warming | done | stopped
    (a run, preview or query took the session, or the warm-up failed: it is only a favour)."""
    done: int
    total: int
    state: str


@dataclass(frozen=True)
class RunQueued(Event):
    run_id: str
    pipeline: str


@dataclass(frozen=True)
class RunStarted(Event):
    run_id: str
    pipeline: str
    version: str  # "draft" or the published version number


@dataclass(frozen=True)
class PhaseStarted(Event):
    run_id: str
    phase: str


@dataclass(frozen=True)
class PhaseFinished(Event):
    run_id: str
    phase: str
    ms: int
    ok: bool
    rows: int | None = None
    message: str = ""
    cancelled: bool = False  # stopped by a cancel (the message says "cancelled"; its stack is in app.log)


@dataclass(frozen=True)
class PhaseProgress(Event):
    """Spark's tasks done / total of the run's active stages, while the phase runs (run/progress.py)."""
    run_id: str
    phase: str
    tasks_done: int
    tasks_total: int


@dataclass(frozen=True)
class QualityResultEvent(Event):
    run_id: str
    name: str
    severity: str
    status: str
    violations: int
    ms: int
    sample: tuple[tuple, ...] = ()  # a few violating rows, and their columns' names
    sample_columns: tuple[str, ...] = ()
    error: str | None = None


@dataclass(frozen=True)
class LogLine(Event):
    run_id: str | None
    level: str
    message: str


@dataclass(frozen=True)
class IntervalsPlanned(Event):
    """A partitioned pipeline's run chose its intervals (run/intervals.py), before it builds them; `warning` when
    they are so many that the run will be long."""
    run_id: str
    pipeline: str
    total: int
    start: str
    end: str
    warning: str | None = None


@dataclass(frozen=True)
class IntervalBuilt(Event):
    """A partitioned pipeline's run built interval `number` of `total` (run/intervals.py): a backfill's progress."""
    run_id: str
    pipeline: str
    number: int
    total: int
    start: str
    end: str


@dataclass(frozen=True)
class RunFinished(Event):
    run_id: str
    pipeline: str
    status: str
    rows_written: int
    error: str | None
    snapshot_id: int | None
    note: str | None = None  # "nothing new in ns/landing/zone": a success that wrote nothing, main as it was
    notes: int = 0  # how many notes the run has on what it did to the data (its record holds them)
    # The run's final record (as state.db now holds it), so a face shows the end without reading it back.
    # Left out of as_dict(): `--events` and the run log keep the summary above; `runs` gives the record.
    record: RunRecord | None = field(default=None, repr=False, compare=False)

    @classmethod
    def of(cls, record: RunRecord) -> "RunFinished":
        return cls(record.run_id, record.pipeline, record.status, record.rows_written, record.error,
                   record.snapshot_id, record.landing.get("note") if record.status == "success" else None,
                   len(record.notes), record=record)

    def as_dict(self) -> dict:
        return {"event": self.kind, **{f.name: getattr(self, f.name) for f in fields(self) if f.name != "record"}}


Listener = Callable[[Event], None]


_in_backlog = threading.local()


class _Backlog:
    """A listener that runs on a thread of its own, in publish order, so a slow one (a run's lineage) never
    holds up the run that publishes nor the faces after it. The thread ends when idle and starts again
    with the next event."""

    IDLE_SECONDS = 30.0

    def __init__(self, listener: Listener) -> None:
        self.listener = listener
        self._queue: queue.SimpleQueue[Event] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Condition()
        self._sent = self._done = 0

    def __call__(self, event: Event) -> None:
        with self._lock:
            self._sent += 1
            self._queue.put(event)
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name=f"events-{type(self.listener).__name__}",
                                                daemon=True)
                self._thread.start()

    def _work(self) -> None:
        _in_backlog.active = True
        while True:
            try:
                event = self._queue.get(timeout=self.IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    if self._queue.empty():  # an event put since the timeout is still this thread's
                        self._thread = None
                        return
                continue
            try:
                self.listener(event)
            except Exception:
                log.exception("event listener failed on %s", event.kind)
            with self._lock:
                self._done += 1
                self._lock.notify_all()

    def settle(self, timeout: float | None) -> bool:
        """Wait until every event published so far was handled; True unless the wait timed out."""
        with self._lock:
            sent = self._sent
            return self._lock.wait_for(lambda: self._done >= sent, timeout)


class EventBus:
    """Thread-safe fan-out. A failing listener is logged and never breaks the publisher."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._backlogs: list[_Backlog] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: Listener, background: bool = False) -> Callable[[], None]:
        """`background`: the listener gets the events on a thread of its own (see settle)."""
        if background:
            backlog = _Backlog(listener)
            listener = backlog
        with self._lock:
            self._listeners.append(listener)
            if background:
                self._backlogs.append(backlog)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)
                if listener in self._backlogs:
                    self._backlogs.remove(listener)  # type: ignore[arg-type]

        return unsubscribe

    def settle(self, timeout: float | None = 30.0) -> bool:
        """Wait until the background listeners have handled every event published so far (what a command
        reads next, a run's lineage say, is written); False when one is still busy after `timeout`. A background
        listener's own thread waits for nothing (it reads what it writes; two waiting on each other would hang)."""
        if getattr(_in_backlog, "active", False):
            return True
        with self._lock:
            backlogs = list(self._backlogs)
        return all(backlog.settle(timeout) for backlog in backlogs)

    def publish(self, event: Event) -> None:
        with self._lock:
            listeners = list(self._listeners)
        # The faces first: a background listener's thread wakes on its event and takes the GIL from this
        # thread for up to a switch interval (5 ms), which a run's end then waited before the TUI saw it.
        listeners.sort(key=lambda listener: isinstance(listener, _Backlog))
        for listener in listeners:
            try:
                listener(event)
            except Exception:
                log.exception("event listener failed on %s", event.kind)
