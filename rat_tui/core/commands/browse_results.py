"""What browsing returns: the project's listing, its problems, rows of a query, a preview or a landing file.
Typed results the faces read by attribute; `as_dict()` is each one's line in the script contract
(docs/script.md)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import Problem
from ..project.model import PipelineRef, ProjectScan


@dataclass(frozen=True)
class Listing:
    """Namespaces with their pipelines and landing zones (`ls`)."""

    scan: ProjectScan

    def as_dict(self) -> dict[str, Any]:
        return {"namespaces": [{"name": ns.name, "pipelines": [p.fqn for p in ns.pipelines],
                                "zones": [z.name for z in ns.zones]} for ns in self.scan.namespaces]}


@dataclass(frozen=True)
class ProblemList:
    """What `validate` found, errors and warnings."""

    problems: list[Problem]

    def as_dict(self) -> dict[str, Any]:
        return {"problems": [p.as_dict() for p in self.problems]}


@dataclass(frozen=True)
class QueryResult:
    """Rows of a query or a preview; `truncated`: more rows than it returns; `note`: why a preview holds no
    new rows (a zone with nothing new, a watermark past every row)."""

    columns: list[str]
    rows: list[list[Any]]
    truncated: bool = False
    note: str | None = None

    def as_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {"columns": self.columns, "rows": self.rows}
        if self.truncated:
            result["truncated"] = True
        if self.note:
            result["note"] = self.note
        return result


@dataclass(frozen=True)
class FileSample:
    """First rows of a landing file as a run reads it; `file` relative to its zone."""

    file: str
    columns: list[str]
    rows: list[list[Any]]

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "columns": self.columns, "rows": self.rows}


@dataclass(frozen=True)
class PipelineOverview:
    """A pipeline in the tree: its last run's outcome, whether it is published and its working copy drifted
    from that, and its files' state against the bucket (None without one)."""

    ref: PipelineRef
    last_status: str | None
    published: bool
    drift: bool
    remote: str | None


@dataclass(frozen=True)
class ZoneOverview:
    name: str
    files: int  # active files, waiting for a run


@dataclass(frozen=True)
class TableOverview:
    """A table on disk; `snapshot_id` and `rows` None when its metadata cannot be read (it still shows)."""

    ref: PipelineRef
    snapshot_id: int | None
    rows: int | None


@dataclass(frozen=True)
class NamespaceOverview:
    name: str
    pipelines: list[PipelineOverview]
    zones: list[ZoneOverview]
    tables: list[TableOverview]


@dataclass(frozen=True)
class Overview:
    """Everything the project tree shows; `problems`: the project's errors, one sentence each."""

    namespaces: list[NamespaceOverview]
    problems: list[str]
