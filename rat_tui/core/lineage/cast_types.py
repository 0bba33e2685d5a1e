"""The types a query states for its output columns without Spark: a projection that is an explicit CAST
(`CAST(x AS BIGINT) AS x`, `x::int`), named as the Iceberg table the run writes would name it (Spark's
TIMESTAMP is Iceberg's timestamptz, BIGINT its long, SMALLINT and TINYINT widen to int). Any other
projection's type takes Spark's analysis, so it is left out."""
from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

_T = exp.DataType.Type
_ICEBERG = {
    _T.BIGINT: "long", _T.INT: "int", _T.SMALLINT: "int", _T.TINYINT: "int", _T.FLOAT: "float",
    _T.DOUBLE: "double", _T.TEXT: "string", _T.VARCHAR: "string", _T.CHAR: "string", _T.BOOLEAN: "boolean",
    _T.DATE: "date", _T.TIMESTAMPTZ: "timestamptz", _T.TIMESTAMPLTZ: "timestamptz", _T.TIMESTAMP: "timestamptz",
    _T.TIMESTAMPNTZ: "timestamp", _T.BINARY: "binary",
}


def cast_types(sql: str) -> dict[str, str]:
    """Output column -> its Iceberg type, for the outer SELECT's explicit casts ({} for what cannot be parsed)."""
    try:
        statements = [s for s in sqlglot.parse(sql, dialect="spark") if s is not None]
    except SqlglotError:
        return {}
    if len(statements) != 1 or not isinstance(statements[0], exp.Select):
        return {}  # a UNION's types are the widest of its branches: Spark's to say
    found = {}
    for projection in statements[0].expressions:
        node = projection.this if isinstance(projection, exp.Alias) else projection
        if isinstance(node, exp.Cast) and (kind := _iceberg_type(node.to)):
            found[projection.alias_or_name] = kind
    return found


def _iceberg_type(to: exp.DataType) -> str | None:
    if to.this == _T.DECIMAL:
        given = [p.sql() for p in to.expressions]  # Spark: DECIMAL is (10, 0), DECIMAL(p) is (p, 0)
        return f"decimal({given[0] if given else 10}, {given[1] if len(given) > 1 else 0})"
    return _ICEBERG.get(to.this)
