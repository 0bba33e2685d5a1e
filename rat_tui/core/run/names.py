"""How Spark matches column names: ignoring case, unless the session sets spark.sql.caseSensitive.

One rule for every comparison the runner makes between names a user wrote (a result's columns, the
unique key) and the names a table has, so `ID` and `id` are one column everywhere or nowhere.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def case_sensitive(spark: "SparkSession") -> bool:
    return spark.conf.get("spark.sql.caseSensitive", "false").lower() == "true"


def name_key(sensitive: bool) -> Callable[[str], str]:
    """What two names must share to be one column."""
    return (lambda name: name) if sensitive else str.lower


def spelled(wanted: tuple[str, ...] | list[str], present: list[str], sensitive: bool) -> list[str]:
    """Each of `wanted` as `present` spells it (`ID` → `id`); a name `present` lacks stays as written."""
    key = name_key(sensitive)
    by_key = {key(name): name for name in present}
    return [by_key.get(key(name), name) for name in wanted]
