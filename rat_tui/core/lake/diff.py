"""What changed between two snapshots of one table, by key: rows added, removed and changed, how
many rows changed in each column, schema changes, and a sample of changed rows old beside new.

Rows are matched by the key columns (NULL matches NULL). Without a key a row is matched by all
its values, so an update is one row removed and one added. Only the rows the two snapshots do
not share are compared when their files allow it (changed_files.py); else the whole snapshots.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import RatError
from ..values import json_value
from .changed_files import changed_sides
from .metadata import column_changes

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from .table import IcebergTable

SAMPLE_ROWS = 20


@dataclass
class TableDiff:
    added: int = 0
    removed: int = 0
    changed: int = 0
    columns: dict[str, int] = field(default_factory=dict)  # column -> rows whose value changed
    schema_changes: list[dict] = field(default_factory=list)
    sample: list[dict] = field(default_factory=list)  # {change, old: {col: value} | None, new: ...}
    key: list[str] = field(default_factory=list)  # [] = rows matched by every column
    old_rows: int = 0  # rows the older snapshot had (what a changed fraction is of)
    read: str = "changed files"  # or "whole table": what the comparison had to read

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, data: dict) -> "TableDiff":
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


def _schema_columns(table, snapshot_id: int) -> dict[str, str]:
    snapshot = table.snapshot(int(snapshot_id))
    schema = table.schemas().get(snapshot.schemaId()) if snapshot.schemaId() is not None else table.schema()
    return {column.name(): str(column.type()) for column in schema.columns()}


def _live_rows(table, snapshot_id: int) -> int:
    """Rows a reader sees, as the snapshot's summary counts them (a position deleted twice counts twice)."""
    summary = table.snapshot(int(snapshot_id)).summary()
    return max(0, int(summary.get("total-records") or 0) - int(summary.get("total-position-deletes") or 0))


def table_diff(target: "IcebergTable", old_id: int | None, new_id: int, key: list[str] | None = None,
               sample_rows: int = SAMPLE_ROWS) -> TableDiff:
    """`old_id` None: the table did not exist (or was empty) before; every row of `new_id` is added."""
    table = target.loaded()
    if table is None:
        raise RatError(f"table {target.ref.fqn} does not exist")
    for snapshot_id in (old_id, new_id):
        if snapshot_id is not None and table.snapshot(int(snapshot_id)) is None:
            raise RatError(f"table {target.ref.fqn} has no snapshot {snapshot_id}")
    new_columns = _schema_columns(table, new_id)
    old_columns = _schema_columns(table, old_id) if old_id is not None else new_columns
    common = [name for name in new_columns if name in old_columns]
    # A column the new snapshot adds is compared too, NULL on the old side: a run that filled it changed
    # those rows (a backfill that filled a new column for 4 rows said "~0 changed").
    compared = list(new_columns) if old_id is not None else common
    key = list(key or [])
    missing = [column for column in key if column not in common]
    if missing:
        raise RatError(f"cannot diff {target.ref.fqn} by key {', '.join(key)}: no column {', '.join(missing)} "
                       "in both snapshots")
    result = TableDiff(key=key, schema_changes=column_changes(old_columns, new_columns) if old_id is not None else [],
                       old_rows=_live_rows(table, old_id) if old_id is not None else 0)
    spark = target.spark
    retyped = {c for c in common if old_columns[c] != new_columns[c]}
    if old_id is None:
        new = spark.sql(f"SELECT * FROM {target.ident} VERSION AS OF {int(new_id)}").select(*common)
        _compare(result, new.limit(0), new, common, retyped, sample_rows)
        return result
    with changed_sides(spark, table, target.ident, old_id, new_id, compared) as sides:
        if sides is not None:  # read with the table's schema: an added column is NULL in the old files
            # The rows compared are the change, not the table: one shuffle partition per core
            # (the session's 8 cost a third of a 1% merge's diff on 2 cores, bench/review.py).
            with _shuffle_partitions(spark, spark.sparkContext.defaultParallelism):
                _compare(result, sides.old_only, sides.new_only, compared, retyped, sample_rows)
            return result
    result.read = "whole table"
    from pyspark.sql import functions as F

    old = spark.sql(f"SELECT * FROM {target.ident} VERSION AS OF {int(old_id)}").select(
        *(c if c in old_columns else F.lit(None).alias(c) for c in compared))  # the old snapshot's own schema
    new = spark.sql(f"SELECT * FROM {target.ident} VERSION AS OF {int(new_id)}").select(*compared)
    _compare(result, old, new, compared, retyped, sample_rows)
    return result


