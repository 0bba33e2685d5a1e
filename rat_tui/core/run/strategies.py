"""Phase 3: how each merge strategy writes the run's result onto the run's branch.

Every strategy works in Spark on the branch identifier, so its cost follows the new data:
merges touch only matching keys (merge-on-read tables), never rewrite the whole table.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from ..errors import RatError
from ..lake.history import STRATEGY_PROPERTY
from ..lake.jvm_names import literal
from ..lake.metadata import RUN_ID_PROPERTY
from ..lake.table import IcebergTable, quote, sql_string
from ..notes import RunNote
from ..project.pipeline_config import MergeStrategy, PipelineConfig
from .names import case_sensitive, spelled

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import StructType

# Added by the runner before the result is materialised: the query's output order, after the arrival of the
# landing file a row came from (output_order), so "last row wins" de-duplication is deterministic.
ORDER_COLUMN = "__rat_order"
BROADCAST_MAX_ROWS = 1_000_000
LISTED_KEYS_MAX = 1_000  # a batch of this many rows or fewer names its keys in its DELETE (listed_keys)
BITMAP_MAX_SPAN = 1 << 27  # 4,096 bitmaps of 4 KB at most per task: 16 MB
UNIQUE_KEY_PROPERTY = "rat.unique-key"
MERGING = (MergeStrategy.INCREMENTAL, MergeStrategy.DELETE_INSERT, MergeStrategy.SCD2)
# Written straight from the query: the result is read once, so it is neither materialised nor
# counted first (the count comes from the snapshot summary). The others read it twice.
WRITTEN_ONCE = (MergeStrategy.FULL_REFRESH, MergeStrategy.APPEND_ONLY)
# On an empty target these too write straight from the query, then check the keys they wrote (first_load).
KEYED_FIRST_LOAD = (MergeStrategy.INCREMENTAL, MergeStrategy.DELETE_INSERT)


INTERVALS = "intervals"  # the strategy label of a partitioned pipeline's write


def run_strategy(config: PipelineConfig, full_refresh: bool) -> str:
    """What a run did to the table: its pipeline's strategy, or a full refresh when asked for one."""
    return MergeStrategy.FULL_REFRESH.value if full_refresh else config.merge_strategy.value


def writes_once(config: PipelineConfig, target_empty: bool) -> bool:
    """Whether the query runs only inside the write: neither materialised nor counted before it."""
    return config.merge_strategy in WRITTEN_ONCE or (target_empty and config.merge_strategy in KEYED_FIRST_LOAD)


@dataclass
class WriteJob:
    table: IcebergTable
    branch: str
    new: "DataFrame"  # includes ORDER_COLUMN, unless the query runs only in the write (writes_once)
    config: PipelineConfig
    run_id: str
    run_started_at: str
    rows_in_result: int | None  # None when not counted (writes_once)
    arrival: "Column | None" = None  # a keyed pipeline's rows' landing files' places (RunContext.arrival)
    target_empty: bool = False  # a first load (or a full refresh): nothing to merge with
    full_refresh: bool = False  # a --full-refresh run of a pipeline of any strategy
    intervals: bool = False  # a partitioned pipeline's run: it replaces its intervals' rows (run/intervals.py)
    views: list[str] = field(default_factory=list)  # temp views made for the merge; dropped after the run
    notes: list[RunNote] = field(default_factory=list)  # what the write did to the rows, for the run's notes

    @property
    def target(self) -> str:
        return self.table.branch_ident(self.branch)

    @property
    def rows(self) -> "DataFrame":
        """The result as the pipeline produced it. Only a materialised (counted) result has ORDER_COLUMN:
        dropping a column that is not there still makes and analyses a new plan in the JVM."""
        return self.new if self.rows_in_result is None else self.new.drop(ORDER_COLUMN)

    @cached_property
    def keys(self) -> tuple[str, ...]:
        """The unique key as the result spells its columns (check_present)."""
        return check_present(self, self.config.unique_key, "unique_key")

    @property
    def strategy(self) -> str:
        """What the table's history calls the write: `intervals` for a partitioned pipeline's interval replace."""
        return INTERVALS if self.intervals and not self.full_refresh else run_strategy(self.config, self.full_refresh)

    def writer(self, df: "DataFrame"):  # -> DataFrameWriterV2
        """A writer onto the branch that records the run id and strategy in the snapshot summary
        (the table's history groups snapshots by run and counts updates by them: lake.history)."""
        return (df.writeTo(self.target).option(f"snapshot-property.{RUN_ID_PROPERTY}", self.run_id)
                .option(f"snapshot-property.{STRATEGY_PROPERTY}", self.strategy))

    def view(self, df: "DataFrame", role: str) -> str:
        name = f"rat_{role}_{self.run_id}"
        df.createOrReplaceTempView(name)
        self.views.append(name)
        return quote(name)

    def drop_views(self) -> None:
        """The session lives on: a view left behind would keep its checkpointed rows alive."""
        for name in self.views:
            self.table.spark.catalog.dropTempView(name)
        self.views.clear()

    def sql(self, statement: str) -> None:
        self.table.spark.sql(statement)


