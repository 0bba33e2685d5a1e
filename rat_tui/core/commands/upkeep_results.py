"""What the upkeep commands return: the consistency check's findings and a purge's plan or outcome. Typed
results the TUI reads by attribute; `as_dict()` is each one's line in the script contract (docs/script.md)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..upkeep.doctor import Finding
from ..upkeep.purge import PurgePlan


@dataclass(frozen=True)
class DoctorReport:
    """What `doctor` found (with `--fix`, each says whether it was fixed)."""

    findings: list[Finding]

    def as_dict(self) -> dict[str, Any]:
        return {"findings": [f.as_dict() for f in self.findings]}


@dataclass(frozen=True)
class PurgeItem:
    """One thing a purge removes, as the TUI lists it: its name (a path, a branch, a run, a snapshot), its
    table when it belongs to one, and its size when known."""

    name: str
    table: str | None
    bytes: int | None


@dataclass(frozen=True)
class PurgeReport:
    """What a purge removed, or would remove (`dry_run`): `items` lists it per kind, `purged` counts it."""

    items: PurgePlan
    dry_run: bool

    @property
    def purged(self) -> dict[str, int]:
        return self.items.counts()

    def listed(self) -> dict[str, list[PurgeItem]]:
        """Per kind (PurgePlan's field names), what goes, named as a person would look for it."""
        return {kind: [PurgeItem(str(item.get("path") or item.get("branch") or item.get("run_id")
                                     or item.get("snapshot_id")),
                                 item.get("table"), item.get("bytes", item.get("added_bytes"))) for item in found]
                for kind, found in self.items.as_dict().items()}

    def as_dict(self) -> dict[str, Any]:
        return {"purged": self.purged, "items": self.items.as_dict(), "dry_run": self.dry_run}


@dataclass(frozen=True)
class AutoPurged:
    purged: int  # old processed landing files removed, here and in the bucket

    def as_dict(self) -> dict[str, Any]:
        return {"purged": self.purged}