@contextlib.contextmanager
def _shuffle_partitions(spark: "SparkSession", partitions: int) -> Iterator[None]:
    """Set on the caller's own session (a run's, or the diff command's isolated one)."""
    before = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", str(max(1, partitions)))
    try:
        yield
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", before)


def _compare(result: TableDiff, old: "DataFrame", new: "DataFrame", columns: list[str], retyped: set[str],
             sample_rows: int) -> None:
    from pyspark.sql import functions as F

    # A retyped column is compared as text: Spark may refuse to compare, say, a string with an int.
    old, new = (df.select(*[F.col(c).cast("string").alias(c) if c in retyped else F.col(c) for c in columns])
                for df in (old, new))

    def side(df: "DataFrame", prefix: str) -> "DataFrame":
        return df.select(*[F.col(c).alias(f"{prefix}{i}") for i, c in enumerate(columns)],
                         F.lit(True).alias(f"{prefix}_here"))

    if not result.key:
        _compare_whole_rows(result, old, new, columns, sample_rows)
        return
    o, n = side(old, "__o"), side(new, "__n")
    index = {c: i for i, c in enumerate(columns)}
    on = [o[f"__o{index[k]}"].eqNullSafe(n[f"__n{index[k]}"]) for k in result.key]
    joined = o.join(n, on, "full_outer")
    values = [c for c in columns if c not in result.key]
    differs = {c: ~F.col(f"__o{index[c]}").eqNullSafe(F.col(f"__n{index[c]}")) for c in values}
    any_differs = F.lit(False)
    for condition in differs.values():
        any_differs = any_differs | condition
    change = (F.when(F.col("__o_here").isNull(), "added").when(F.col("__n_here").isNull(), "removed")
              .when(any_differs, "changed"))
    diffs = joined.select("*", change.alias("__change")).where(F.col("__change").isNotNull()).persist()
    try:
        counts = diffs.agg(
            *[F.sum(F.when(F.col("__change") == kind, 1).otherwise(0)).alias(kind) for kind in ("added", "removed", "changed")],
            *[F.sum(F.when((F.col("__change") == "changed") & condition, 1).otherwise(0)).alias(f"__c{i}")
              for i, condition in enumerate(differs.values())]).collect()[0]
        result.added, result.removed, result.changed = (int(counts[k] or 0) for k in ("added", "removed", "changed"))
        result.columns = {c: int(counts[f"__c{i}"] or 0) for i, c in enumerate(values)}
        # Changed rows first (the ones worth reading side by side), then removed, then added.
        order = F.when(F.col("__change") == "changed", 0).when(F.col("__change") == "removed", 1).otherwise(2)
        rows = diffs.orderBy(order, *[F.col(f"__o{index[k]}") for k in result.key],
                             *[F.col(f"__n{index[k]}") for k in result.key]).limit(sample_rows).collect()
    finally:
        diffs.unpersist()
    result.sample = [_sample_row(row, columns) for row in rows]


def _sample_row(row, columns: list[str]) -> dict:
    def values(prefix: str) -> dict | None:
        if row[f"{prefix}_here"] is None:
            return None
        return {c: json_value(row[f"{prefix}{i}"]) for i, c in enumerate(columns)}

    return {"change": row["__change"], "old": values("__o"), "new": values("__n")}


def _compare_whole_rows(result: TableDiff, old: "DataFrame", new: "DataFrame", columns: list[str],
                        sample_rows: int) -> None:
    """No key: rows match only when every value does; a changed row is one removed and one added."""
    removed, added = old.exceptAll(new).persist(), new.exceptAll(old).persist()
    try:
        result.removed, result.added = removed.count(), added.count()
        half = max(1, sample_rows // 2)
        result.sample = (
            [{"change": "removed", "old": {c: json_value(v) for c, v in zip(columns, r)}, "new": None}
             for r in removed.limit(half).collect()]
            + [{"change": "added", "old": None, "new": {c: json_value(v) for c, v in zip(columns, r)}}
               for r in added.limit(sample_rows - half).collect()])
    finally:
        removed.unpersist()
        added.unpersist()