def result_columns(job: WriteJob) -> list[str]:
    return [c for c in job.new.columns if c != ORDER_COLUMN]


def check_present(job: WriteJob, columns: tuple[str, ...], role: str) -> tuple[str, ...]:
    """`columns` as the result spells them: Spark resolves names ignoring case unless the session sets
    spark.sql.caseSensitive, so `@unique_key: ID` is the result's `id` (and the table's: the result
    carries the table's names by now). A RatError names a column the result lacks."""
    present = result_columns(job)
    found = spelled(columns, present, case_sensitive(job.table.spark))
    for column, name in zip(columns, found):
        if name not in present:
            raise RatError(f"{role} column '{column}' is not in the pipeline's result (columns: {', '.join(present)})")
    return tuple(found)


def any_null(columns: tuple[str, ...]):  # -> Column
    from pyspark.sql import functions as F

    condition = None
    for column in columns:
        is_null = F.col(column).isNull()
        condition = is_null if condition is None else condition | is_null
    return condition


def null_key_error(nulls: int, columns: tuple[str, ...], role: str) -> RatError:
    return RatError(f"{nulls} row(s) of the result have NULL in the {role} column(s) {', '.join(columns)}")


def check_columns(job: WriteJob, columns: tuple[str, ...], role: str) -> tuple[str, ...]:
    """Each key column exists in the result and holds no NULL; returns them as the result spells them."""
    columns = check_present(job, columns, role)
    nulls = job.new.filter(any_null(columns)).count()
    if nulls:
        raise null_key_error(nulls, columns, role)
    return columns


def last_row_per_key(job: WriteJob) -> tuple["DataFrame", bool, list | None]:
    """The batch with one row per key, the last one; whether that dropped any; and the batch's keys
    themselves when they are few (listed_keys). A RatError when a key column is missing or NULL. One
    aggregate over the keys counts both the NULLs and the distinct keys (two passes cost a unit test's
    merge a fifth of its time), or collects the listed keys; a batch without duplicate keys is
    returned as it is: no window, no second materialisation."""
    from pyspark.sql import functions as F

    keys = job.keys
    listed = listed_keys(job)
    nulls, distinct = job.new.select(F.count_if(any_null(keys)),
                                     F.collect_set(keys[0]) if listed else F.count_distinct(*keys)).first()
    if nulls:
        raise null_key_error(nulls, keys, "unique_key")
    values = list(distinct) if listed else None
    if values is not None:
        distinct = len(values)
    if distinct == job.rows_in_result:
        return job.rows, False, values
    note_repeated_keys(job, (job.rows_in_result or 0) - distinct, job.new.select(*keys))
    return keep_last_per_key(job.new, keys), True, values


REPEATED_KEYS_SHOWN = 3


