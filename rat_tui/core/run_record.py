"""A run's record: what it was asked, what it did and how it ended. The store keeps it (store/state.py),
the runner fills it, and `RunFinished` (events.py) carries the final one to the faces."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from .notes import RunNote


@dataclass
class QualityOutcome:
    name: str
    severity: str
    status: str  # passed | failed | warned | error
    violations: int
    ms: int = 0
    sample: list[list[Any]] = field(default_factory=list)
    error: str | None = None
    sample_columns: list[str] = field(default_factory=list)  # the names of the sample's values

    def as_dict(self) -> dict:
        return {
            "name": self.name, "severity": self.severity, "status": self.status,
            "violations": self.violations, "ms": self.ms, "sample": self.sample, "error": self.error,
            "sample_columns": self.sample_columns,
        }


@dataclass
class RunRecord:
    run_id: str
    pipeline: str
    status: str
    version: str = "draft"
    trigger: str = "manual"
    queued_at: float = field(default_factory=time.time)
    started_at: float | None = None
    finished_at: float | None = None
    # Of the time from started_at to the first phase, how long the run waited for Spark to start.
    waited_for_spark_ms: int = 0
    rows_written: int = 0
    phases: dict[str, int] = field(default_factory=dict)
    phase_rows: dict[str, int] = field(default_factory=dict)
    snapshot_id: int | None = None
    error: str | None = None
    branch: str | None = None
    created_table: bool = False
    host: str | None = None
    pid: int | None = None
    quality: list[QualityOutcome] = field(default_factory=list)
    inputs: dict[str, int | None] = field(default_factory=dict)  # tables read: ns.layer.name -> snapshot id
    landing: dict[str, Any] = field(default_factory=dict)  # note ("nothing new in …"), skipped, rejected_rows, …
    review: dict[str, Any] = field(default_factory=dict)  # diff (review or diff gates), base_snapshot, schema_id, group
    notes: list[RunNote] = field(default_factory=list)  # what the run did to the data: rows set aside, columns added, …

    @property
    def outcome(self) -> str:
        """The status, or `nothing_new` for a success whose zones held nothing to read, or `noted` for a success
        with notes (the tree marks both)."""
        if self.status == "success" and self.landing.get("note"):
            return "nothing_new"
        return "noted" if self.status == "success" and self.notes else self.status

    def as_dict(self) -> dict:
        return {
            "run_id": self.run_id, "pipeline": self.pipeline, "status": self.status, "version": self.version,
            "trigger": self.trigger, "queued_at": self.queued_at, "started_at": self.started_at,
            "waited_for_spark_ms": self.waited_for_spark_ms, "finished_at": self.finished_at, "rows_written": self.rows_written, "phases": self.phases,
            "phase_rows": self.phase_rows,
            "quality": [q.as_dict() for q in self.quality], "snapshot_id": self.snapshot_id, "error": self.error,
            "inputs": self.inputs, **self.landing, "notes": [note_dict(n) for n in self.notes],
            **({"diff": self.review["diff"]} if "diff" in self.review else {}),
        }


def note_dict(note: RunNote) -> dict[str, Any]:
    """A note as run objects carry it: the script's {kind, file, line, text}, the phase the Run tab shows it
    under, and a null_column note's column."""
    return {**note.as_dict(), "phase": note.phase, **({"column": note.column} if note.column else {})}
