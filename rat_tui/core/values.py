"""Values as JSON carries them: one conversion for query results, quality samples and file previews."""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from collections.abc import Iterable
from typing import Any


def json_value(value: Any) -> Any:
    """A JSON scalar: numbers as numbers (decimals as strings), dates as ISO 8601, NULL as None."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if hasattr(value, "asDict"):
        return json_value(value.asDict())
    return value


def row_values(row: Iterable[Any]) -> list[Any]:
    return [json_value(v) for v in row]