def note_repeated_keys(job: WriteJob, repeated: int, keys: "DataFrame") -> None:
    """Rows of the batch whose key another row has: only the last of each was written. Said, since "last" is the
    arrival of landing files (output_order), or the query's output order, which without an ORDER BY is the order
    its rows were read in; with the most repeated keys (`keys`: the batch's key columns), so a user can find the
    rows (a query only when keys repeat)."""
    from pyspark.sql import functions as F

    most = (keys.groupBy(*job.keys).agg(F.count(F.lit(1)).alias("__rat_rows")).filter("__rat_rows > 1")
            .orderBy(F.desc("__rat_rows"), *job.keys).limit(REPEATED_KEYS_SHOWN).collect())
    shown = ", ".join(", ".join(f"{name} {row[name]}" for name in job.keys) + f": {row['__rat_rows']} rows"
                      for row in most)
    last = ("the last row of each key was written: of rows read straight from landing files, the row of the file "
            "that arrived last (by modification time, then name) and its later line; of others, the last in the "
            "query's output order (order by a column such as updated_at to choose)" if job.arrival is not None else
            "the last row of each key in the query's output order was written (without an ORDER BY in the query, the "
            "order its rows were read in; order by a column such as updated_at to choose)")
    job.notes.append(RunNote(
        "duplicate_keys", f"{repeated:,} row(s) of the batch repeat the {', '.join(job.keys)} of a later row "
        f"({shown}{', …' if repeated > sum(row['__rat_rows'] - 1 for row in most) else ''}): {last}",
        phase="iceberg_write"))


def listed_keys(job: WriteJob) -> bool:
    """Whether the batch's keys are few and one integer or text column: then its aggregate collects them
    and its delete names them, where a MERGE against the batch ran one job more (the broadcast of its
    keys) beside the delete's own."""
    from pyspark.sql.types import ByteType, IntegerType, LongType, ShortType, StringType

    if len(job.keys) != 1 or job.rows_in_result is None or job.rows_in_result > LISTED_KEYS_MAX:
        return False
    return isinstance(job.new.schema[job.keys[0]].dataType, (IntegerType, LongType, ShortType, ByteType, StringType))


def key_literal(value: int | str) -> str:
    return sql_string(value) if isinstance(value, str) else str(int(value))


def output_order(df: "DataFrame", arrival: "Column | None") -> "DataFrame":
    """`df` with ORDER_COLUMN: the place of each row's landing file in their arrival order when known, then the
    row's place in the query's output."""
    from pyspark.errors import AnalysisException
    from pyspark.sql import functions as F

    row = F.monotonically_increasing_id()
    if arrival is None:
        return df.withColumn(ORDER_COLUMN, row)
    try:
        return df.withColumn(ORDER_COLUMN, F.struct(arrival.alias("file"), row.alias("row")))
    except AnalysisException:  # a join of two file sources: Spark cannot tell a row's file (PreReadCheck)
        return df.withColumn(ORDER_COLUMN, row)


