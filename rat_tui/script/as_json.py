"""Typed results as the JSON the script contract prints: a command's result becomes the fields of its line,
dataclasses become objects, times ISO 8601 UTC with `Z`."""
from __future__ import annotations

import dataclasses
from datetime import datetime, timezone
from enum import Enum
from typing import Any

from ..core.errors import reported_fields


def as_json(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: as_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (list, tuple)):
        return [as_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): as_json(v) for k, v in value.items()}
    return value


def result_fields(result: Any) -> dict[str, Any]:
    """The fields of a command's line: a typed result's own `as_dict()` (its contract shape, docs/script.md),
    a plain dict as it is, or a dataclass's fields."""
    if isinstance(result, dict) or callable(getattr(result, "as_dict", None)):
        return reported_fields(result)
    return as_json(result)
