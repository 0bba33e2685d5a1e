"""What the run commands return: typed results the TUI reads by attribute; `as_dict()` is each one's line in
the script contract (docs/script.md), which the script face prints."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..store.intervals import IntervalState
from ..store.state import RunRecord

Impact = dict[str, list[str]]  # run id -> what a held run's change of columns breaks downstream, one sentence each


def run_json(record: RunRecord, impact: list[str] | None = None) -> dict[str, Any]:
    """A run object of the contract; a run awaiting review adds `impact`."""
    return record.as_dict() if impact is None else {**record.as_dict(), "impact": impact}


@dataclass(frozen=True)
class RunResult:
    """`run` of one pipeline; `impact` when it awaits review."""

    run: RunRecord
    impact: list[str] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"run": run_json(self.run, self.impact)}


@dataclass(frozen=True)
class RunList:
    """Runs, newest first (`runs`) or in the order they were queued (`wait-idle`); those awaiting review with
    their `impact` when it was asked for."""

    runs: list[RunRecord]
    impact: Impact = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"runs": [run_json(r, self.impact.get(r.run_id)) for r in self.runs]}


@dataclass(frozen=True)
class SelectionResult:
    """The runs of a selection or build, in execution order; after a rebuild of stale tables, `rebuilt_from`:
    per table, the snapshot its run started from (None: a full refresh)."""

    runs: list[RunRecord]
    rebuilt_from: dict[str, int | None] | None = None

    def as_dict(self) -> dict[str, Any]:
        rebuilt = {} if self.rebuilt_from is None else {"rebuilt_from": self.rebuilt_from}
        return {"runs": [r.as_dict() for r in self.runs], **rebuilt}

    def failed(self) -> list[RunRecord]:
        return [r for r in self.runs if r.status not in ("success", "awaiting_review")]


@dataclass(frozen=True)
class ReviewResult:
    """The approved or rejected run (`run`), and every run of its selection (`runs`, when there are more)."""

    run: RunRecord
    group: list[RunRecord]

    def as_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {"run": self.run.as_dict()}
        return {**result, "runs": [r.as_dict() for r in self.group]} if len(self.group) > 1 else result


@dataclass(frozen=True)
class IntervalList:
    """The intervals of a partitioned pipeline, oldest first."""

    intervals: list[IntervalState]

    def as_dict(self) -> dict[str, Any]:
        return {"intervals": [s.as_dict() for s in self.intervals]}


@dataclass(frozen=True)
class BackfillResult:
    """The chosen intervals, and the backfill's run (None: a dry run, or nothing to backfill, which `note`
    then says)."""

    intervals: list[IntervalState]
    run: RunRecord | None = None
    dry_run: bool = False
    note: str | None = None

    def as_dict(self) -> dict[str, Any]:
        listed = [s.as_dict() for s in self.intervals]
        if self.run is not None:
            return {"run": self.run.as_dict(), "intervals": listed}
        return {"intervals": listed, **({"dry_run": True} if self.dry_run else {}),
                **({"note": self.note} if self.note else {})}