def keep_last_per_key(ordered: "DataFrame", keys: tuple[str, ...]) -> "DataFrame":
    """One row per key, the one with the highest ORDER_COLUMN (which is dropped)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    window = Window.partitionBy(*keys).orderBy(F.col(ORDER_COLUMN).desc())
    return ordered.withColumn("__rat_rank", F.row_number().over(window)).filter("__rat_rank = 1").drop(
        "__rat_rank", ORDER_COLUMN)


def small_side(job: WriteJob, df: "DataFrame") -> "DataFrame":
    """Hint a broadcast join for a small batch, so a merge never shuffles the whole table.

    Spark cannot size a checkpointed result, so without the hint it sort-merge-joins the
    batch against every row of the target.
    """
    from pyspark.sql import functions as F

    return F.broadcast(df) if (job.rows_in_result or 0) <= BROADCAST_MAX_ROWS else df


def _key_match(left: str, right: str, keys: tuple[str, ...]) -> str:
    return " AND ".join(f"{left}.{quote(k)} = {right}.{quote(k)}" for k in keys)


# -- the strategies ---------------------------------------------------------------------
def full_refresh(job: WriteJob) -> None:
    job.writer(job.rows).option("mergeSchema", "true").overwrite(literal(job.table.spark, True))


def append_only(job: WriteJob) -> None:
    job.writer(job.rows).option("mergeSchema", "true").append()


def _delete_keys(job: WriteJob, rows: "DataFrame", listed: list | None = None) -> None:
    """Delete the table rows whose key appears in `rows` (one MERGE with only a DELETE clause), or is
    among `listed`, the batch's keys collected already (one DELETE naming them: no join, no broadcast).

    With only a matched clause Spark plans an inner join, so the batch's keys can be
    broadcast and the table is scanned once, never shuffled: the cost follows the batch.
    """
    keys = job.keys
    if listed is not None:
        if listed:
            job.sql(f"DELETE FROM {job.target} WHERE {quote(keys[0])} IN ({', '.join(map(key_literal, listed))})")
        return
    doomed = job.view(small_side(job, rows.select(*keys).distinct()), "doomed")
    job.sql(f"MERGE INTO {job.target} t USING {doomed} s ON {_key_match('t', 's', keys)} WHEN MATCHED THEN DELETE")


def first_load(job: WriteJob, last_row_wins: bool) -> None:
    """A keyed load onto an empty target: append the query's rows in one pass, then check the keys
    by reading only their columns back from the branch (main sees nothing until the run publishes).

    Materialising and counting the whole result before writing cost 4x a bare load. NULL keys fail
    the run with the same sentence as before the write; duplicate keys (rare in a first load) put
    the branch back and write again with the last row per key, in the query's output order.
    """
    from pyspark.sql import functions as F
    from pyspark.sql.types import ByteType, IntegerType, LongType, ShortType

    keys = job.keys
    job.writer(job.rows).append()
    written = job.table.spark.table(job.target).select(*keys)
    integral = len(keys) == 1 and isinstance(written.schema[0].dataType, (IntegerType, LongType, ShortType, ByteType))
    known = job.table.added_range(job.branch, keys[0]) if integral else None
    if known is not None:  # from the manifests, for free: a pass over the keys took 0.5 s on 5M rows
        rows, nulls, low, high = known
        width = high - low + 1
    else:
        span = F.max(keys[0]).cast("decimal(21,0)") - F.min(keys[0]) + 1 if integral else F.lit(None)
        rows, nulls, width = written.select(F.count(F.lit(1)), F.count_if(any_null(keys)), span).first()
    if nulls:
        raise null_key_error(nulls, keys, "unique_key")
    if not last_row_wins or (width == rows and rises_by_one_per_row(written)):
        return
    distinct = distinct_keys(written, width)
    if rows == distinct:
        return
    note_repeated_keys(job, rows - distinct, written)
    head, parent = job.table.spark.sql(
        f"SELECT s.snapshot_id, s.parent_id FROM {job.table.ident}.snapshots s JOIN {job.table.ident}.refs r "
        f"ON s.snapshot_id = r.snapshot_id WHERE r.name = {sql_string(job.branch)}").first()
    job.sql(f"ALTER TABLE {job.table.ident} REPLACE BRANCH {quote(job.branch)} AS OF VERSION {int(parent)}")
    job.table.expire_snapshots([head])  # the snapshots list would show it, duplicates and all
    job.writer(keep_last_per_key(output_order(job.rows, job.arrival), keys)).append()


def rises_by_one_per_row(keys: "DataFrame") -> bool:
    """True when, in every task, the one integer key rises by exactly one from row to row and the
    tasks' ranges do not overlap: then no key repeats. Ids written in their own order (a sequence,
    an export) are proven unique by one pass of codegen'd aggregates, where counting them in
    bitmaps cost 0.95 s on 5M keys; other keys go on to the bitmaps.

    Within a task monotonically_increasing_id() rises by one per row, so key minus it is constant
    exactly when the key does the same."""
    from pyspark.sql import functions as F

    key = F.col(keys.columns[0]).cast("long")
    rows = keys.select(F.spark_partition_id().alias("task"), key.alias("key"),
                       (key - F.monotonically_increasing_id()).alias("offset"))  # aggregates take no nondeterminism
    tasks = rows.groupBy("task").agg(F.min("offset"), F.max("offset"), F.min("key"), F.max("key")).collect()
    if any(low != high for _, low, high, _, _ in tasks):
        return False
    ranges = sorted((first, last) for _, _, _, first, last in tasks)
    return all(before[1] < after[0] for before, after in zip(ranges, ranges[1:]))


def distinct_keys(keys: "DataFrame", span: int | None) -> int:
    """How many distinct keys (no NULL among them). Integer keys within a bounded range are counted
    in bitmaps of 32,768 values, so Spark shuffles one bitmap per range instead of every key. On 5M
    keys, one busy run: bitmaps 1.9 s, COUNT(DISTINCT) 11 s, the bare load of those rows 8 s."""
    from pyspark.sql import functions as F

    if span is not None and span <= BITMAP_MAX_SPAN:
        key = F.col(keys.columns[0]).cast("long")
        buckets = keys.groupBy(F.bitmap_bucket_number(key)).agg(
            F.bitmap_construct_agg(F.bitmap_bit_position(key)).alias("bits"))
        return buckets.select(F.sum(F.bitmap_count("bits"))).first()[0] or 0
    return keys.select(F.count_distinct(*keys.columns)).first()[0]


def incremental(job: WriteJob) -> None:
    """Upsert: the last row per key replaces the table's row for that key, or is added.

    Written as delete-then-append rather than MERGE … UPDATE/INSERT: the NOT MATCHED
    clause forces an outer join that shuffles every row of the table (measured 5.5 s
    against 5M rows for a 50k batch).
    """
    if job.target_empty:
        first_load(job, last_row_wins=True)
        return
    latest, deduplicated, listed = last_row_per_key(job)
    if deduplicated and listed is None:  # read twice below: materialise the de-duplicated rows once
        latest = latest.localCheckpoint(eager=True)
    _delete_keys(job, latest, listed)
    job.writer(latest).append()


def delete_insert(job: WriteJob) -> None:
    if job.target_empty:
        first_load(job, last_row_wins=False)
        return
    check_columns(job, job.keys, "unique_key")
    _delete_keys(job, job.rows)
    job.writer(job.rows).append()


def scd2(job: WriteJob) -> None:
    """Close the current row of a key whose tracked values changed and open a new one; in one MERGE."""
    keys = job.keys
    latest = last_row_per_key(job)[0]
    valid_from, valid_to = job.config.scd_valid_from, job.config.scd_valid_to
    columns = [c for c in result_columns(job) if c not in (valid_from, valid_to)]
    tracked = [c for c in columns if c not in keys]
    at = f"TIMESTAMP '{job.run_started_at}'"
    source = job.view(latest.select(*columns), "scd2")
    changed = " OR ".join(f"NOT (t.{quote(c)} <=> s.{quote(c)})" for c in tracked) or "FALSE"
    merge_keys = ", ".join(f"s.{quote(k)} AS {quote('__mk_' + k)}" for k in keys)
    null_keys = ", ".join(f"CAST(NULL AS STRING) AS {quote('__mk_' + k)}" for k in keys)
    current = f"t.{quote(valid_to)} IS NULL"
    # Rows with a NULL merge key never match, so they become the new current rows of changed keys.
    staged = (
        f"SELECT {merge_keys}, s.* FROM {source} s "
        f"UNION ALL SELECT {null_keys}, s.* FROM {source} s "
        f"JOIN {job.target} t ON {_key_match('t', 's', keys)} AND {current} WHERE {changed}"
    )
    on = " AND ".join(f"t.{quote(k)} = m.{quote('__mk_' + k)}" for k in keys)
    changed_m = changed.replace("s.", "m.")
    insert_cols = ", ".join(quote(c) for c in (*columns, valid_from, valid_to))
    insert_vals = ", ".join([*(f"m.{quote(c)}" for c in columns), at, "CAST(NULL AS TIMESTAMP)"])
    job.sql(
        f"MERGE INTO {job.target} t USING ({staged}) m ON {on} AND {current} "
        f"WHEN MATCHED AND ({changed_m}) THEN UPDATE SET {quote(valid_to)} = {at} "
        f"WHEN NOT MATCHED THEN INSERT ({insert_cols}) VALUES ({insert_vals})"
    )
    if job.config.scd_close_missing:
        # A key the source no longer has was deleted there: its current row ends now.
        job.sql(f"MERGE INTO {job.target} t USING {source} s ON {_key_match('t', 's', keys)} AND {current} "
                f"WHEN NOT MATCHED BY SOURCE AND {current} THEN UPDATE SET {quote(valid_to)} = {at}")


def snapshot(job: WriteJob) -> None:
    """Replace every partition value present in the result; other values stay (one atomic overwrite)."""
    from pyspark.sql import functions as F

    column, = check_columns(job, (job.config.partition_column or "",), "partition_column")
    values = [row[0] for row in job.rows.select(column).distinct().collect()]
    job.writer(job.rows).overwrite(F.col(column).isin(values))


WRITERS: dict[MergeStrategy, Callable[[WriteJob], None]] = {
    MergeStrategy.FULL_REFRESH: full_refresh,
    MergeStrategy.APPEND_ONLY: append_only,
    MergeStrategy.INCREMENTAL: incremental,
    MergeStrategy.DELETE_INSERT: delete_insert,
    MergeStrategy.SCD2: scd2,
    MergeStrategy.SNAPSHOT: snapshot,
}


def table_schema(result: "StructType", config: PipelineConfig) -> "StructType":
    """The schema a new table gets: the result's columns (plus validity columns for scd2)."""
    from pyspark.sql.types import StructField, StructType, TimestampType

    # Every column nullable: a first result of `SELECT 1 AS id` must not make id required,
    # or a later run with a NULL there could never be written.
    fields = [StructField(f.name, f.dataType, True, f.metadata) for f in result.fields if f.name != ORDER_COLUMN]
    if config.merge_strategy == MergeStrategy.SCD2:
        fields = [f for f in fields if f.name not in (config.scd_valid_from, config.scd_valid_to)]
        fields += [StructField(config.scd_valid_from, TimestampType()), StructField(config.scd_valid_to, TimestampType())]
    return StructType(fields)


