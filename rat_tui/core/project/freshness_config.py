"""A table's freshness policy: `freshness: {warn_after: 6h, error_after: 1d, column: updated_at}` in a
pipeline's config.yaml, key by key over the same section in rat.yaml (the project's defaults).

Durations are a number with a unit: s, m, h, d or w (`90m`, `1.5h`, `7d`). Each bad value is one sentence
naming the file, the line and the key; the value is then left out, as if it were not written.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any

import yaml

from ..errors import Problem
from .yaml_load import key_lines, load_yaml

FRESHNESS_KEY = "freshness"
_KEYS = ("warn_after", "error_after", "column")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$")


@dataclass(frozen=True)
class FreshnessPolicy:
    warn_after_s: float | None = None
    error_after_s: float | None = None
    column: str | None = None  # None: the age of the last successful run's commit on main


def duration_problem(key: str, value: object) -> tuple[float | None, str | None]:
    """Seconds of `6h`, `1d`, `30m`…, or why `value` is none of those."""
    match = _DURATION.match(str(value)) if not isinstance(value, bool) else None
    if match is None:
        return None, f"freshness.{key} is a duration such as 6h, 30m or 1d, not {value!r}"
    unit = match.group(2).lower()
    if unit not in _UNITS:
        return None, (f"freshness.{key} '{value}' has no unit" if not unit else
                      f"freshness.{key} '{value}' has an unknown unit '{match.group(2)}'") + " (use s, m, h, d or w)"
    return float(match.group(1)) * _UNITS[unit], None


def read_section(value: Any, path: str, line: int | None,
                 lines: Mapping[str, int] | None = None) -> tuple[dict[str, Any], list[Problem]]:
    """The keys a `freshness:` section sets, as FreshnessPolicy fields, and the problems of the others (at
    their own line, where `lines` (dotted keys of the file) has it, else at the section's)."""
    def at(key: str) -> int | None:
        return (lines or {}).get(f"{FRESHNESS_KEY}.{key}", line)

    if not isinstance(value, dict):
        return {}, [Problem(path, "freshness is a mapping such as {warn_after: 6h, error_after: 1d}", line)]
    found: dict[str, Any] = {}
    problems: list[Problem] = []
    for key, raw in value.items():
        if key not in _KEYS:
            problems.append(Problem(path, f"freshness.{key} is not a key of freshness (it takes {', '.join(_KEYS)})",
                                    at(key)))
        elif key == "column":
            if not isinstance(raw, str) or not raw.strip():
                problems.append(Problem(path, f"freshness.column names a column of the table, not {raw!r}", at(key)))
            else:
                found["column"] = raw.strip()
        else:
            seconds, issue = duration_problem(key, raw)
            if issue:
                problems.append(Problem(path, issue, at(key)))
            else:
                found[f"{key}_s"] = seconds
    order = order_problem(found)
    if order:
        problems.append(Problem(path, order, at("warn_after")))
        found.pop("warn_after_s")
    return found, problems


def order_problem(fields: dict[str, Any]) -> str | None:
    warn, error = fields.get("warn_after_s"), fields.get("error_after_s")
    if warn is not None and error is not None and warn > error:
        return "freshness.warn_after is longer than freshness.error_after: a table would turn error before warn"
    return None


def config_section(config_text: str | None, path: str) -> tuple[dict[str, Any], list[Problem]]:
    """`freshness:` of a config.yaml's text (its YAML errors are pipeline_config's to report)."""
    if not config_text:
        return {}, []
    try:
        node = yaml.compose(config_text)
        data = load_yaml(config_text)
    except yaml.YAMLError:
        return {}, []
    if not isinstance(node, yaml.MappingNode) or not isinstance(data, dict) or FRESHNESS_KEY not in data:
        return {}, []
    lines = key_lines(node)
    return read_section(data[FRESHNESS_KEY], path, lines.get(FRESHNESS_KEY), lines)


def effective_policy(defaults: dict[str, Any], own: dict[str, Any]) -> tuple[FreshnessPolicy | None, str | None]:
    """The pipeline's keys over the project's (None when neither sets a threshold), and why they cannot go
    together: a pipeline's warn_after past the project's error_after (the pipeline's own key is kept)."""
    merged = {**defaults, **own}
    clash = order_problem(merged)
    if clash:
        merged.pop("error_after_s" if "warn_after_s" in own else "warn_after_s")
        clash += " (with rat.yaml's freshness defaults)"
    if merged.get("warn_after_s") is None and merged.get("error_after_s") is None:
        return None, clash
    return FreshnessPolicy(**merged), clash
