"""The first rows of a landing file through DuckDB: instant, no JVM."""
from __future__ import annotations

from pathlib import Path

from ..errors import RatError
from ..project.model import LANDING_EXTENSIONS
from ..values import json_value

_READERS = {"csv": "read_csv_auto(?, header = true)", "parquet": "read_parquet(?)", "json": "read_json_auto(?)"}


def read_head(path: Path, limit: int) -> tuple[list[str], list[list]]:
    import duckdb

    fmt = LANDING_EXTENSIONS.get(path.suffix.lower())
    if fmt is None:
        raise RatError(f"{path.name} is not a CSV, Parquet or JSON file")
    try:
        with duckdb.connect() as con:
            relation = con.execute(f"SELECT * FROM {_READERS[fmt]} LIMIT {int(limit)}", [str(path)])
            columns = [d[0] for d in relation.description]
            rows = [[json_value(v) for v in row] for row in relation.fetchall()]
    except duckdb.Error as exc:
        raise RatError(f"cannot read {path.name}: {str(exc).splitlines()[0]}") from None
    return columns, rows
