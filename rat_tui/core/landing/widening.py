"""When a zone's CSV read fails: widen what a full pass would have widened, or say exactly why not.

The sampled schema (schema.py) is right for every value in the sample; a later value it cannot
hold (`N/A` after 400,000 integers) fails the FAILFAST read. A full inference pass would have
read it (as a string), so the run infers over the whole files once and reads again, saying
which column was widened and why: `amount: int in the sample; 'N/A' at a.csv line 400,003 →
string`. A value that does not fit a type the zone pins (`schema:`) is not widened: the run
fails naming file, line, column and value. Anything else (a ragged row, a broken quote) is one
sentence with its cause and, when it can be found, the file and line.
"""
from __future__ import annotations

import csv
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import RatError
from ..lake.spark_errors import root_cause
from ..lake.table import quote
from .checks import bad_json_line
from .dialect import Dialect, text_lines
from .numbers import LEADING_ZERO, LEADING_ZERO_PATTERN, NUMBER_MISFIT, ROUNDED, canonical_in, plain_number
from .schema import full_csv_schema
from .spark_reader import UNNAMED_VALUE, FileGroup, csv_frame, typed_schema
from .zone_settings import ZoneReadSettings

if TYPE_CHECKING:
    from pyspark.sql import Column, SparkSession
    from pyspark.sql.types import DataType, StructType

def widen(spark: "SparkSession", groups: list[FileGroup], uri_of: Callable[[Path], str],
          settings: ZoneReadSettings) -> list[str]:
    """Infer each text group that was read from a sample over its whole files, and keep number columns
    with a leading zero as text; notes on what changed.

    [] when nothing would change: the failure has another cause. RatError when a value does not
    fit a pinned type."""
    from pyspark.sql.types import StringType, StructField, StructType

    notes = []
    for group in groups:
        if group.fmt != "csv" or group.twins or group.schema is None:
            continue
        uris = [uri_of(f) for f in group.files]
        old = group.schema
        # a schema inferred over every byte holds every value, except one with a leading zero (Spark reads
        # `01234` as a number: only numbers.converted refuses it)
        full = old if group.full_pass else typed_schema(full_csv_schema(spark, uris, group.dialect), group.dialect,
                                                        settings)
        group.full_pass = True
        if [f.name for f in full.fields] != [f.name for f in old.fields]:
            continue  # not the same columns: a ragged file, which widening does not mend
        zeros = _leading_zeros(spark, group, uris, full, settings.pinned)
        full = StructType([StructField(f.name, StringType(), True) if f.name in zeros else f for f in full.fields])
        for before, after in zip(old.fields, full.fields):
            if before.name in zeros:
                value, path = zeros[before.name]
                line = line_of(path, group.dialect, old, before.name, value)
                notes.append(f"{before.name}: {before.dataType.simpleString()} in the sample; {value!r} at {path.name}"
                             f"{f' line {line:,}' if line else ''} has a leading zero, which a number loses → string")
            elif before.dataType != after.dataType:
                notes.append(_note(spark, group, uris, before.name, before.dataType, after.dataType))
        group.schema = full
    if not notes:
        _check_pinned(spark, groups, uri_of, settings)
    return notes


def _leading_zeros(spark: "SparkSession", group: FileGroup, uris: list[str], schema: "StructType",
                   pinned: frozenset[str]) -> dict[str, tuple[str, Path]]:
    """Number columns of `schema` (not pinned) where a value has a leading zero: column -> (the first such
    value, its file). One pass over the files, read as text."""
    from urllib.parse import unquote

    from pyspark.sql import functions as F
    from pyspark.sql.types import NumericType, StringType, StructField, StructType

    numeric = [f.name for f in schema.fields if isinstance(f.dataType, NumericType) and f.name not in pinned]
    if not numeric:
        return {}
    assert group.dialect is not None
    text = StructType([StructField(f.name, StringType()) for f in schema.fields])
    # the file as a column first: input_file_name() may not appear inside an aggregate
    df = csv_frame(spark, uris, group.dialect, text, "PERMISSIVE").withColumn("__rat_file", F.input_file_name())
    file = F.col("__rat_file")
    found = df.agg(*(F.first(F.when(F.col(f"`{name}`").rlike(LEADING_ZERO_PATTERN),
                                    F.array(F.col(f"`{name}`"), file)), ignorenulls=True).alias(f"z{i}")
                     for i, name in enumerate(numeric))).collect()[0]
    zeros = {}
    for i, name in enumerate(numeric):
        if found[f"z{i}"] is not None:
            value, uri = found[f"z{i}"]
            base = unquote(uri.rsplit("/", 1)[-1])
            zeros[name] = (value, next((f for f in group.files if f.name == base), group.files[0]))
    return zeros


