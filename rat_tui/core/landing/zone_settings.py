"""How a zone's files are read, as rat.yaml pins it: `zones: {ns/zone: {csv: {...}, columns, schema, bad_rows}}`.

Every key is optional: what a zone does not pin is detected from each file (dialect.py).
A value of the wrong shape is one sentence naming the key, raised when a run or an upload
reads the zone (settings.py keeps `zones:` free-form, as it always was).
"""
from __future__ import annotations

import codecs
import json
from dataclasses import dataclass
from typing import Any

from ..errors import RatError
from ..project.settings import Settings

CSV_KEYS = ("delimiter", "quote", "escape", "header", "encoding", "null_values", "date_format",
            "timestamp_format", "multiline", "decimal", "thousands", "skip_rows")
BAD_ROWS = ("fail", "quarantine")
_SEPARATOR_NAMES = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|"}
DECIMALS = (".", ",")
THOUSANDS = (",", ".", " ", "'")


@dataclass(frozen=True)
class CsvSettings:
    """What the zone pins of its CSV dialect; None: detect it from each file."""

    delimiter: str | None = None
    quote: str | None = None
    escape: str | None = None
    header: bool | None = None
    encoding: str | None = None
    null_value: str | None = None
    date_format: str | None = None  # Spark's pattern letters (dd/MM/yyyy)
    timestamp_format: str | None = None
    multiline: bool | None = None
    decimal: str | None = None  # the zone's decimal mark, "." or ","
    thousands: str | None = None  # the zone's thousands separator: ",", ".", " " or "'"
    skip_rows: int | None = None  # lines above the header (a report's title)


@dataclass(frozen=True)
class ZoneReadSettings:
    csv: CsvSettings = CsvSettings()
    columns: tuple[str, ...] | None = None  # names for header-less files
    types: dict[str, str] | None = None  # `schema: {column: type}`: pinned Spark SQL types
    expected: tuple[str, ...] | None = None  # `schema:` as a list, or the keys of the mapping
    bad_rows: str = "fail"
    label: str = ""
    # not rat.yaml's: ("date_format", "MM/dd/yyyy") pairs the zone's earlier loads read dates with (the load
    # history keeps them), so a later file whose days are all 12 or less reads in that order (dialect.py)
    date_orders: tuple[tuple[str, str], ...] = ()

    @property
    def quarantine(self) -> bool:
        return self.bad_rows == "quarantine"

    @property
    def encoding(self) -> str:
        return self.csv.encoding or "UTF-8"

    @property
    def pinned(self) -> frozenset[str]:
        """The columns whose type `schema:` pins (read as that type, leading zeros and all)."""
        return frozenset(self.types or ())

    def key(self, name: str) -> str:
        """The rat.yaml key a sentence names, e.g. `zones.shop/orders.csv.delimiter`."""
        return f"zones.{self.label}.{name}"


def _own(settings: Settings, namespace: str, zone: str) -> tuple[str, dict]:
    for label in (f"{namespace}/{zone}", zone):
        if isinstance(settings.zones.get(label), dict):
            return label, settings.zones[label]
    return f"{namespace}/{zone}", {}


def zone_entry(settings: Settings, namespace: str, zone: str) -> dict:
    """rat.yaml's entry for the zone, as written ({} for none), as JSON keeps it (a YAML date as its text): what
    a load history keeps and compares across runs."""
    return json.loads(json.dumps(_own(settings, namespace, zone)[1], default=str))


def changed_keys(before: dict, after: dict, prefix: str = "") -> list[str]:
    """The dotted keys whose values differ between two entries (`csv.null_values`), nested mappings walked."""
    changed = []
    for key in sorted(set(before) | set(after), key=str):
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        if isinstance(old, dict) or isinstance(new, dict):  # a mapping set where there was none: its keys
            changed += changed_keys(old if isinstance(old, dict) else {}, new if isinstance(new, dict) else {},
                                    f"{prefix}{key}.") or [f"{prefix}{key}"]
        else:
            changed.append(f"{prefix}{key}")
    return changed


