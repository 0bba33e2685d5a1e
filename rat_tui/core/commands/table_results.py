"""What the table commands return: typed results the table view reads by attribute; `as_dict()` is each one's
line in the script contract (docs/script.md)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..lake.history import HistoryEntry
from ..lake.metadata import SnapshotInfo
from .run_results import SelectionResult

Inputs = dict[str, int | None]  # tables a run read: ns.layer.name -> snapshot id


def _with_inputs(states: list[HistoryEntry] | list[SnapshotInfo], inputs: dict[str, Inputs]) -> list[dict[str, Any]]:
    """Each state of a table as the contract lists it, with what the run that made it read (provenance)."""
    return [{**s.as_dict(), "inputs": inputs.get(s.run_id or "", {})} for s in states]


@dataclass(frozen=True)
class TableHistory:
    """The table's history as readers saw it, oldest first; `inputs`: per run id, what its run read (provenance)."""

    entries: list[HistoryEntry]
    refs: dict[str, int]
    inputs: dict[str, Inputs] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"snapshots": _with_inputs(self.entries, self.inputs), "refs": self.refs}


@dataclass(frozen=True)
class SnapshotList:
    """Every raw Iceberg snapshot of a table, those inside a run included (`snapshots --all`); `inputs`: per
    run id, what its run read."""

    snapshots: list[SnapshotInfo]
    refs: dict[str, int]
    inputs: dict[str, Inputs] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"snapshots": _with_inputs(self.snapshots, self.inputs), "refs": self.refs}


@dataclass(frozen=True)
class TablePreview:
    """First rows at a snapshot, with that snapshot's schema."""

    snapshot_id: int
    columns: list[str]
    rows: list[list[Any]]

    def as_dict(self) -> dict[str, Any]:
        return {"snapshot_id": self.snapshot_id, "columns": self.columns, "rows": self.rows}


@dataclass(frozen=True)
class TableSummary:
    """A table on disk (`tables`): its current snapshot (None: empty), the rows a reader sees, its data files."""

    name: str
    snapshot_id: int | None
    rows: int
    data_files: int
    avg_file_bytes: int


@dataclass(frozen=True)
class TableList:
    tables: list[TableSummary]

    def as_dict(self) -> dict[str, Any]:
        return {"tables": [{"name": t.name, "snapshot_id": t.snapshot_id, "rows": t.rows, "data_files": t.data_files,
                            "avg_file_bytes": t.avg_file_bytes} for t in self.tables]}


@dataclass(frozen=True)
class Compacted:
    """Small data files rewritten into target-sized ones, as a snapshot of their own."""

    files_before: int
    files_after: int
    snapshot_id: int | None
    rows: int

    def as_dict(self) -> dict[str, Any]:
        return {"files_before": self.files_before, "files_after": self.files_after, "snapshot_id": self.snapshot_id,
                "rows": self.rows}


@dataclass(frozen=True)
class TableRollback:
    """Main of a table moved back to `snapshot_id`; the downstream tables built from the data that removed
    (`stale_downstream`), and their rebuild when it was asked for."""

    snapshot_id: int
    stale_downstream: list[str]
    rebuild: SelectionResult | None = None

    def as_dict(self) -> dict[str, Any]:
        rebuilt = self.rebuild.as_dict() if self.rebuild is not None else {}
        return {"snapshot_id": self.snapshot_id, "stale_downstream": self.stale_downstream, **rebuilt}
