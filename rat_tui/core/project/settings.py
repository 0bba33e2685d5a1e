"""Project settings from the optional `rat.yaml` at the project root."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..errors import Problem
from .freshness_config import read_section as freshness_section
from .yaml_load import key_lines, load_yaml, yaml_error

# The accepted shape of rat.yaml: a dict value is a nested section; a type is a leaf;
# `dict` leaves are free-form maps (Spark conf, catalog properties, keymap, zones).
_SCHEMA: dict[str, Any] = {
    "spark": {
        "master": str,
        "driver_memory": str,
        "conf": dict,
        "jars": list,
        "extra_jars": list,
        "jars_packages": list,
        "log_level": str,
        "class_sharing": bool,
    },
    "catalog": {"type": str, "properties": dict},
    "watch": {"enabled": bool, "debounce_ms": int, "run_on_landing": bool, "cascade": bool},
    "runs": {"quality_timeout_seconds": (int, float), "serialise_same_pipeline": bool, "unit_tests_before_build": bool,
             "unit_fixture_rows": int},
    "retention": {
        "snapshot_max_age_days": (int, float),
        "processed_max_age_days": (int, float),
        "max_versions": int,
        "file_version_max_age_days": (int, float),
        "stuck_run_timeout_minutes": (int, float),
        "orphan_file_min_age_hours": (int, float),
        "review_max_age_hours": (int, float),
    },
    "tables": {"target_file_size_bytes": int, "per_table": dict},
    "zones": dict,
    "keymap": dict,
    "console": {"max_rows": int},
    "lineage": {"transport": str, "url": str, "timeout_seconds": (int, float)},
    "schedule": {"timezone": str, "catch_up": str, "max_catch_up": int, "overlap": str},
    "freshness": dict,  # checked by freshness_config.read_section
    "storage": {
        "type": str,
        "endpoint": str,
        "bucket": str,
        "region": str,
        "path_style": bool,
        "prefix": str,
        "direct": bool,
        "retry_seconds": (int, float),
    },
}


@dataclass(frozen=True)
class Settings:
    spark_master: str = "local[*]"
    spark_driver_memory: str | None = None
    spark_conf: dict[str, str] = field(default_factory=dict)
    spark_jars: tuple[str, ...] | None = None
    spark_extra_jars: tuple[str, ...] = ()
    spark_jars_packages: tuple[str, ...] = ()
    spark_log_level: str = "ERROR"
    spark_class_sharing: bool = True  # map an archive of Spark's classes at start (lake/class_sharing.py)
    catalog_type: str = "hadoop"
    catalog_properties: dict[str, str] = field(default_factory=dict)
    watch_enabled: bool = True
    watch_debounce_ms: int = 300
    watch_run_on_landing: bool = False
    watch_cascade: bool = False  # a saved pipeline's successful run re-runs its downstream
    quality_timeout_seconds: float = 60.0
    serialise_same_pipeline: bool = True
    unit_tests_before_build: bool = False  # a selection or build runs its pipelines' unit tests first
    unit_fixture_rows: int = 5  # rows of each input a unit test written from a preview keeps
    snapshot_max_age_days: float = 7
    processed_max_age_days: float = 30
    max_versions: int = 50
    file_version_max_age_days: float = 7
    stuck_run_timeout_minutes: float = 30
    orphan_file_min_age_hours: float = 24
    review_max_age_hours: float = 168  # a run awaiting review keeps its branch this long (purge)
    target_file_size_bytes: int = 128 * 1024 * 1024
    per_table: dict[str, dict] = field(default_factory=dict)
    zones: dict[str, dict] = field(default_factory=dict)
    keymap: dict[str, str] = field(default_factory=dict)
    storage: dict[str, Any] = field(default_factory=dict)  # read by core.s3.config (type: local | s3)
    console_max_rows: int = 10_000  # rows the SQL console's grid holds; export writes them all
    # OpenLineage events of each run: always to .rat/lineage/events.jsonl; `http` also posts them to `url`
    lineage_transport: str = "file"
    lineage_url: str | None = None
    lineage_timeout_seconds: float = 2.0
    # Triggers (core/automation): cron times are read in this zone (None: the machine's own)
    schedule_timezone: str | None = None
    schedule_catch_up: str = "latest"  # skip | latest | all: times missed while nothing evaluated them
    schedule_max_catch_up: int = 24
    schedule_overlap: str = "queue_one"  # skip | queue_one: a tick due while the pipeline runs
    # Every pipeline's freshness defaults, as FreshnessPolicy fields (project/freshness_config.py)
    freshness: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ZoneSettings:
    """A zone's effective retention settings, and the columns it expects (`schema:`: names, or names with
    their types; None: any)."""

    processed_max_age_days: float
    auto_purge: bool
    schema: list[str] | dict[str, str] | None = None

    def as_dict(self) -> dict[str, Any]:
        """Its line in the script contract (`zone-settings`, docs/script.md)."""
        return {"settings": {"processed_max_age_days": self.processed_max_age_days, "auto_purge": self.auto_purge,
                             "schema": self.schema}}


def zone_settings(settings: Settings, namespace: str, zone: str) -> ZoneSettings:
    """A zone's effective settings: `zones: {ns/zone: …}` (or `{zone: …}`) over the project defaults."""
    own = settings.zones.get(f"{namespace}/{zone}") or settings.zones.get(zone) or {}
    return ZoneSettings(own.get("processed_max_age_days", settings.processed_max_age_days),
                        bool(own.get("auto_purge", False)), own.get("schema"))


