"""The one typed event stream: runs, the Spark session and the long-running services (watch-and-run,
changes from outside the process, live settings: core/background/) report through it; faces subscribe
once and dispatch by type, and `--events` prints them all."""
from __future__ import annotations

import logging
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


class EventBus:
    """Thread-safe fan-out. A failing listener is logged and never breaks the publisher."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def publish(self, event: Event) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:
                log.exception("event listener failed on %s", event.kind)
