"""Phase 3: bringing the table's schema in line with the run's result before writing.

Added columns are added (old rows read NULL); safe widenings (int → bigint, float →
double, decimal precision up) are applied; a column the result no longer has is kept and
written as NULL, with a warning; anything else fails the run, naming the column and both
types, unless the run is a full refresh, which rebuilds the table beside main (run/rebuild.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import RatError
from ..lake.table import IcebergTable, quote

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.types import DataType, StructType


@dataclass
class SchemaPlan:
    added: list[tuple[str, "DataType"]] = field(default_factory=list)
    widened: list[tuple[str, "DataType", "DataType"]] = field(default_factory=list)
    missing: list[tuple[str, "DataType"]] = field(default_factory=list)  # in the table, not in the result
    incompatible: list[tuple[str, "DataType", "DataType"]] = field(default_factory=list)

    def notes(self) -> list[str]:
        notes = [f"added column {c} {t.simpleString()}" for c, t in self.added]
        notes += [f"widened column {c} {a.simpleString()} → {b.simpleString()}" for c, a, b in self.widened]
        notes += [f"column {c} is no longer produced; kept and filled with NULL" for c, _ in self.missing]
        notes += [f"rebuilt column {c} {a.simpleString()} → {b.simpleString()}" for c, a, b in self.incompatible]
        return notes


def is_widening(old: "DataType", new: "DataType") -> bool:
    from pyspark.sql.types import (
        DecimalType,
        DoubleType,
        FloatType,
        IntegerType,
        LongType,
    )

    if isinstance(old, IntegerType) and isinstance(new, LongType):
        return True
    if isinstance(old, FloatType) and isinstance(new, DoubleType):
        return True
    if isinstance(old, DecimalType) and isinstance(new, DecimalType):
        return new.scale == old.scale and new.precision > old.precision
    return False


def plan_schema(table: "StructType", result: "StructType") -> SchemaPlan:
    plan = SchemaPlan()
    have = {f.name: f.dataType for f in table.fields}
    for f in result.fields:
        old = have.get(f.name)
        if old is None:
            plan.added.append((f.name, f.dataType))
        elif old.simpleString() != f.dataType.simpleString():  # ignores nested nullability
            (plan.widened if is_widening(old, f.dataType) else plan.incompatible).append((f.name, old, f.dataType))
    wanted = {f.name for f in result.fields}
    plan.missing = [(name, kind) for name, kind in have.items() if name not in wanted]
    return plan


def apply_plan(table: IcebergTable, plan: SchemaPlan) -> None:
    """Change the table's schema (a metadata commit; the data on main stays as it is).

    Only additive changes: a type change needs a full refresh, which rebuilds beside main (run/rebuild.py).
    """
    if plan.incompatible:
        name, old, new = plan.incompatible[0]
        raise RatError(
            f"column {name} changes type from {old.simpleString()} to {new.simpleString()}, which is not a safe "
            f"widening; fix the query, or run {table.ref.fqn} with --full-refresh to rebuild the table")
    sql = table.spark.sql
    for name, kind in plan.added:
        sql(f"ALTER TABLE {table.ident} ADD COLUMN {quote(name)} {kind.simpleString()}")
    for name, _old, new in plan.widened:
        sql(f"ALTER TABLE {table.ident} ALTER COLUMN {quote(name)} TYPE {new.simpleString()}")


def fill_missing(result: "DataFrame", plan: SchemaPlan) -> "DataFrame":
    from pyspark.sql import functions as F

    for name, kind in plan.missing:
        result = result.withColumn(name, F.lit(None).cast(kind))
    return result