def zone_settings_problem(values: dict) -> str | None:
    """Why a change of a zone's settings (`processed_max_age_days`, `auto_purge`) cannot be saved; None
    when it can. The settings dialog asks before it closes, so a refusal keeps what was typed."""
    days = values.get("processed_max_age_days")
    if days is not None and not (isinstance(days, (int, float)) and 0 < days < math.inf):
        return "processed_max_age_days must be a positive number of days"
    return None


def target_file_size(settings: Settings, fqn: str) -> int:
    """`tables.per_table.<fqn>.target_file_size_bytes`, else the global `tables.target_file_size_bytes`."""
    own = settings.per_table.get(fqn) or {}
    return int(own.get("target_file_size_bytes", settings.target_file_size_bytes))


def _check(section: dict, schema: dict, prefix: str, path: str, lines: dict[str, int], problems: list[Problem]) -> dict:
    clean: dict[str, Any] = {}
    for key, value in section.items():
        dotted = f"{prefix}{key}"
        expected = schema.get(key)
        if expected is None:
            problems.append(Problem(path, f"unknown key '{dotted}' is ignored", lines.get(dotted), "warning"))
            continue
        if isinstance(expected, dict):
            if not isinstance(value, dict):
                problems.append(Problem(path, f"'{dotted}' must be a mapping", lines.get(dotted)))
                continue
            clean[key] = _check(value, expected, dotted + ".", path, lines, problems)
            continue
        types = expected if isinstance(expected, tuple) else (expected,)
        if isinstance(value, bool) and bool not in types:
            ok = False
        else:
            ok = isinstance(value, types)
        if not ok:
            names = " or ".join(t.__name__ for t in types)
            problems.append(
                Problem(path, f"'{dotted}' must be {names}, not {type(value).__name__} ({value!r})", lines.get(dotted))
            )
            continue
        clean[key] = value
    return clean


_SCHEDULE_CHOICES = {"catch_up": ("skip", "latest", "all"), "overlap": ("skip", "queue_one")}


