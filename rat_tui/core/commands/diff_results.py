"""What the diff commands return: a table between two snapshots, a whole run, a published version against the
working copy. Typed results the TUI reads by attribute; `as_dict()` is each one's line in the script contract
(docs/script.md)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..lake.diff import TableDiff


@dataclass(frozen=True)
class SnapshotDiff:
    """What changed from one snapshot to another (`diff`, by key); `added_rows` / `removed_rows`: the sample's
    whole rows added and removed, as lists of values."""

    diff: TableDiff
    added_rows: list[list[Any]]
    removed_rows: list[list[Any]]

    @classmethod
    def of(cls, diff: TableDiff) -> "SnapshotDiff":
        rows = {change: [list((s["new"] if change == "added" else s["old"]).values())
                         for s in diff.sample if s["change"] == change] for change in ("added", "removed")}
        return cls(diff, rows["added"], rows["removed"])

    def as_dict(self) -> dict[str, Any]:
        return {**self.diff.as_dict(), "added_rows": self.added_rows, "removed_rows": self.removed_rows}


@dataclass(frozen=True)
class RunDiff:
    """A whole run: main before it (`base_snapshot_id`, None: the run created the table) against main after it."""

    run_id: str
    base_snapshot_id: int | None
    snapshot_id: int
    changes: SnapshotDiff
    note: str | None = None  # a run awaiting review: its branch's head, not main's

    def as_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "base_snapshot_id": self.base_snapshot_id, "snapshot_id": self.snapshot_id,
                **self.changes.as_dict(), **({"note": self.note} if self.note else {})}


@dataclass(frozen=True)
class FileDiff:
    path: str  # relative to the pipeline's folder
    diff: str  # unified diff, published version first


@dataclass(frozen=True)
class VersionDiff:
    """The files that differ between a published version and the working copy (none: they are equal)."""

    files: list[FileDiff]

    def as_dict(self) -> dict[str, Any]:
        return {"files": [{"path": f.path, "diff": f.diff} for f in self.files]}

    @property
    def text(self) -> str:
        return "".join(f.diff for f in self.files)
