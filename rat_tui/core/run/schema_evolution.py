"""Phase 3: bringing the table's schema in line with the run's result before writing.

Added columns are added (old rows read NULL); safe widenings (int → bigint, float →
double, decimal precision up) are applied; a column the result no longer has is kept and
written as NULL, with a warning; anything else fails the run, naming the column and both
types, unless the run is a full refresh, which rebuilds the table beside main (run/rebuild.py).
A narrower type whose values fit the table's (int into bigint, float into double, a decimal of
the same scale and less precision) is no change: the values are cast to the table's type.
Columns match by name, case-insensitively as Spark does (unless spark.sql.caseSensitive is set):
a result's `ID` is the table's `id`, and keeps the table's name. The result is written in the
table's column order, whatever its SELECT's.
Iceberg's schema is the table's, not the branch's: an additive change is recorded with the run's id
and put back when the run does not publish (lake/schema_change.py, settle_schema_changes).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..errors import RatError
from ..lake.schema_change import (
    SchemaChange,
    commit_change,
    forget,
    has_schema,
    pending_changes,
    put_back,
    refs_using,
)
from ..lake.table import IcebergTable, quote
from ..notes import RunNote
from .names import name_key

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType, StructType


@dataclass
class SchemaPlan:
    added: list[tuple[str, "DataType"]] = field(default_factory=list)
    widened: list[tuple[str, "DataType", "DataType"]] = field(default_factory=list)
    missing: list[tuple[str, "DataType"]] = field(default_factory=list)  # in the table, not in the result
    dropped: list[tuple[str, "DataType"]] = field(default_factory=list)  # missing ones a full refresh's rebuild drops
    incompatible: list[tuple[str, "DataType", "DataType"]] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)  # the table's once the plan is applied: added ones go last
    renamed: list[tuple[str, str]] = field(default_factory=list)  # (the result's name, the table's): only case differs
    narrower: list[tuple[str, "DataType"]] = field(default_factory=list)  # (column, the table's type): values fit it
    result_order: list[str] = field(default_factory=list)  # the result's columns, by the table's names
    # Struct columns the result writes another way (a field more, a field fewer, in another order): (column, the
    # struct the table holds once the plan is applied), and the fields that adds: (path, type), `meta.extra`
    restructured: list[tuple[str, "DataType"]] = field(default_factory=list)
    fields_added: list[tuple[tuple[str, ...], "DataType"]] = field(default_factory=list)
    case_sensitive: bool = False  # how the plan matched names, and the write matches a struct's fields

    def cast_to_the_table(self) -> "SchemaPlan":
        """The plan with each incompatible column written in the table's type: for a result of no rows (files that
        hold only their header), whose columns' types say nothing."""
        return replace(self, narrower=[*self.narrower, *((name, old) for name, old, _new in self.incompatible)],
                       incompatible=[])

    def run_notes(self, breaks: Mapping[str, str] | None = None) -> list[RunNote]:
        """What the write does to the table's columns, for the run's notes (under its write phase). `breaks`:
        for a column kept as NULL, what downstream reads it (lineage/null_columns.py)."""
        def note(kind: str, text: str, column: str | None = None) -> RunNote:
            return RunNote(kind, text, phase="iceberg_write", column=column)

        def breaking(column: str) -> str:
            return f"; {breaks[column]}" if breaks and column in breaks else ""

        notes = [note("schema", f"column {c} is written to {t} (the names differ only in case)") for c, t in self.renamed]
        notes += [note("schema", f"added column {c} {t.simpleString()}") for c, t in self.added]
        notes += [note("schema", f"added field {'.'.join(p)} {t.simpleString()}") for p, t in self.fields_added]
        notes += [note("schema", f"widened column {c} {a.simpleString()} → {b.simpleString()}") for c, a, b in self.widened]
        notes += [note("null_column", f"column {c} is no longer produced; kept and filled with NULL{breaking(c)}", c)
                  for c, _ in self.missing]
        notes += [note("schema", f"dropped column {c}: the full refresh rebuilt the table from its query{breaking(c)}")
                  for c, _ in self.dropped]
        notes += [note("schema", f"rebuilt column {c} {a.simpleString()} → {b.simpleString()}")
                  for c, a, b in self.incompatible]
        return notes

    def changes_the_table(self) -> bool:
        """Whether applying the plan is a schema commit (columns or fields added, columns widened)."""
        return bool(self.added or self.widened or self.fields_added)

    def dropped_and_added(self) -> tuple[dict[str, str], dict[str, str]]:
        """The columns the result no longer makes and those it adds, with their types: a rename is one of each."""
        return ({c: t.simpleString() for c, t in [*self.missing, *self.dropped]},
                {c: t.simpleString() for c, t in self.added})

    def matches_result(self) -> bool:
        """The table has exactly the result's columns, in its order, of its types (a widening makes them so)."""
        return not (self.missing or self.narrower or self.incompatible or self.restructured) \
            and self.columns == self.result_order

    def as_the_query_makes(self) -> "SchemaPlan":
        """The plan of a rebuild from the query: the table gets the result's columns, order and types; a column
        it no longer makes is dropped, not kept as NULL."""
        return replace(self, missing=[], dropped=self.missing, narrower=[], columns=list(self.result_order))


