"""Rows of a test file as Spark DataFrames, and the comparison of expected rows with actual ones."""
from __future__ import annotations

from collections import Counter
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ..lake.table import quote
from ..lineage.schemas import decimal_of
from ..values import json_value
from .spec import Rows, UnitTest

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import DataType, StructType

LINE_COLUMN = "__rat_line"


def _type_of(values: list[Any]) -> "DataType":
    """The Spark type of one column as the file wrote it; anything mixed is text (a cast decides later)."""
    from pyspark.sql import types as T

    kinds = {type(v) for v in values if v is not None}
    if kinds == {bool}:
        return T.BooleanType()
    if kinds and kinds <= {int}:
        return T.LongType()
    if kinds and kinds <= {int, float}:
        return T.DoubleType()
    if kinds and kinds <= {Decimal, int}:
        return T.DecimalType(38, 10)
    if kinds == {date}:
        return T.DateType()
    if kinds and kinds <= {datetime, date}:
        return T.TimestampType()
    return T.StringType()


def _value(value: Any, data_type: "DataType") -> Any:
    from pyspark.sql import types as T

    if value is None:
        return None
    if isinstance(data_type, T.StringType) and not isinstance(value, str):
        return str(json_value(value)) if not isinstance(value, bool) else str(value).lower()
    if isinstance(data_type, T.DoubleType):
        return float(value)
    if isinstance(data_type, T.TimestampType) and not isinstance(value, datetime):
        return datetime(value.year, value.month, value.day)
    return value


def _literal(value: Any, data_type: "DataType") -> str:
    from ..lake.table import sql_string

    value = _value(value, data_type)
    if value is None:
        return f"CAST(NULL AS {data_type.simpleString()})"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return f"{value}L"
    text = sql_string(str(value))
    return text if isinstance(value, str) else f"CAST({text} AS {data_type.simpleString()})"


def rows_frame(spark: "SparkSession", rows: Rows, with_lines: bool = False) -> "DataFrame":
    """The rows with the types their values suggest (a missing column in a row is NULL).

    Written as a VALUES query, which Spark keeps on the driver: `createDataFrame` on Python rows
    ran a job with a Python worker, 0.6 s of every test's 1 s (bench/unit_tests.py)."""
    columns = rows.columns()
    types = {c: _type_of([r.get(c) for r in rows.rows]) for c in columns}
    names = [*columns, LINE_COLUMN] if with_lines else columns
    values = [[_literal(r.get(c), types[c]) for c in columns] + ([f"{line}"] if with_lines else [])
              for r, line in zip(rows.rows, rows.lines)]
    if not names:
        return spark.sql("SELECT 1 AS `__rat_none` WHERE FALSE").drop("__rat_none")
    if not values:  # no rows: NULLs of each type, filtered away
        values, where = [[_literal(None, types[c]) for c in columns] + (["0"] if with_lines else [])], " WHERE FALSE"
    else:
        where = ""
    tuples = ", ".join(f"({', '.join(row)})" for row in values)
    return spark.sql(f"SELECT * FROM VALUES {tuples} AS t({', '.join(quote(n) for n in names)}){where}")


_ICEBERG_TO_SPARK = {"long": "LongType", "int": "IntegerType", "double": "DoubleType", "float": "FloatType",
                     "boolean": "BooleanType", "date": "DateType", "timestamptz": "TimestampType",
                     "timestamp": "TimestampNTZType"}


def spark_type(iceberg: str) -> "DataType | None":
    """Spark's type for an Iceberg column type of a table's metadata (`decimal(10, 2)`, `long`), or None for text and
    for a type a test value is no text of (nested, binary)."""
    from pyspark.sql import types

    decimal = decimal_of(iceberg)
    if decimal is not None:
        return types.DecimalType(*decimal)
    name = _ICEBERG_TO_SPARK.get(iceberg)
    return getattr(types, name)() if name else None


def cast_rows(spark: "SparkSession", test: UnitTest, rows: Rows, schema: "StructType", what: str) -> list[tuple]:
    """The rows cast to `schema`'s types by Spark's rules, as values in the schema's order."""
    return cast_frame(spark, test, rows, schema, what)[1]


def cast_frame(spark: "SparkSession", test: UnitTest, rows: Rows, schema: "StructType", what: str
               ) -> tuple["DataFrame", list[tuple]]:
    """The rows cast to `schema`'s types by Spark's rules (columns by name, missing ones NULL): as a
    DataFrame of the schema's columns and as values. A column the schema lacks or a value that does
    not cast is a RatError with its line. One local query: Spark evaluates it on the driver, no job."""
    from pyspark.sql import functions as F

    known = {f.name: f.dataType for f in schema.fields}
    given_columns = rows.columns()
    for column in given_columns:
        if column not in known:
            raise test.error(f"{what} has column '{column}', which the pipeline does not produce "
                             f"(columns: {', '.join(known)})", rows.line_of_column(column))
    casts = [(F.expr(f"try_cast({quote(f.name)} AS {f.dataType.simpleString()})") if f.name in given_columns
              else F.lit(None).cast(f.dataType)).alias(f.name) for f in schema.fields]
    width, position = len(casts), {name: i for i, name in enumerate(known)}
    framed = rows_frame(spark, rows, with_lines=True).select(
        *casts, *(F.col(quote(c)).alias(f"__given_{i}") for i, c in enumerate(given_columns)), LINE_COLUMN)
    checked = framed.collect()
    for row in checked:
        for i, column in enumerate(given_columns):
            value = row[width + i]
            if value is not None and row[position[column]] is None:
                raise test.error(f"{what}: value {json_value(value)!r} of column '{column}' does not "
                                 f"cast to {known[column].simpleString()}", row[LINE_COLUMN])
    return framed.select(*(F.col(quote(f.name)) for f in schema.fields)), [tuple(row[:width]) for row in checked]


def as_dicts(values: list[tuple], names: list[str], columns: list[str]) -> list[dict[str, Any]]:
    """Rows (in `names` order) as column -> JSON value, for `columns` only."""
    at = [names.index(c) for c in columns]
    return [{c: json_value(row[i]) for c, i in zip(columns, at)} for row in values]


def compare(expected: list[dict[str, Any]], actual: list[dict[str, Any]], ordered: bool
            ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(missing, unexpected): expected rows not in the result, result rows not expected. As
    multisets; with `ordered`, position by position."""
    if ordered:
        pairs = [(e, a) for e, a in zip(expected, actual) if e != a]
        return ([e for e, _ in pairs] + expected[len(actual):], [a for _, a in pairs] + actual[len(expected):])
    key = _row_key
    want, got = Counter(map(key, expected)), Counter(map(key, actual))
    missing_keys, unexpected_keys = want - got, got - want
    return _take(expected, missing_keys), _take(actual, unexpected_keys)


def _row_key(row: dict[str, Any]) -> tuple:
    return tuple(sorted((k, repr(v)) for k, v in row.items()))


def _take(rows: list[dict[str, Any]], counts: Counter) -> list[dict[str, Any]]:
    left, taken = Counter(counts), []
    for row in rows:
        key = _row_key(row)
        if left[key] > 0:
            left[key] -= 1
            taken.append(row)
    return taken
