"""The SQL console's commands: a read-only query on the warm session (cancellable), the column
profile and the catalog the autocomplete reads; `query` and `preview` for the script face; `export` (its
file writing lives in `console_export.py`).

Every statement goes through `check_read_only`, as `query` does, on the console's own isolated
session (kept between statements: a read-only statement cannot change it), and runs in a Spark
job group of its own so Esc or Ctrl+C cancels exactly its jobs. Catalogs keep `cache-enabled=false`:
every statement reads the table's current metadata, so a commit by another process is seen at once.
"""
from __future__ import annotations

import contextlib
import secrets
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import RatError
from ..lake.job_cancel import cancel_until_stopped
from ..lake.metadata import load_table
from ..lake.session import SessionState, SparkManager
from ..lake.spark_errors import summarise
from ..lake.sql_guard import check_read_only
from ..project.model import Project
from ..run.build import build
from ..run.explain import watermark_note
from ..run.loading import load_checked
from ..values import json_value, row_values
from .browse_results import QueryResult
from .console_export import Exported, Progress, export_target, merge_parts, watch_tasks
from .previews import Previews
from .tables import table_refs

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

QUERY_ROW_LIMIT = 1000
TOP_VALUES = 10
HISTOGRAM_BINS = 10


class QueryCancelled(RatError):
    """The user cancelled the statement (Esc): not a failure to report as an error."""


@dataclass
class ConsoleResult:
    sql: str
    table: "pa.Table"  # at most max_rows rows
    truncated: bool  # the statement returned more rows than the table holds
    elapsed_ms: int

    @property
    def columns(self) -> list[str]:
        return list(self.table.column_names)


@dataclass
class ColumnProfile:
    column: str
    type: str
    rows: int
    nulls: int
    distinct: int
    min: Any
    max: Any
    top: list[tuple[Any, int]] = field(default_factory=list)
    histogram: list[tuple[float, float, int]] = field(default_factory=list)  # (low, high, count)