INTEGRAL_RANK = {"tinyint": 0, "smallint": 1, "int": 2, "bigint": 3}


def fits(narrow: "DataType", wide: "DataType") -> bool:
    """Every value of `narrow` is a value of `wide`, unchanged: the table may widen a column from
    one to the other (Iceberg's promotions; it has no tinyint or smallint), and a result of the
    narrower type is written into the wider column. Not date → timestamp: the instant a date
    becomes depends on the session's time zone, and Iceberg does not promote it."""
    from pyspark.sql.types import DecimalType, DoubleType, FloatType

    narrow_rank, wide_rank = INTEGRAL_RANK.get(narrow.simpleString()), INTEGRAL_RANK.get(wide.simpleString())
    if narrow_rank is not None and wide_rank is not None:
        return narrow_rank <= wide_rank
    if isinstance(narrow, FloatType) and isinstance(wide, (FloatType, DoubleType)):
        return True
    if isinstance(narrow, DecimalType) and isinstance(wide, DecimalType):
        return narrow.scale == wide.scale and narrow.precision <= wide.precision
    return False


INTEGRAL_DIGITS = {"tinyint": 3, "smallint": 5, "int": 10, "bigint": 19}


def casts_exactly(value: "DataType", column: "DataType") -> bool:
    """Every value of `value` is written into a column of `column` unchanged, though the table may not widen
    one into the other: an integer into a double (Iceberg promotes no int to a double), an integer into a
    decimal with digits enough. A landing file whose prices are all whole numbers reads them as int (a JSON
    file: as bigint); the table's column is a double. A bigint past 2^53 has no double: the cast fails the
    write on one (align)."""
    from pyspark.sql.types import DecimalType, DoubleType

    if fits(value, column):
        return True
    digits = INTEGRAL_DIGITS.get(value.simpleString())
    if digits is None:
        return False
    return isinstance(column, DoubleType) or (isinstance(column, DecimalType) and column.precision - column.scale >= digits)


DOUBLE_EXACT = 2 ** 53  # the largest magnitude below which every whole number is a double


