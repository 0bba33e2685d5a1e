"""Data for the detail panels (a pipeline's effective config, a zone's files), without Textual."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import RatError
from ..landing.checks import file_problem
from ..landing.dialect import detect, zone_dialects
from ..landing.quarantine import REJECTED_FOLDER
from ..landing.zone_settings import ZoneReadSettings
from ..landing.twins import find_twin
from ..project.model import TYPED_TWIN_FOLDER, PipelineRef, Project, landing_format
from ..project.pipeline_source import QualityTest, load_pipeline
from ..store.state import StateDB
from .landing_commands import zone_read_settings
from .landing_results import ZoneFile


@dataclass(frozen=True)
class PipelineDetail:
    """What a pipeline's Source tab shows: its source, effective config (key -> value) with where each value
    came from (key -> `annotation`, `config.yaml`; a key not there is a default), its quality tests, and its
    problems (one sentence each; a pipeline that does not load shows only them)."""

    fqn: str
    kind: str  # sql | py
    source: str = ""
    description: str = ""
    config: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    tests: tuple[QualityTest, ...] = ()
    problems: list[str] = field(default_factory=list)

    @property
    def partitioned(self) -> bool:
        return bool(self.config.get("partitions"))


def pipeline_detail(project: Project, ref: PipelineRef) -> PipelineDetail:
    loaded, problems = load_pipeline(ref, project.read_pipeline_files(ref))
    sentences = [p.sentence() for p in problems]
    if loaded is None:
        return PipelineDetail(ref.fqn, "sql", problems=sentences)
    return PipelineDetail(ref.fqn, loaded.kind, loaded.source, loaded.config.description, loaded.config.as_dict(),
                          loaded.config.sources, loaded.quality_tests, sentences)


def zone_files(project: Project, state: StateDB, namespace: str, zone: str) -> list[ZoneFile]:
    """Active files, `_samples/`, `_processed/<run>/` and `_rejected/<run>/` files, newest first within each kind."""
    base = project.zone_dir(namespace, zone)
    consumed = state.consumed_files()
    try:
        settings = zone_read_settings(project, state, namespace, zone)
    except RatError:  # a run says what is wrong with them; the panel still lists the files
        settings = ZoneReadSettings()
    # with the zone's numbers: a file's decimal comma is decided over the zone (numbers.py), not by the file alone
    dialects = zone_dialects(base, settings) if base.is_dir() else {}
    found = []
    for path in sorted(base.rglob("*")) if base.is_dir() else []:
        if not path.is_file() or landing_format(path) is None:
            continue
        relative = path.relative_to(base)
        top = relative.parts[0]
        if top == TYPED_TWIN_FOLDER or any(p.startswith(".") for p in relative.parts):
            continue
        kind = "sample" if top == "_samples" else f"processed {relative.parts[1]}" if top == "_processed" else \
            f"rejected {relative.parts[1]}" if top == REJECTED_FOLDER else "active"
        if kind == "active" and any(p.startswith("_") for p in relative.parts):
            continue  # runs never read it (active_landing_files)
        stat = path.stat()
        modified = datetime.fromtimestamp(stat.st_mtime, timezone.utc).strftime("%Y-%m-%d %H:%M")
        if kind != "active":
            found.append(ZoneFile(relative.as_posix(), kind, stat.st_size, modified))
            continue
        problem, dialect = file_problem(path), None
        if not problem and landing_format(path) == "csv":
            dialect, problem = (dialects[path].describe(), None) if path in dialects else _dialect(path, settings)
        # the mtime as runs record it (FileRead: ns / 1e9, which st_mtime may miss by its last bit)
        found.append(ZoneFile(relative.as_posix(), kind, stat.st_size, modified,
                              consumed=(project.rel(path), stat.st_mtime_ns / 1e9) in consumed, problem=problem,
                              typed=find_twin(base, path) is not None, dialect=dialect))
    order = {"active": 0, "sample": 1}
    return sorted(found, key=lambda f: (order.get(f.kind, 2), f.path))


def _dialect(path: Path, settings: ZoneReadSettings) -> tuple[str | None, str | None]:
    """How a run reads a text file (`';'-separated, header`), or why it cannot (detection is cached): the
    dialect, or None and the sentence why."""
    try:
        return detect(path, settings).describe(), None
    except RatError as exc:
        return None, exc.sentence()
