"""How Spark reads landing files: one set of reader options for runs and for typed-twin conversions."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType


def read_files(spark: "SparkSession", fmt: str, paths: list[str], schema: "StructType | None" = None) -> "DataFrame":
    """Read landing files given as URIs (local `file:` copies, or `s3a:` objects in direct mode).

    CSV with a known `schema` (landing/schema.py samples it) skips Spark's inference pass.
    """
    reader = spark.read
    if fmt == "csv":
        # FAILFAST: a ragged row, a broken quote or a value that does not fit is an error, not a silent NULL.
        reader = reader.options(header=True, mode="FAILFAST", encoding="UTF-8")
        return (reader.schema(schema) if schema is not None else reader.option("inferSchema", True)).csv(paths)
    if fmt == "json":
        return reader.options(mode="FAILFAST").json(paths)
    return reader.parquet(*paths)