def _note(spark: "SparkSession", group: FileGroup, uris: list[str], column: str, before: "DataType",
          after: "DataType") -> str:
    found = first_misfit(spark, group, uris, column, before)
    where = ""
    if found is not None:
        value, path = found
        line = line_of(path, group.dialect, group.schema, column, value)
        where = f"; {value!r} at {path.name}" + (f" line {line:,}" if line else "")
    return f"{column}: {before.simpleString()} in the sample{where} → {after.simpleString()}"


def _check_pinned(spark: "SparkSession", groups: list[FileGroup], uri_of: Callable[[Path], str],
                  settings: ZoneReadSettings) -> None:
    for group in groups:
        if group.fmt != "csv" or group.schema is None or group.twins:
            continue
        uris = [uri_of(f) for f in group.files]
        for name in settings.types or {}:
            field = next((f for f in group.schema.fields if f.name == name), None)
            if field is None:
                continue
            found = first_misfit(spark, group, uris, name, field.dataType)
            if found is not None:
                value, path = found
                line = line_of(path, group.dialect, group.schema, name, value)
                raise RatError(f"{path.name}{f' line {line:,}' if line else ''}: {name} {value!r} does not fit the "
                               f"type {field.dataType.simpleString()} the zone pins (rat.yaml {settings.key('schema')})")


def does_not_cast(column: str, dtype: "DataType") -> "Column":
    """A text column's value that is there and does not cast to `dtype`."""
    from pyspark.sql import functions as F

    return F.col(quote(column)).isNotNull() & F.expr(f"try_cast({quote(column)} AS {dtype.simpleString()})").isNull()


PLAIN = "__rat_plain"


def first_misfit(spark: "SparkSession", group: FileGroup, uris: list[str], column: str,
                 dtype: "DataType") -> tuple[str, Path] | None:
    """The first value of `column` that does not cast to `dtype`, and its file."""
    from urllib.parse import unquote

    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    assert group.schema is not None and group.dialect is not None
    text = StructType([StructField(f.name, StringType()) for f in group.schema.fields])
    df = csv_frame(spark, uris, group.dialect, text, "PERMISSIVE")
    # as the zone writes the column's numbers (`19,90` with a decimal comma is a number)
    number = group.dialect.number_column(column)
    plain = F.col(quote(column)) if number is None else plain_number(F.col(quote(column)), number)
    row = df.withColumn(PLAIN, plain).where(does_not_cast(PLAIN, dtype)).select(
        F.col(quote(column)).alias("v"), F.input_file_name().alias("f")).limit(1).collect()
    if not row:
        return None
    name = unquote(row[0]["f"].rsplit("/", 1)[-1])
    path = next((f for f in group.files if f.name == name), group.files[0])
    return row[0]["v"], path


def records(path: Path, dialect: Dialect):
    """(first line number, record) of a CSV file from its header on (the header's included)."""
    doubled = dialect.escape == dialect.quote
    lines = text_lines(path, dialect.encoding)
    for _ in range(dialect.skip_rows):  # a title above the header
        next(lines, None)
    reader = csv.reader(lines, delimiter=dialect.delimiter, quotechar=dialect.quote or None,
                        quoting=csv.QUOTE_MINIMAL if dialect.quote else csv.QUOTE_NONE, doublequote=doubled,
                        escapechar=None if doubled else dialect.escape)
    start = dialect.skip_rows + 1
    try:
        for record in reader:
            yield start, record
            start = dialect.skip_rows + reader.line_num + 1
    except csv.Error:
        return