class _Groups:
    """Job groups of running console statements, and those the user asked to stop."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running: set[str] = set()
        self.cancelled: set[str] = set()


class Console:
    def __init__(self, project: Project, spark: SparkManager, previews: Previews):
        self.project, self.spark, self.previews = project, spark, previews
        self.console_groups = _Groups()

    @contextlib.contextmanager
    def console_session(self, group: str, on_waiting: Callable[[], None] | None = None) -> Iterator["SparkSession"]:
        """An isolated session whose jobs run in `group`; waits for Spark to start (saying so first)."""
        if self.spark.state not in (SessionState.READY, SessionState.BUSY) and on_waiting is not None:
            on_waiting()
        for ns in self.project.scan().namespaces:  # a namespace made since start-up is queryable too
            self.spark.ensure_catalog(ns.name)
        groups = self.console_groups
        with self.spark.using(keep="console") as spark:
            with groups.lock:
                if group in groups.cancelled:
                    raise QueryCancelled("the statement was cancelled before it started")
                groups.running.add(group)
            spark.sparkContext.setJobGroup(group, "rat console", interruptOnCancel=True)
            try:
                yield spark
            except QueryCancelled:
                raise
            except Exception as exc:
                if group in groups.cancelled:
                    raise QueryCancelled("the statement was cancelled") from None
                if isinstance(exc, RatError):
                    raise
                message, line = summarise(exc)
                raise RatError(f"SQL error{f' on line {line}' if line else ''}: {message}") from None
            finally:
                spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
                with groups.lock:
                    groups.running.discard(group)
                    groups.cancelled.discard(group)

    def console_query(self, sql: str, max_rows: int, group: str,
                      on_waiting: Callable[[], None] | None = None) -> ConsoleResult:
        """At most `max_rows` rows of one read-only statement, as an Arrow table for the grid."""
        began = time.monotonic()
        with self.console_session(group, on_waiting) as spark:
            df = self._console_df(spark, sql)
            table = to_arrow(df.limit(max_rows + 1))
        truncated = table.num_rows > max_rows
        return ConsoleResult(sql, table.slice(0, max_rows) if truncated else table, truncated,
                             int((time.monotonic() - began) * 1000))

    @staticmethod
    def _console_df(spark: "SparkSession", sql: str) -> "DataFrame":
        check_read_only(spark, sql, "a console statement", inspection=True)
        return spark.sql(sql)

    def cancel_console(self, group: str) -> None:
        """Stop a statement's Spark jobs; a job submitted a moment later is cancelled too (the
        worker may be between `setJobGroup` and its first job), so the cancel repeats briefly."""
        groups = self.console_groups
        with groups.lock:
            groups.cancelled.add(group)
        if self.spark.state not in (SessionState.READY, SessionState.BUSY):
            return

        def stopped() -> bool:
            with groups.lock:
                return group not in groups.running

        cancel_until_stopped(self.spark.session, group, stopped, rounds=15)

    def profile_column(self, sql: str, index: int, group: str) -> ColumnProfile:
        """Nulls, distinct values, min/max, top values and (numeric) a histogram of one column of
        the statement's full result, computed by Spark (not the rows on screen)."""
        from pyspark.sql import functions as F
        from pyspark.sql.types import NumericType

        with self.console_session(group) as spark:
            df = self._console_df(spark, sql)
            names = df.columns
            if not 0 <= index < len(names):
                raise RatError(f"the result has no column {index + 1}")
            # Positional names: duplicate or odd column names (a.id, b.id) stay unambiguous.
            df = df.toDF(*[f"c{i}" for i in range(len(names))]).select(F.col(f"c{index}").alias("v"))
            data_type = df.schema["v"].dataType
            v = F.col("v")
            row = df.agg(F.count(F.lit(1)).alias("rows"), F.count(v).alias("filled"),
                         F.countDistinct(v).alias("distinct"), F.min(v).alias("min"), F.max(v).alias("max")).first()
            top = df.groupBy(v).count().orderBy(F.desc("count"), v.asc_nulls_last()).limit(TOP_VALUES).collect()
            profile = ColumnProfile(names[index], data_type.simpleString(), row["rows"], row["rows"] - row["filled"],
                                    row["distinct"], json_value(row["min"]), json_value(row["max"]),
                                    [(json_value(r["v"]), r["count"]) for r in top])
            if isinstance(data_type, NumericType) and row["min"] is not None:
                profile.histogram = _histogram(df, float(row["min"]), float(row["max"]))
        return profile

    def completion_catalog(self) -> dict[str, list[tuple[str, str]]]:
        """Every table's columns `(name, type)` by `ns.layer.table`, read from Iceberg metadata by
        PyIceberg: autocomplete never waits for the JVM."""
        catalog: dict[str, list[tuple[str, str]]] = {}
        for ref in table_refs(self.project):
            try:
                schema = load_table(self.project.table_dir(ref), ref.fqn).schema()
            except Exception:  # a damaged table is still offered by name
                catalog[ref.fqn] = []
                continue
            catalog[ref.fqn] = [(f.name, str(f.field_type)) for f in schema.fields]
        return catalog

    def export(self, path: str, sql: str, progress: Progress | None = None, group: str | None = None) -> Exported:
        """`export FILE SQL…`: the full result of one read-only statement in one file (console_export.py)."""
        target, fmt = export_target(self.project.root, path)
        target.parent.mkdir(parents=True, exist_ok=True)
        group = group or f"console-export-{secrets.token_hex(4)}"
        parts = target.parent / f".{target.name}.rat-export-{secrets.token_hex(4)}"
        try:
            with self.console_session(group) as spark:
                df = self._console_df(spark, sql)
                done = threading.Event()
                if progress is not None:
                    watcher = threading.Thread(target=watch_tasks, args=(spark, group, done, progress), daemon=True)
                    watcher.start()
                try:
                    df.write.mode("overwrite").parquet(str(parts))
                finally:
                    done.set()
            if progress is not None:
                progress("writing the file", 0, 1)
            rows = merge_parts(sorted(parts.glob("part-*.parquet")), target, fmt)
        finally:
            shutil.rmtree(parts, ignore_errors=True)
        return Exported(str(target), rows, fmt)

    # -- the script face's one-shot statements ----------------------------------------------
    def query(self, sql: str) -> QueryResult:
        for ns in self.project.scan().namespaces:  # a namespace made since start-up is queryable too
            self.spark.ensure_catalog(ns.name)
        with self.spark.using(isolated=True) as spark:
            check_read_only(spark, sql, "a query", inspection=True)
            try:
                df = spark.sql(sql)
            except Exception as exc:
                message, line = summarise(exc)
                raise RatError(f"SQL error{f' on line {line}' if line else ''}: {message}") from None
            rows = _collect(df, QUERY_ROW_LIMIT + 1, "query")
        return QueryResult(df.columns, [row_values(r) for r in rows[:QUERY_ROW_LIMIT]], len(rows) > QUERY_ROW_LIMIT)

    def preview(self, pipeline: str, limit: int = 20) -> QueryResult:
        """Phases 1-2 only (config_loading, build_result), checked as a run checks them; writes nothing."""
        ref = self.project.find_pipeline(pipeline)
        loaded = load_checked(ref, self.project.read_pipeline_files(ref))
        with self.spark.using(isolated=True) as spark:
            ctx = self.previews.context(spark, ref, loaded.config)
            try:
                df = build(ctx, loaded)
                rows = _collect(df, limit, loaded.source_relpath, ctx.landing.explain)
                samples = [f"{label} holds nothing new: read its _samples/" for label in ctx.landing.nothing_new]
                note = "; ".join(samples) or (None if rows else watermark_note(ctx))
            finally:
                ctx.cleanup()
        return QueryResult(df.columns, [row_values(r) for r in rows], note=note)