# Iceberg merges a table's small manifests at commit in its worker pool, which it waits on in 10 ms sleeps: a
# full refresh's commit spent 9 ms of 50 there (and has nothing to merge: it replaces every manifest).
MANIFEST_MERGE = "commit.manifest-merge.enabled"


def strategy_properties(config: PipelineConfig) -> dict[str, str | None]:
    """What the table's properties must say for the pipeline's strategy (None: nothing); set when a run
    publishes, so a table made before, or a pipeline whose strategy changed, follows."""
    return {MANIFEST_MERGE: "false" if config.merge_strategy == MergeStrategy.FULL_REFRESH else None}


def table_properties(config: PipelineConfig, target_file_size: int) -> dict[str, str]:
    properties = {"format-version": "2", "write.target-file-size-bytes": str(target_file_size),
                  UNIQUE_KEY_PROPERTY: ",".join(config.unique_key)}
    properties.update({key: value for key, value in strategy_properties(config).items() if value is not None})
    if config.merge_strategy not in MERGING:
        # Lets `mergeSchema` add columns on append/overwrite. Not on merging tables: with it
        # Spark skips column resolution in MERGE INTO and every `t.col` fails to resolve.
        properties["write.spark.accept-any-schema"] = "true"
    else:
        # Measured: MERGE on copy-on-write rewrites every file (17 s on 5M rows); merge-on-read 5 s.
        for mode in ("write.merge.mode", "write.update.mode", "write.delete.mode"):
            properties[mode] = "merge-on-read"
    return properties


def partition_by(config: PipelineConfig) -> str | None:
    return config.partition_column if config.merge_strategy == MergeStrategy.SNAPSHOT else None