def _schedule_problems(schedule: dict, lines: dict[str, int], path: str, problems: list[Problem]) -> dict:
    """`schedule:` with the values that cannot work left out (each one a problem)."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    clean = dict(schedule)
    for key, choices in _SCHEDULE_CHOICES.items():
        if key in clean and clean[key] not in choices:
            problems.append(Problem(path, f"schedule.{key} is {' or '.join(choices)}, not '{clean.pop(key)}'",
                                    lines.get(f"schedule.{key}")))
    if "max_catch_up" in clean and not 1 <= clean["max_catch_up"] <= 1000:
        problems.append(Problem(path, f"schedule.max_catch_up is a number from 1 to 1000, not {clean.pop('max_catch_up')}",
                                lines.get("schedule.max_catch_up")))
    if "timezone" in clean:
        try:
            ZoneInfo(clean["timezone"])
        except (ZoneInfoNotFoundError, ValueError):
            problems.append(Problem(path, f"schedule.timezone '{clean.pop('timezone')}' is no IANA time zone "
                                          "(such as Europe/Amsterdam or UTC)", lines.get("schedule.timezone")))
    return clean


def _lineage_settings(section: dict, path: str, problems: list[Problem]) -> dict[str, Any]:
    transport = section.get("transport")
    if transport not in (None, "file", "http"):
        problems.append(Problem(path, f"lineage.transport must be file or http, not '{transport}'"))
        transport = None
    if transport == "http" and not section.get("url"):
        problems.append(Problem(path, "lineage.transport http needs lineage.url (the OpenLineage endpoint)"))
        transport = None
    return {"lineage_transport": transport, "lineage_url": section.get("url"),
            "lineage_timeout_seconds": section.get("timeout_seconds")}


def _freshness_defaults(clean: dict, lines: dict[str, int], path: str, problems: list[Problem]) -> dict | None:
    if "freshness" not in clean:
        return None
    found, issues = freshness_section(clean["freshness"], path, lines.get("freshness"), lines)
    problems += issues
    return found


def load_settings(root: Path) -> tuple[Settings, list[Problem]]:
    """Settings from `root/rat.yaml` (defaults when absent, or when it cannot be read) and the problems found in it."""
    settings, problems = read_settings(root)
    return settings or Settings(), problems


def read_settings(root: Path) -> tuple[Settings | None, list[Problem]]:
    """As load_settings, with None for a file that cannot be read as a whole (a YAML syntax error, say): one
    reloaded while the app is open then leaves the settings in use as they were."""
    path = root / "rat.yaml"
    display = "rat.yaml"
    if not path.exists():
        return Settings(), []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Problem(display, f"cannot read the file: {exc}")]
    try:
        node = yaml.compose(text)
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        line, sentence = yaml_error(exc)
        return None, [Problem(display, sentence, line)]
    if data is None:
        return Settings(), []
    if not isinstance(data, dict):
        return None, [Problem(display, "rat.yaml must be a mapping of sections", 1)]
    problems: list[Problem] = []
    lines = key_lines(node)
    clean = _check(data, _SCHEMA, "", display, lines, problems)
    spark = clean.get("spark", {})
    catalog = clean.get("catalog", {})
    watch = clean.get("watch", {})
    runs = clean.get("runs", {})
    retention = clean.get("retention", {})
    tables = clean.get("tables", {})
    schedule = _schedule_problems(clean.get("schedule", {}), lines, display, problems)
    kwargs: dict[str, Any] = {
        "spark_master": spark.get("master"),
        "spark_driver_memory": spark.get("driver_memory"),
        "spark_conf": {str(k): str(v) for k, v in spark.get("conf", {}).items()} if "conf" in spark else None,
        "spark_jars": tuple(str(j) for j in spark["jars"]) if "jars" in spark else None,
        "spark_extra_jars": tuple(str(j) for j in spark.get("extra_jars", ())) or None,
        "spark_jars_packages": tuple(str(j) for j in spark.get("jars_packages", ())) or None,
        "spark_log_level": spark.get("log_level"),
        "spark_class_sharing": spark.get("class_sharing"),
        "catalog_type": catalog.get("type"),
        "catalog_properties": {str(k): str(v) for k, v in catalog.get("properties", {}).items()} or None,
        "watch_enabled": watch.get("enabled"),
        "watch_debounce_ms": watch.get("debounce_ms"),
        "watch_run_on_landing": watch.get("run_on_landing"),
        "watch_cascade": watch.get("cascade"),
        "quality_timeout_seconds": runs.get("quality_timeout_seconds"),
        "serialise_same_pipeline": runs.get("serialise_same_pipeline"),
        "unit_tests_before_build": runs.get("unit_tests_before_build"),
        "unit_fixture_rows": runs.get("unit_fixture_rows"),
        "target_file_size_bytes": tables.get("target_file_size_bytes"),
        "per_table": tables.get("per_table"),
        "zones": clean.get("zones"),
        "keymap": {str(k): str(v) for k, v in clean.get("keymap", {}).items()} or None,
        "storage": clean.get("storage"),
        "console_max_rows": clean.get("console", {}).get("max_rows"),
        **_lineage_settings(clean.get("lineage", {}), display, problems),
        **{f"schedule_{key}": value for key, value in schedule.items()},
        "freshness": _freshness_defaults(clean, lines, display, problems),
        **retention,
    }
    return Settings(**{k: v for k, v in kwargs.items() if v is not None}), problems