def _collect(df, limit: int, where: str, explain: Callable[[BaseException], str | None] | None = None) -> list:
    """The first `limit` rows; a failure in one sentence, naming the landing file and line where `explain`
    (a preview's reader of its zones, as a run's) finds them."""
    try:
        return df.limit(limit).collect()
    except Exception as exc:
        message = (explain and explain(exc)) or summarise(exc)[0]
        raise RatError(f"query failed: {message}", where) from None


def _histogram(df: "DataFrame", low: float, high: float) -> list[tuple[float, float, int]]:
    from pyspark.sql import functions as F

    if high == low:
        return [(low, high, df.where(F.col("v").isNotNull()).count())]
    width = (high - low) / HISTOGRAM_BINS
    # width_bucket puts the maximum in bucket bins+1: fold it into the last bin.
    bucket = F.least(F.expr(f"width_bucket(v, {low!r}, {high!r}, {HISTOGRAM_BINS})"), F.lit(HISTOGRAM_BINS))
    counts = {r["b"]: r["n"] for r in df.where(F.col("v").isNotNull()).groupBy(bucket.alias("b"))
              .agg(F.count(F.lit(1)).alias("n")).collect()}
    return [(low + (b - 1) * width, low + b * width, counts.get(b, 0)) for b in range(1, HISTOGRAM_BINS + 1)]


def to_arrow(df: "DataFrame") -> "pa.Table":
    """The rows as Arrow: Spark's own Arrow collection is fast (10,000 rows in tens of ms);
    types it cannot ship (some nested ones) fall back to rows made JSON scalars."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    try:
        schema = to_arrow_schema(df.schema)
        batches = df._collect_as_arrow()
        table = pa.Table.from_batches(batches, schema=schema) if batches else schema.empty_table()
        return table
    except Exception:
        rows = df.collect()
        names = df.columns
        columns = [[json_value(r[i]) for r in rows] for i in range(len(names))]
        arrays = [pa.array([None if v is None else str(v) if isinstance(v, (list, dict)) else v for v in col])
                  if col else pa.array([], pa.string()) for col in columns]
        return pa.Table.from_arrays(arrays, names=list(names)) if names else pa.table({})
