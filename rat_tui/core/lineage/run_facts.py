"""What an OpenLineage event says about one run, as plain data: the automation records a run's cause with
these, and the emitter gathers the rest; only building the event needs the OpenLineage client (whose
import costs a process that never runs a pipeline, a `query`, a few hundred milliseconds)."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..store.state import QualityOutcome
from .model import PipelineLineage


@dataclass(frozen=True)
class InputRead:
    name: str  # ns.layer.name or ns.landing.zone
    snapshot_id: int | None = None
    assertions: tuple[QualityOutcome, ...] = ()  # the quality tests its last run passed or failed


@dataclass(frozen=True)
class RunParent:
    """What started a run, as OpenLineage's parent: an upstream run (its own events' job and run id), a
    trigger's tick, or a reviewed selection."""
    job: str
    run_key: str  # hashed with the project's URI into the parent's run id, as run_uuid does for a run


@dataclass(frozen=True)
class RunCause:
    """Why a run started, as the automation recorded it when a tick fired it."""
    nominal_time: float | None = None  # the cron time it was scheduled for
    parent: RunParent | None = None


@dataclass(frozen=True)
class RunFacts:
    """What an event says about one run, gathered by the emitter from the state and the table."""
    run_id: str
    pipeline: str
    status: str  # start, or the run's final status
    at: float
    kind: str  # sql | py
    source: str
    compiled: str | None = None
    trigger: str = "manual"
    nominal_time: float | None = None  # a cron tick's scheduled time, when one fired the run
    parent: RunParent | None = None
    inputs: tuple[InputRead, ...] = ()
    columns: tuple[tuple[str, str], ...] = ()  # (name, type) of the table written
    lineage: PipelineLineage | None = None
    snapshot_id: int | None = None
    rows_written: int | None = None
    quality: tuple[QualityOutcome, ...] = field(default_factory=tuple)
    error: str | None = None
