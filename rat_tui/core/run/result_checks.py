"""What a pipeline's result must be before any table can hold it, said in one sentence each.

Spark would otherwise fail deep in the write with its own words (COLUMN_ALREADY_EXISTS,
"Not a supported type: void") or, for the product's internal column, silently drop it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import RatError
from ..project.pipeline_config import PipelineConfig

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

RESERVED_PREFIX = "__rat_"  # the runner's own columns (strategies.ORDER_COLUMN)


def check_result(df: "DataFrame", config: PipelineConfig, relpath: str) -> None:
    from pyspark.sql.types import NullType

    seen: set[str] = set()
    for field in df.schema.fields:
        name = field.name
        if name.lower() in seen:  # Spark resolves names case-insensitively
            raise RatError(f"the result has two columns named '{name}'; give each column its own name", relpath)
        seen.add(name.lower())
        if name.lower().startswith(RESERVED_PREFIX):
            raise RatError(f"column '{name}' has a name reserved for the product's own columns ({RESERVED_PREFIX}…); "
                           "rename it", relpath)
        if isinstance(field.dataType, NullType):
            raise RatError(f"column '{name}' has no type (it is NULL in every row); cast it, "
                           f"e.g. CAST(NULL AS STRING) AS {name}", relpath)
    keys = [("unique_key", k) for k in config.unique_key]
    keys += [(role, getattr(config, role)) for role in ("partition_column", "watermark_column") if getattr(config, role)]
    for role, column in keys:
        if "." in column:
            raise RatError(f"{role} '{column}' has a dot in its name, which Spark reads as a field of a struct; "
                           "rename the column", relpath)
