"""How Spark reads landing files: one set of reader options for runs, typed-twin conversions, widening
and quarantine, and the groups of files one Spark reader reads."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import RatError
from .dialect import Dialect
from .numbers import as_read, converted, typed
from .zone_settings import ZoneReadSettings

# What a value in the column of a delimiter ending every line fails the read with (widening.explain)
UNNAMED_VALUE = "rat: a value in the unnamed last column of "

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType


@dataclass
class FileGroup:
    """Files one Spark reader reads: one format, and for text one dialect and header."""

    fmt: str
    files: list[Path]
    dialect: Dialect | None = None
    json_array: bool = False
    schema: "StructType | None" = None  # what text files are read with: sampled, pinned, or widened
    full_pass: bool = False  # the schema was inferred over every byte
    twins: list[Any] | None = None  # twins.Twin of every file, when the group reads them

    def names(self) -> str:
        shown = ", ".join(f.name for f in self.files[:3])
        return shown + (f" and {len(self.files) - 3} more" if len(self.files) > 3 else "")


def csv_frame(spark: "SparkSession", uris: list[str], dialect: Dialect, schema: "StructType", mode: str,
              pinned: frozenset[str] = frozenset(), **options: str) -> "DataFrame":
    """Text files read with their dialect and a known schema (FAILFAST: a value that does not fit is an
    error, never a silent NULL). Numbers are read as text and turned into the schema's numbers (numbers.py),
    which refuses one with a leading zero, except in a column the zone pins (`pinned`). PERMISSIVE (the
    quarantine's) leaves plain number columns to Spark's parser, whose misfits are the rows it sets aside."""
    list_locally(spark, uris)
    every = pinned if mode == "FAILFAST" else None
    df = spark.read.options(**dialect.spark_options(), mode=mode, **options).schema(
        as_read(schema, dialect.numbers, every)).csv(uris)
    return converted(_without_unnamed_last(df, dialect, schema), schema, dialect.numbers, every)


def _without_unnamed_last(df: "DataFrame", dialect: Dialect, schema: "StructType") -> "DataFrame":
    """The file's rows without the column a delimiter ending every line adds (`id;name;`), which detection
    found empty in the sample; a value in it past the sample fails the read (a row dropped silently, or a
    column of one value, would not be the file's table): widening.explain names its file and line."""
    from pyspark.sql import functions as F

    if not dialect.unnamed_last or len(schema.fields) <= len(dialect.names):
        return df
    name = schema.fields[len(dialect.names)].name
    value = F.col(f"`{name}`")
    return df.where(value.isNull() | F.raise_error(F.concat(F.lit(UNNAMED_VALUE), F.input_file_name()))
                    .isNull()).drop(name)


def list_locally(spark: "SparkSession", uris: list[str]) -> None:
    """Local files are listed by the driver: past 32 paths Spark lists them in a job of one task a path
    (500 small files: 3.3 s to set up the read, against 0.2 s listed here)."""
    if len(uris) > 32 and all(u.startswith("file:") for u in uris):
        spark.conf.set("spark.sql.sources.parallelPartitionDiscovery.threshold", str(len(uris) + 1))


def named(schema: "StructType", dialect: Dialect | None) -> "StructType":
    """A header-less file's columns get the zone's `columns:` names (Spark names them `_c0`, `_c1`, …)."""
    from pyspark.sql.types import StructField, StructType

    if dialect is None or dialect.header or len(dialect.names) != len(schema.fields):
        return schema
    return StructType([StructField(n, f.dataType, f.nullable) for n, f in zip(dialect.names, schema.fields)])


def typed_schema(inferred: "StructType", dialect: Dialect | None, settings: ZoneReadSettings) -> "StructType":
    """The schema a group of text files is read with: Spark's inferred types, named, with the zone's number
    formats and identifiers (numbers.py), and `schema:` of the zone settings over them."""
    schema = named(inferred, dialect)
    if dialect is not None:
        schema = typed(schema, dialect.numbers, dialect.text_columns)
    return pin_types(schema, settings)


def pin_types(schema: "StructType", settings: ZoneReadSettings) -> "StructType":
    """`schema:` of the zone settings over the inferred types."""
    from pyspark.sql.types import StructField, StructType, _parse_datatype_string

    if not settings.types:
        return schema
    fields = []
    for f in schema.fields:
        wanted = settings.types.get(f.name)
        if wanted is None:
            fields.append(f)
            continue
        try:
            fields.append(StructField(f.name, _parse_datatype_string(wanted), True))
        except Exception:
            raise RatError(f"rat.yaml {settings.key('schema')}.{f.name}: {wanted!r} is not a Spark SQL type "
                           "(e.g. int, bigint, double, decimal(12,2), date, timestamp, string)") from None
    return StructType(fields)
