"""Loading one pipeline from its files (working folder or a pinned version) into typed form."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import Problem
from .annotations import parse_annotations
from .model import SOURCE_FILES, PipelineRef, Project
from .pipeline_config import PipelineConfig, merge_config
from .templating import template_calls

SEVERITIES = ("error", "warn")
MAX_FILE_BYTES = 1024 * 1024  # a pipeline file larger than this is a mistake (a data dump, a generated blob)


@dataclass(frozen=True)
class QualityTest:
    name: str
    relpath: str  # relative to the project root
    sql: str
    severity: str = "error"
    description: str = ""


@dataclass(frozen=True)
class LoadedPipeline:
    ref: PipelineRef
    kind: str  # sql | py
    source_relpath: str  # relative to the project root
    source: str
    config: PipelineConfig
    quality_tests: tuple[QualityTest, ...]


def _decode(data: bytes, relpath: str, problems: list[Problem]) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        problems.append(Problem(relpath, f"file is not valid UTF-8 (byte {exc.start})", line))
        return None


def _load_quality_test(relpath: str, text: str, problems: list[Problem]) -> QualityTest:
    severity, description = "error", ""
    for ann in parse_annotations(text, "sql"):
        if ann.key == "severity":
            value = ann.value.strip().lower()
            if value in ("warning",):
                value = "warn"
            if value not in SEVERITIES:
                problems.append(Problem(relpath, f"severity must be error or warn, not '{ann.value}'", ann.line))
            else:
                severity = value
        elif ann.key == "description":
            description = ann.value
        else:
            problems.append(Problem(relpath, f"unknown annotation '@{ann.key}' is ignored", ann.line, "warning"))
    name = relpath.rsplit("/", 1)[-1].removesuffix(".sql")
    return QualityTest(name, relpath, text, severity, description)


def load_pipeline(ref: PipelineRef, files: Mapping[str, bytes]) -> tuple[LoadedPipeline | None, list[Problem]]:
    """Parse a pipeline's files; the pipeline is None when it cannot run at all."""
    base = ref.relpath.as_posix()
    problems: list[Problem] = []
    present = [name for name in SOURCE_FILES if name in files]
    if len(present) != 1:
        message = (
            "pipeline folder has both pipeline.sql and pipeline.py; keep exactly one"
            if present
            else "pipeline folder has neither pipeline.sql nor pipeline.py"
        )
        problems.append(Problem(base, message))
        return None, problems
    source_name = present[0]
    kind = "sql" if source_name.endswith(".sql") else "py"
    source_relpath = f"{base}/{source_name}"
    oversized = [name for name, data in files.items() if len(data) > MAX_FILE_BYTES]
    if oversized:
        size = len(files[oversized[0]]) / 1024 / 1024
        problems.append(Problem(f"{base}/{oversized[0]}", f"file is {size:.1f} MB; pipeline files are limited to "
                                f"{MAX_FILE_BYTES // 1024 // 1024} MB (keep data in landing zones)"))
        return None, problems
    source = _decode(files[source_name], source_relpath, problems)
    config_text = None
    if "config.yaml" in files:
        config_text = _decode(files["config.yaml"], f"{base}/config.yaml", problems)
    if source is None:
        return None, problems
    config, config_problems = merge_config(
        parse_annotations(source, kind), source_relpath, config_text, f"{base}/config.yaml"
    )
    problems += config_problems
    tests = []
    for name in sorted(files):
        if name.startswith("tests/quality/") and name.endswith(".sql"):
            text = _decode(files[name], f"{base}/{name}", problems)
            if text is not None:
                tests.append(_load_quality_test(f"{base}/{name}", text, problems))
    return LoadedPipeline(ref, kind, source_relpath, source, config, tuple(tests)), problems


def zone_readers(project: Project, namespace: str, zone: str) -> list[str]:
    """Pipelines whose templates call landing_zone('<zone>')."""
    readers = []
    for ref in project.scan().pipelines():
        if ref.namespace != namespace:
            continue
        loaded, _ = load_pipeline(ref, project.read_pipeline_files(ref))
        if loaded is None:
            continue
        if loaded.kind == "py":
            if f"landing_zone(\"{zone}\")" in loaded.source or f"landing_zone('{zone}')" in loaded.source:
                readers.append(ref.fqn)
            continue
        try:
            calls = template_calls(loaded.source)
        except Exception:  # a template with a syntax error reads nothing
            continue
        if any(c.function == "landing_zone" and c.argument == zone for c in calls):
            readers.append(ref.fqn)
    return readers
