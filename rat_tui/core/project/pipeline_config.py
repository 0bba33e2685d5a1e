"""A pipeline's effective configuration: annotations > config.yaml > defaults."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

import yaml

from ..errors import Problem
from .annotations import Annotation
from .freshness_config import FRESHNESS_KEY, read_section as freshness_section
from .gates import GATE_KEYS, DiffGate, parse_gate
from .partitions import Partitions, parse_partitions
from .yaml_load import key_lines, load_yaml, yaml_error


class MergeStrategy(str, Enum):
    FULL_REFRESH = "full_refresh"
    INCREMENTAL = "incremental"
    APPEND_ONLY = "append_only"
    DELETE_INSERT = "delete_insert"
    SCD2 = "scd2"
    SNAPSHOT = "snapshot"


NEEDS_UNIQUE_KEY = (MergeStrategy.INCREMENTAL, MergeStrategy.DELETE_INSERT, MergeStrategy.SCD2)

DEFAULTS: dict[str, Any] = {
    "merge_strategy": MergeStrategy.FULL_REFRESH,
    "unique_key": (),
    "watermark_column": None,
    "description": "",
    "partition_column": None,
    "archive_landing_zones": False,
    "scd_valid_from": "valid_from",
    "scd_valid_to": "valid_to",
    "scd_close_missing": False,
    "materialized": "table",
    "review": False,
    "max_removed_rows": None,
    "max_changed_fraction": None,
    "breaks_downstream": "warn",
    "partitions": None,
}
_BOOLEAN_KEYS = ("archive_landing_zones", "scd_close_missing", "review")
KNOWN_KEYS = tuple(DEFAULTS)
AUTOMATION_KEYS = ("triggers", "cooldown")  # read by core/automation/triggers.py, not part of a run's config
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


@dataclass(frozen=True)
class PipelineConfig:
    merge_strategy: MergeStrategy = MergeStrategy.FULL_REFRESH
    unique_key: tuple[str, ...] = ()
    watermark_column: str | None = None
    description: str = ""
    partition_column: str | None = None
    archive_landing_zones: bool = False
    scd_valid_from: str = "valid_from"
    scd_valid_to: str = "valid_to"
    # scd2: a key absent from the batch is a hard delete; its current row is closed
    scd_close_missing: bool = False
    materialized: str = "table"
    review: bool = False  # the run stops before main, its branch kept, until approved or rejected
    # Diff gates (diff_gates.py): "N" or "N warn" rows removed; "5%" or "5% warn" of main's rows changed or removed
    max_removed_rows: str | None = None
    max_changed_fraction: str | None = None
    # A change of columns that downstream pipelines read (lineage/impact.py): reported (warn) or a failure (fail)
    breaks_downstream: str = "warn"
    # Time intervals the pipeline writes one by one (partitions.py); None: the whole result at once
    partitions: Partitions | None = None
    # key -> "annotation" | "config.yaml" | "default": where each effective value came from
    sources: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def loads_files_once(self) -> bool:
        """Whether the load history keeps a landing file's content from being loaded twice: a pipeline that
        archives its zones, and an append_only one, whose table would otherwise get every file in the zone
        again on each run (a second build with nothing new doubled the table)."""
        return self.archive_landing_zones or self.merge_strategy == MergeStrategy.APPEND_ONLY

    def diff_gates(self) -> list[DiffGate]:
        return [parse_gate(key, getattr(self, key)) for key in GATE_KEYS if getattr(self, key) is not None]

    def as_dict(self) -> dict[str, Any]:
        return {
            key: (value.value if isinstance(value, Enum) else list(value) if isinstance(value, tuple)
                  else value.as_dict() if isinstance(value, Partitions) else value)
            for key, value in ((k, getattr(self, k)) for k in KNOWN_KEYS)
        }


@dataclass(frozen=True)
class _RawValue:
    value: Any
    source: str  # annotation | config.yaml
    path: str
    line: int | None
    nested_lines: dict[str, int] = field(default_factory=dict)  # config.yaml's keys, nested ones dotted


def _coerce(key: str, raw: _RawValue) -> tuple[Any, str | None]:
    """The typed value for `key`, or an error message."""
    value = raw.value
    if key == "merge_strategy":
        text = str(value).strip().lower()
        try:
            return MergeStrategy(text), None
        except ValueError:
            allowed = ", ".join(s.value for s in MergeStrategy)
            return None, f"unknown merge_strategy '{value}' (expected one of {allowed})"
    if key == "unique_key":
        if isinstance(value, (list, tuple)):
            parts = [str(v).strip() for v in value]
        else:
            parts = [p.strip() for p in str(value).split(",")]
        parts = [p for p in parts if p]
        if not parts:
            return None, "unique_key is empty"
        return tuple(parts), None
    if key in _BOOLEAN_KEYS:
        if isinstance(value, bool):
            return value, None
        text = str(value).strip().lower()
        if text in _TRUE:
            return True, None
        if text in _FALSE:
            return False, None
        return None, f"{key} must be true or false, not '{value}'"
    if key == "materialized":
        text = str(value).strip().lower()
        if text not in ("table", "view"):
            return None, f"materialized must be table or view, not '{value}'"
        return text, None
    if key == "breaks_downstream":
        text = str(value).strip().lower()
        if text not in ("warn", "fail"):
            return None, f"breaks_downstream must be warn or fail, not '{value}'"
        return text, None
    if key in GATE_KEYS:
        try:
            parse_gate(key, value)
        except ValueError as exc:
            return None, str(exc)
        return str(value).strip(), None
    if value is None:
        return None, f"{key} has no value"
    if isinstance(value, (dict, list)):
        return None, f"{key} must be a single value, not a {type(value).__name__}"
    return str(value).strip(), None


def read_config_yaml(text: str, path: str) -> tuple[dict[str, _RawValue], list[Problem]]:
    """Parse config.yaml into raw values with their lines; YAML errors become problems."""
    try:
        node = yaml.compose(text)
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        line, sentence = yaml_error(exc)
        return {}, [Problem(path, sentence, line)]
    if node is None:
        return {}, []
    if not isinstance(node, yaml.MappingNode):
        return {}, [Problem(path, "config.yaml must be a mapping of keys to values", node.start_mark.line + 1)]
    lines = key_lines(node)
    return {str(k): _RawValue(v, "config.yaml", path, lines.get(str(k)), lines) for k, v in data.items()}, []


def merge_config(
    annotations: list[Annotation], annotations_path: str, config_text: str | None, config_path: str
) -> tuple[PipelineConfig, list[Problem]]:
    problems: list[Problem] = []
    raw: dict[str, _RawValue] = {}
    if config_text is not None:
        from_yaml, yaml_problems = read_config_yaml(config_text, config_path)
        problems += yaml_problems
        for key, value in from_yaml.items():
            norm = key.lower().replace("-", "_")
            if norm in AUTOMATION_KEYS:
                continue
            if norm == FRESHNESS_KEY:  # not part of a run's config either; its problems are the config's
                problems += freshness_section(value.value, config_path, value.line, value.nested_lines)[1]
                continue
            if norm not in DEFAULTS:
                problems.append(Problem(config_path, f"unknown config key '{key}' is ignored", value.line, "warning"))
                continue
            raw[norm] = value
    for ann in annotations:
        if ann.key not in DEFAULTS:
            problems.append(Problem(annotations_path, f"unknown annotation '@{ann.key}' is ignored", ann.line, "warning"))
            continue
        raw[ann.key] = _RawValue(ann.value, "annotation", annotations_path, ann.line)

    values: dict[str, Any] = dict(DEFAULTS)
    sources = {key: "default" for key in DEFAULTS}
    for key, rv in raw.items():
        if key == "partitions":  # a mapping: one sentence per bad value in it
            typed, errors = parse_partitions(rv.value)
            problems += [Problem(rv.path, error, rv.nested_lines.get(f"partitions.{bad}", rv.line) if bad else rv.line)
                         for bad, error in errors]
            if errors:
                continue
            assert typed is not None
            typed = replace(typed, column_path=rv.path, column_line=rv.nested_lines.get("partitions.column", rv.line))
        else:
            typed, error = _coerce(key, rv)
            if error:
                problems.append(Problem(rv.path, error, rv.line))
                continue
        values[key] = typed
        sources[key] = rv.source

    strategy = values["merge_strategy"]
    where = raw.get("merge_strategy")
    where_path, where_line = (where.path, where.line) if where else (annotations_path, None)
    if strategy in NEEDS_UNIQUE_KEY and not values["unique_key"]:
        problems.append(Problem(where_path, f"merge_strategy {strategy.value} needs a unique_key", where_line))
    if strategy == MergeStrategy.SNAPSHOT and not values["partition_column"]:
        problems.append(Problem(where_path, "merge_strategy snapshot needs a partition_column", where_line))
    return PipelineConfig(**values, sources=sources), problems
