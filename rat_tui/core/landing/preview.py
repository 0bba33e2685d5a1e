"""The first rows of a landing file through DuckDB: instant, no JVM."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..errors import RatError
from ..project.model import landing_format
from ..text import one_line
from ..values import json_value
from .checks import bad_json_line, is_json_array
from .dialect import body_text, detect
from .zone_settings import ZoneReadSettings

_READERS = {"parquet": "read_parquet(?)", "json": "read_json_auto(?)"}


def read_head(path: Path, limit: int, settings: ZoneReadSettings | None = None) -> tuple[list[str], list[list]]:
    """Delimited text is read in the dialect a run reads it with (decoded, so any encoding and gzip)."""
    import duckdb

    fmt = landing_format(path)
    if fmt is None:
        raise RatError(f"{path.name} is not a CSV, Parquet or JSON file")
    temp = None
    try:
        if fmt == "csv":
            dialect = detect(path, settings or ZoneReadSettings())
            fd, temp = tempfile.mkstemp(prefix="rat-head-", suffix=".csv")
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(body_text(path, dialect, ""))
            reader = "read_csv(?, delim = ?, quote = ?, escape = ?, header = ?, names = ?)"
            params = [temp, dialect.delimiter, dialect.quote, dialect.escape, dialect.header, list(dialect.names)]
        else:
            reader, params = _READERS[fmt], [str(path)]
        with duckdb.connect() as con:
            relation = con.execute(f"SELECT * FROM {reader} LIMIT {int(limit)}", params)
            columns = [d[0] for d in relation.description]
            rows = [[json_value(v) for v in row] for row in relation.fetchall()]
        if fmt == "csv" and dialect.unnamed_last:  # the column a delimiter ending every line adds is none
            columns, rows = columns[:len(dialect.names)], [row[:len(dialect.names)] for row in rows]
    except duckdb.Error as exc:
        if fmt == "json" and not is_json_array(path) and (bad := bad_json_line(path)):
            raise RatError(bad) from None  # the line a run names: DuckDB's count is one more
        message = str(exc).replace(temp, path.name) if temp else str(exc)  # DuckDB names the sample's copy
        raise RatError(f"cannot read {path.name}: {one_line(message)}") from None
    finally:
        if temp is not None:
            os.unlink(temp)
    return columns, rows