def read_settings(settings: Settings, namespace: str, zone: str) -> ZoneReadSettings:
    """The zone's read settings; RatError naming the rat.yaml key when one has the wrong shape."""
    label, own = _own(settings, namespace, zone)
    csv = own.get("csv") or {}
    where = f"rat.yaml zones.{label}"
    if not isinstance(csv, dict):
        raise RatError(f"{where}.csv must be a mapping of {', '.join(CSV_KEYS)}")
    unknown = sorted(set(csv) - set(CSV_KEYS))
    if unknown:
        raise RatError(f"{where}.csv has unknown key(s) {', '.join(map(str, unknown))}; known: {', '.join(CSV_KEYS)}")
    parsed: dict[str, Any] = {}
    for key in ("delimiter", "quote", "escape"):
        if csv.get(key) is not None:
            parsed[key] = _character(f"{where}.csv.{key}", csv[key])
    for key in ("header", "multiline"):
        if csv.get(key) is not None:
            if not isinstance(csv[key], bool):
                raise RatError(f"{where}.csv.{key} must be true or false, not {csv[key]!r}")
            parsed[key] = csv[key]
    for key in ("date_format", "timestamp_format"):
        if csv.get(key) is not None:
            parsed[key] = str(csv[key])
    if csv.get("encoding") is not None:
        parsed["encoding"] = _encoding(f"{where}.csv.encoding", csv["encoding"])
    for key, allowed in (("decimal", DECIMALS), ("thousands", THOUSANDS)):
        if csv.get(key) is not None:
            value = "'" if csv[key] == "apostrophe" else " " if csv[key] in ("space", " ") else str(csv[key])
            if value not in allowed:
                raise RatError(f"{where}.csv.{key} must be one of {', '.join(repr(a) for a in allowed)}, not {csv[key]!r}")
            parsed[key] = value
    if parsed.get("decimal") is not None and parsed.get("decimal") == parsed.get("thousands"):
        raise RatError(f"{where}.csv: decimal and thousands cannot both be {parsed['decimal']!r}")
    if csv.get("skip_rows") is not None:
        if isinstance(csv["skip_rows"], bool) or not isinstance(csv["skip_rows"], int) or csv["skip_rows"] < 0:
            raise RatError(f"{where}.csv.skip_rows must be a number of lines (0 or more), not {csv['skip_rows']!r}")
        parsed["skip_rows"] = csv["skip_rows"]
    if csv.get("null_values") is not None:
        parsed["null_value"] = _null_value(f"{where}.csv.null_values", csv["null_values"])
    columns = own.get("columns")
    if columns is not None and (not isinstance(columns, list) or not all(isinstance(c, str) and c for c in columns)):
        raise RatError(f"{where}.columns must be a list of column names")
    schema = own.get("schema")
    types = expected = None
    if isinstance(schema, dict):
        types = {str(k): str(v) for k, v in schema.items() if v is not None}
        expected = tuple(str(k) for k in schema)
    elif isinstance(schema, list):
        expected = tuple(str(c) for c in schema)
    elif schema is not None:
        raise RatError(f"{where}.schema must be a list of column names or a mapping column: type")
    bad_rows = own.get("bad_rows", "fail")
    if bad_rows not in BAD_ROWS:
        raise RatError(f"{where}.bad_rows must be fail or quarantine, not {bad_rows!r}")
    return ZoneReadSettings(CsvSettings(**parsed), tuple(columns) if columns else None, types or None, expected,
                            bad_rows, label)


def _character(key: str, value: Any) -> str:
    text = _SEPARATOR_NAMES.get(str(value), str(value))
    if len(text) != 1:
        raise RatError(f"{key} must be one character (or tab, comma, semicolon, pipe), not {value!r}")
    return text


def _encoding(key: str, value: Any) -> str:
    try:
        return codecs.lookup(str(value)).name
    except LookupError:
        raise RatError(f"{key}: {value!r} is not an encoding Python knows (e.g. cp1252, latin-1, utf-16)") from None


def _null_value(key: str, value: Any) -> str:
    values = value if isinstance(value, list) else [value]
    if len(values) != 1:
        raise RatError(f"{key}: Spark's CSV reader takes one null marker, not {len(values)} ({values!r})")
    return str(values[0])