def malformed(path: Path, line: int, width: int, raw: str) -> str:
    return (f"{path.name} line {line:,} is not a well-formed record of {width} column(s) ({raw!r}); fix the file, "
            "or set bad_rows: quarantine in the zone settings to set such rows aside")


def line_of(path: Path, dialect: Dialect | None, schema: "StructType", column: str, value: str) -> int | None:
    """The line of the first record whose `column` holds `value` (Spark does not report lines)."""
    if dialect is None:
        return None
    index = [f.name for f in schema.fields].index(column)
    found = records(path, dialect)
    if dialect.header:
        next(found, None)
    # Spark trims the spaces around a value (dialect.spark_options)
    return next((line for line, record in found if len(record) > index and record[index].strip() == value.strip()),
                None)


def explain(groups: list[FileGroup], label: str, exc: BaseException) -> str | None:
    """One sentence for a failed read of the zone, with its cause and the file and line when they can be
    found; None when the failure is not about this zone's files."""
    cause = root_cause(exc)
    if not cause:
        return None
    if "Malformed records" in f"{exc} {cause}" and (bad := _bad_json_line(groups)):
        return bad
    if UNNAMED_VALUE in cause:
        return _unnamed_value(groups, cause)
    if NUMBER_MISFIT in cause:
        return _number_misfit(groups, label, cause)
    if ROUNDED in cause:
        return _rounded(groups, label, cause)
    if cast := _CAST_MISFIT.search(cause):
        return _cast_misfit(groups, label, *cast.groups())
    if LEADING_ZERO in cause:  # widening keeps such a column as text: this is when it could not
        column, _, value = cause.split(LEADING_ZERO, 1)[1].strip().partition(" ")
        return (f"{column} {value!r} has a leading zero, which a number loses; pin the column as text "
                f"(schema: {{{column}: string}} in the zone settings)")
    raw = cause.split("Malformed CSV record:", 1)[1].strip() if "Malformed CSV record:" in cause else None
    for group in groups:
        if group.fmt != "csv" or group.dialect is None:
            continue
        for path in group.files:
            if raw is not None:
                line = next((n for n, r in records(path, group.dialect)
                             if group.dialect.delimiter.join(r) == raw or (r and r[0] == raw)), None)
                if line is not None:
                    return malformed(path, line, len(group.dialect.names), raw)
    if raw is not None:
        return _late_multiline(groups, label, raw) or f"a record of landing zone {label} is malformed ({raw!r})"
    return None


# Spark's ANSI cast of a landing value in the pipeline's SQL (`CAST(order_date AS DATE)` of `2024-13-45`)
_CAST_MISFIT = re.compile(r"The value '(.*?)' of the type \"STRING\" cannot be cast to \"(.+?)\" because it is malformed")


def _cast_misfit(groups: list[FileGroup], label: str, value: str, target: str) -> str | None:
    """The file, line and column of a landing value the pipeline's SQL could not cast (Spark names only the
    value); None when no file of the zone holds it (the value was made in the SQL)."""
    for group in groups:
        if group.fmt != "csv" or group.dialect is None:
            continue
        names = group.dialect.names
        for path in group.files:
            found = records(path, group.dialect)
            if group.dialect.header:
                next(found, None)
            for line, record in found:
                column = next((i for i, field in enumerate(record) if field.strip() == value.strip()), None)
                if column is not None:
                    name = names[column] if column < len(names) else f"_c{column}"
                    return (f"{value!r} in column {name} at {label}/{path.name} line {line:,} cannot be cast to "
                            f"{target}; fix the file, or cast with try_cast to read such values as NULL")
    return None


def _number_misfit(groups: list[FileGroup], label: str, cause: str) -> str:
    """A value of a number column (numbers.converted) written otherwise, with the file and line that hold it."""
    column, _, value = cause.split(NUMBER_MISFIT, 1)[1].strip().partition(" ")
    for group in groups:
        if group.schema is None or group.dialect is None or column not in group.schema.fieldNames():
            continue
        for path in group.files:
            line = line_of(path, group.dialect, group.schema, column, value)
            if line is None:
                continue
            number = group.dialect.number_column(column)
            if number is None:
                return f"{path.name} line {line:,}: {column} {value!r} is not a number like the column's others"
            zone = label.replace("/landing/", "/", 1)
            return (f"{path.name} line {line:,}: {column} {value!r} is not written like the column's "
                    f"other numbers ({number.describe()}, read from the first lines of the zone's files); fix the file, "
                    f"or pin how the zone writes numbers (zones: {{{zone}: {{csv: {{decimal: ..., thousands: ...}}}}}}) "
                    f"or the column's type (schema: {{{column}: string}})")
    return f"landing zone {label}: {column} {value!r} is not written like the column's other numbers"


