"""What the landing commands return: a zone's detected dialect (and its pinning), a new zone, an upload, and
a zone's files as its panel lists them. Typed results the TUI reads by attribute; `as_dict()` is each one's
line in the script contract (docs/script.md)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..landing.twins import NotTyped, TwinsMade
from ..landing.uploads import UploadedFile


@dataclass(frozen=True)
class DetectedDialect:
    """What pinning `file`'s dialect writes under the zone's `csv:` in rat.yaml (`csv`, rat.yaml's keys), and
    the zone's other active text files detected otherwise (`differs`); `written`: the file it went into,
    once pinned."""

    zone: str  # the zone's key under `zones:` in rat.yaml
    file: str
    csv: dict[str, Any]
    differs: list[str]
    written: str | None = None

    def as_dict(self) -> dict[str, Any]:
        result = {"zone": self.zone, "file": self.file, "csv": self.csv, "differs": self.differs}
        return result if self.written is None else {**result, "written": self.written}


@dataclass(frozen=True)
class ZoneCreated:
    zone: str  # its folder, relative to the project

    def as_dict(self) -> dict[str, Any]:
        return {"zone": self.zone}


@dataclass(frozen=True)
class UploadResult:
    """The files copied in, and which of the zone's CSV files got a typed Parquet twin (runs read those)."""

    files: list[UploadedFile]
    typed: list[str]
    not_typed: list[NotTyped]

    def as_dict(self) -> dict[str, Any]:
        return {"files": [{"name": f.name, "bytes": f.bytes} for f in self.files],
                **TwinsMade(self.typed, self.not_typed).as_dict()}


@dataclass(frozen=True)
class ZoneFile:
    """A file of a landing zone as its panel lists it. `kind`: active, sample, `processed <run>` or
    `rejected <run>`; `modified` UTC minutes. For an active file only: `consumed` (a run read it), `typed` (it
    has a Parquet twin), `problem` (why a run cannot read it); for an active text file, `dialect` (how a run
    reads it) unless `problem` says why it cannot."""

    path: str  # relative to the zone
    kind: str
    bytes: int
    modified: str
    consumed: bool | None = None
    problem: str | None = None
    typed: bool | None = None
    dialect: str | None = None
