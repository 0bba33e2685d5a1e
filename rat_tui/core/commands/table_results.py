"""What the table commands return: typed results the table view reads by attribute; `as_dict()` is each one's
line in the script contract (docs/script.md)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..lake.history import HistoryEntry
from ..lake.metadata import SnapshotInfo

Inputs = dict[str, int | None]  # tables a run read: ns.layer.name -> snapshot id


@dataclass(frozen=True)
class TableHistory:
    """The table's history as readers saw it, oldest first; `inputs`: per run id, what its run read (provenance)."""

    entries: list[HistoryEntry]
    refs: dict[str, int]
    inputs: dict[str, Inputs] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"snapshots": [{**e.as_dict(), "inputs": self.inputs.get(e.run_id or "", {})} for e in self.entries],
                "refs": self.refs}


@dataclass(frozen=True)
class SnapshotList:
    """Every raw Iceberg snapshot of a table, those inside a run included (`snapshots --all`); `inputs`: per
    run id, what its run read."""

    snapshots: list[SnapshotInfo]
    refs: dict[str, int]
    inputs: dict[str, Inputs] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"snapshots": [{**s.as_dict(), "inputs": self.inputs.get(s.run_id or "", {})} for s in self.snapshots],
                "refs": self.refs}


@dataclass(frozen=True)
class TablePreview:
    """First rows at a snapshot, with that snapshot's schema."""

    snapshot_id: int
    columns: list[str]
    rows: list[list[Any]]

    def as_dict(self) -> dict[str, Any]:
        return {"snapshot_id": self.snapshot_id, "columns": self.columns, "rows": self.rows}