def _rounded(groups: list[FileGroup], label: str, cause: str) -> str:
    """A value of a column the zone pins to a decimal with fewer places than the value has (numbers.converted),
    with the file and line that hold it, what it would have been stored as, and the decimal that holds it."""
    from decimal import ROUND_HALF_UP, Decimal

    column, _, value = cause.split(ROUNDED, 1)[1].strip().partition(" ")
    zone = label.replace("/landing/", "/", 1)
    for group in groups:
        if group.schema is None or group.dialect is None or column not in group.schema.fieldNames():
            continue
        kind = group.schema[column].dataType
        exact = Decimal(canonical_in(value, group.dialect.number_column(column)))
        places = -int(exact.as_tuple().exponent)
        stored = exact.quantize(Decimal(1).scaleb(-kind.scale), rounding=ROUND_HALF_UP)
        wider = f"decimal({min(kind.precision - kind.scale + places, 38)},{places})"
        for path in group.files:
            line = line_of(path, group.dialect, group.schema, column, value)
            if line is not None:
                return (f"{path.name} line {line:,}: {column} {value!r} has more decimal places than the type "
                        f"{kind.simpleString()} the zone pins (rat.yaml zones.{zone}.schema) holds, and would be "
                        f"stored as {stored}; fix the file, or pin a decimal with the places it needs ({wider})")
    return (f"landing zone {label}: {column} {value!r} has more decimal places than the decimal the zone pins "
            f"(rat.yaml zones.{zone}.schema) holds; fix the file, or pin a decimal with more places")


def _unnamed_value(groups: list[FileGroup], cause: str) -> str | None:
    """The first value in the column a delimiter ending every line adds (reader.csv_frame), as a sentence."""
    from urllib.parse import unquote

    name = unquote(cause.split(UNNAMED_VALUE, 1)[1].strip().rsplit("/", 1)[-1])
    for group in groups:
        dialect = group.dialect
        for path in (f for f in group.files if f.name == name and dialect is not None and dialect.unnamed_last):
            width = len(dialect.names)
            for line, record in records(path, dialect):
                if len(record) > width and record[width].strip():
                    return (f"{path.name} line {line:,} has a value ({record[width].strip()!r}) in the last column, "
                            "which the header leaves unnamed and the file's first lines leave empty; name the "
                            "column in the header, or fix the line")
    return f"{name} has a value in the last column, which the header leaves unnamed and the file's first lines leave empty"


def _bad_json_line(groups: list[FileGroup]) -> str | None:
    """The first line of the zone's JSON Lines files that is not one JSON object, as a sentence."""
    return next((bad for group in groups if group.fmt == "json" and not group.json_array
                 for path in group.files if (bad := bad_json_line(path))), None)


def _late_multiline(groups: list[FileGroup], label: str, raw: str) -> str | None:
    """When Spark read line by line a file whose quoted values span lines past the part detection reads
    (dialect.SAMPLE_BYTES), its malformed record is a value's last line, which no whole record equals:
    find that line and say the setting that reads such files."""
    for group in groups:
        dialect = group.dialect
        if group.fmt != "csv" or dialect is None or dialect.multiline or not dialect.quote or dialect.quote not in raw:
            continue
        for path in group.files:
            for number, text in enumerate(text_lines(path, dialect.encoding), 1):
                if text.rstrip("\r\n") == raw and text.count(dialect.quote) % 2:
                    zone = label.replace("/landing/", "/", 1)
                    return (f"{path.name} line {number:,} ({raw!r}) ends a quoted value begun on an earlier line: "
                            "quoted values span lines past the part of the file read to detect it; set multiline: true "
                            f"in the zone's csv settings (zones: {{{zone}: {{csv: {{multiline: true}}}}}})")
    return None