def _cast(column: "Column", name: str, kind: "DataType", value: "DataType") -> "Column":
    """`column` in the table's type; a bigint into a double fails the write, naming the value, past 2^53."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import DoubleType

    cast = column.cast(kind)
    if not (isinstance(kind, DoubleType) and value.simpleString() == "bigint"):
        return cast
    # No cast in the query helps: a rebuild reads the zone's files together, as doubles if any holds a fraction
    refusal = F.raise_error(F.concat(F.lit(f"column {name} holds "), column.cast("string"), F.lit(
        f", a whole number past 2^53 that no double holds exactly, and the table's {name} is a double: fix the "
        "value, or have the files send such numbers as text (in quotes) and cast them to a DECIMAL in the query")))
    return F.when(F.abs(column) > DOUBLE_EXACT, refusal).otherwise(cast)


def plan_schema(table: "StructType", result: "StructType", case_sensitive: bool = False) -> SchemaPlan:
    """What writing `result` into a table of schema `table` changes. `case_sensitive`: the session's
    spark.sql.caseSensitive; when false (Spark's default) names differing only in case are one column."""
    plan = SchemaPlan(case_sensitive=case_sensitive)
    have = {f.name: f.dataType for f in table.fields}
    key = name_key(case_sensitive)
    by_key = {key(name): name for name in have}
    matched = set()
    for f in result.fields:
        name = by_key.get(key(f.name))
        if name is None:
            plan.added.append((f.name, f.dataType))
            continue
        matched.add(name)
        if name != f.name:
            plan.renamed.append((f.name, name))
        old = have[name]
        if old.simpleString() == f.dataType.simpleString():  # ignores nested nullability
            continue
        merged = merged_struct(old, f.dataType, key)
        if merged is not None:
            plan.restructured.append((name, merged[0]))
            plan.fields_added += [((name, *path), kind) for path, kind in merged[1]]
            continue
        if fits(old, f.dataType):
            plan.widened.append((name, old, f.dataType))
        elif casts_exactly(f.dataType, old):
            plan.narrower.append((name, old))
        else:
            plan.incompatible.append((name, old, f.dataType))
    plan.missing = [(name, kind) for name, kind in have.items() if name not in matched]
    plan.columns = [*have, *(name for name, _ in plan.added)]  # Iceberg adds a top-level column last
    plan.result_order = [by_key.get(key(f.name), f.name) for f in result.fields]
    return plan


def apply_plan(table: IcebergTable, plan: SchemaPlan, schema_id: int, run_id: str,
               remedy: Callable[[str, str, str], str | None] | None = None) -> int:
    """Change the table's schema (a metadata commit; the data on main stays as it is); returns the
    schema id the run writes with.

    Only additive changes: a type change needs a full refresh, which rebuilds beside main (run/rebuild.py).
    The change is recorded on the table with the run's id, so it can be put back if the run does not
    publish (settle_schema_changes), even after a crash. `remedy(column, old, new)`: the way out of a
    type change when the run knows a better one than a full refresh (landing_steps.type_change_remedy).
    """
    if plan.incompatible:
        name, old, new = plan.incompatible[0]
        way_out = (remedy and remedy(name, old.simpleString(), new.simpleString())) or (
            f"fix the query, or run {table.ref.fqn} with --full-refresh to rebuild the table")
        raise RatError(f"column {name} changes type from {old.simpleString()} to {new.simpleString()}, which is "
                       f"not a safe widening; {way_out}")
    if not plan.changes_the_table():
        return schema_id
    return commit_change(table.spark, table.loaded(), run_id, plan.added,
                         [(name, new) for name, _old, new in plan.widened], plan.fields_added).after


def _decide(java_table, change: SchemaChange, live_runs: set[str]) -> str:
    """'wait', 'keep' (drop the record, keep the columns) or 'put back', for the newest recorded change."""
    if change.run_id in live_runs:
        return "wait"
    using = refs_using(java_table, change)
    if "main" in using or java_table.schema().schemaId() != change.after or not has_schema(java_table, change.before):
        # data written with it reached main, or the schema moved past it: putting it back would
        # take another run's columns (or rows) with it
        return "keep"
    return "wait" if using else "put back"  # a branch still writing with it: that run's end settles it


def settle_schema_changes(table: IcebergTable, live_runs: set[str]) -> list[str]:
    """Put back the schema changes of runs that ended without publishing (`live_runs`: runs of this
    pipeline still queued or running); returns what was done.

    Newest change first, one commit each, each on a freshly loaded table: a commit that lost a race
    to another is decided again, and a change under a newer one waits for it.
    """
    done: list[str] = []
    for _attempt in range(8):
        java_table = table.loaded()
        changes = pending_changes(table.spark, java_table) if java_table is not None else []
        if not changes:
            return done
        change = changes[0]
        action = _decide(java_table, change, live_runs)
        if action == "wait":
            return done
        try:
            if action == "keep":
                forget(java_table, change)
            else:
                put_back(table.spark, java_table, change)
        except Exception as exc:
            if "CommitFailedException" not in str(exc):
                raise
            continue
        done.append(f"{'kept' if action == 'keep' else 'put back'} the schema change run {change.run_id} "
                    f"made to {table.ref.fqn}")
    return done


def merged_struct(old: "DataType", new: "DataType", key: Callable[[str], str]
                  ) -> tuple["StructType", list[tuple[tuple[str, ...], "DataType"]]] | None:
    """The struct a table's struct column `old` becomes to hold the result's `new`: its fields, each merged,
    then the fields only `new` has (Iceberg adds a field last, as a column), with those added fields' paths.
    None when either is no struct, or a field both have changes type otherwise (a struct inside merged so)."""
    from pyspark.sql.types import StructField, StructType

    if not isinstance(old, StructType) or not isinstance(new, StructType):
        return None
    theirs = {key(f.name): f for f in new.fields}
    fields, added = [], []
    for mine in old.fields:
        other = theirs.pop(key(mine.name), None)
        if other is None or other.dataType.simpleString() == mine.dataType.simpleString() or casts_exactly(
                other.dataType, mine.dataType):
            fields.append(mine)
            continue
        inner = merged_struct(mine.dataType, other.dataType, key)
        if inner is None:
            return None
        fields.append(StructField(mine.name, inner[0], True))
        added += [((mine.name, *path), kind) for path, kind in inner[1]]
    for other in theirs.values():
        fields.append(StructField(other.name, other.dataType, True))
        added.append(((other.name,), other.dataType))
    return StructType(fields), added


def _restructured(column: "Column", have: "DataType", want: "DataType", key: Callable[[str], str]) -> "Column":
    """`column`, a struct of type `have`, as the struct `want`: each field by name (as `key` matches names, as
    merged_struct did), cast where its type differs, NULL where `have` lacks it; a NULL struct stays NULL."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    assert isinstance(have, StructType) and isinstance(want, StructType)
    theirs = {key(f.name): f for f in have.fields}
    parts = []
    for wanted in want.fields:
        source = theirs.get(key(wanted.name))
        if source is None:
            value = F.lit(None).cast(wanted.dataType)
        elif source.dataType.simpleString() == wanted.dataType.simpleString():
            value = column.getField(source.name)
        elif isinstance(wanted.dataType, StructType) and isinstance(source.dataType, StructType):
            value = _restructured(column.getField(source.name), source.dataType, wanted.dataType, key)
        else:
            value = column.getField(source.name).cast(wanted.dataType)
        parts.append(value.alias(wanted.name))
    return F.when(column.isNull(), F.lit(None).cast(want)).otherwise(F.struct(*parts))


def align(result: "DataFrame", plan: SchemaPlan) -> "DataFrame":
    """The result as the table holds it: each column under the table's name and of its type, a column
    it no longer produces filled with NULL, and its columns in the table's order (the runner's own,
    such as ORDER_COLUMN, after them).

    Writes to tables that accept any schema (append_only, full_refresh, snapshot: for mergeSchema)
    match columns by position, and Iceberg refuses a SELECT that lists them in another order ("code
    is out of order, before id"); matched by name here, each value lands in its own column. Merges
    match by name, exactly: an `ID` left as it is would not be the key `id`.
    """
    from pyspark.sql import functions as F

    renamed = dict(plan.renamed)
    named = {renamed.get(c, c): c for c in result.columns}  # the table's name -> the result's
    missing = dict(plan.missing)
    known = set(plan.columns)
    ordered = [c for c in plan.columns if c in named or c in missing] + [c for c in named if c not in known]
    if ordered == result.columns and not plan.narrower and not plan.restructured:
        return result  # no Column made: each is a JVM round trip, and a warm run writes as it is
    columns = {name: F.col(quote(source)) for name, source in named.items()}
    types = {renamed.get(f.name, f.name): f.dataType for f in result.schema.fields}
    for name, kind in plan.narrower:
        columns[name] = _cast(columns[name], name, kind, types[name])
    for name, kind in plan.restructured:
        columns[name] = _restructured(columns[name], types[name], kind, name_key(plan.case_sensitive))
    for name, kind in missing.items():
        columns[name] = F.lit(None).cast(kind)
    return result.select(*(columns[c].alias(c) for c in ordered))
