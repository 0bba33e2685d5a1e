"""A partitioned pipeline's run (`partitions:` in config.yaml): which intervals it does, its result built once per
interval with `{{ interval_start }}` and `{{ interval_end }}`, and a write that replaces exactly those intervals'
rows (delete by the column, then insert), so running an interval again gives the same table.

Every interval of one run (a normal run, or a backfill) goes onto the run's one branch; quality tests read that
branch and main moves once, as for any run. The record of each interval is kept in state.db (store/intervals.py).
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from ..errors import RatError
from ..events import EventBus, IntervalBuilt
from ..lake.table import quote
from ..project.partitions import Interval, Partitions
from ..project.pipeline_config import PipelineConfig
from ..project.pipeline_source import LoadedPipeline
from ..store.intervals import IntervalState, IntervalStore
from ..store.state import StateDB
from .build import build
from .context import RunContext
from .outcomes import BuildOutcome

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import StructType

    from .strategies import WriteJob

MANY_INTERVALS = 100  # a run that plans more says so before it starts building them

def code_version(source: str) -> str:
    """What tells an interval done by this code from one done by other code: the pipeline file's hash."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def all_until(partitions: Partitions, now: datetime | None = None) -> list[Interval]:
    """Every whole interval from the configured start to now."""
    return partitions.intervals(None, now or datetime.now(timezone.utc))


def preview_interval(config: PipelineConfig) -> Interval | None:
    """What a preview of a partitioned pipeline builds: the newest whole interval (the first, before it ends)."""
    if config.partitions is None:
        return None
    intervals = all_until(config.partitions)
    if intervals:
        return intervals[-1]
    first = config.partitions.start
    return config.partitions.interval_at(first)


def due(partitions: Partitions, states: list[IntervalState], intervals: list[Interval]) -> list[Interval]:
    """A normal run's intervals: those after the newest done one, plus `lookback` done ones before them."""
    done = [index for index, state in enumerate(states) if state.status in ("done", "stale")]
    first = max(0, done[-1] + 1 - partitions.lookback) if done else 0
    return intervals[first:]


def to_do(partitions: Partitions, store: IntervalStore, pipeline: str, version: str,
          full_refresh: bool) -> list[Interval]:
    """A run's intervals when no backfill chose them: every one up to now with a full refresh, else those due."""
    intervals = all_until(partitions)
    return intervals if full_refresh else due(partitions, store.states(pipeline, intervals, version), intervals)


def size_warning(intervals: list[Interval]) -> str | None:
    """What to say before a run builds so many intervals that it will be long (one query each)."""
    if len(intervals) <= MANY_INTERVALS:
        return None
    return (f"{len(intervals)} intervals to build, from {intervals[0].start_text} to {intervals[-1].end_text}: "
            "a long run (backfill a smaller range first, or set partitions.start later)")


def plan(state: StateDB, pipeline: LoadedPipeline, run_id: str, chosen: list[Interval] | None,
         full_refresh: bool) -> list[Interval] | None:
    """At config loading: the run's intervals (`chosen` by a backfill, or due), recorded as planned; None for a
    pipeline without partitions."""
    partitions = pipeline.config.partitions
    if partitions is None:
        if chosen is not None:
            raise RatError(f"{pipeline.ref.fqn} sets no partitions in its config.yaml, so it has no intervals "
                           "to backfill")
        return None
    store, version = IntervalStore(state), code_version(pipeline.source)
    planned = list(chosen) if chosen is not None else to_do(partitions, store, pipeline.ref.fqn, version, full_refresh)
    store.plan(pipeline.ref.fqn, run_id, planned, version)
    return planned


def in_intervals(column: str, intervals: list[Interval]) -> str:
    """The SQL condition for rows of these intervals; neighbouring intervals make one range."""
    spans: list[list[Interval]] = []
    for interval in sorted(intervals, key=lambda i: i.start):
        if spans and spans[-1][-1].end == interval.start:
            spans[-1].append(interval)
        else:
            spans.append([interval])
    name = quote(column)
    return " OR ".join(f"({name} >= '{span[0].start_text}' AND {name} < '{span[-1].end_text}')" for span in spans)


def partitioning(config: PipelineConfig, schema: "StructType") -> "Column | None":
    """The table of a partitioned pipeline is partitioned by its grain (`days(order_date)`): an interval's delete
    drops whole files, and a downstream interval reads only its own. None for a column of another type."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import DateType, TimestampNTZType, TimestampType

    partitions = config.partitions
    if partitions is None:
        return None
    field = next((f for f in schema.fields if f.name.lower() == partitions.column.lower()), None)
    if field is None or not isinstance(field.dataType, (DateType, TimestampType, TimestampNTZType)):
        return None
    transform = {"day": F.days, "hour": F.hours, "month": F.months}[partitions.grain]
    return transform(F.col(field.name))


def build_result(ctx: RunContext, pipeline: LoadedPipeline, intervals: list[Interval],
                 check_cancel: Callable[[], None], events: EventBus) -> BuildOutcome:
    """The result of every interval, in order, one progress line each; rows outside an interval are not kept."""
    assert pipeline.config.partitions is not None
    if not intervals:
        return BuildOutcome(None, nothing_new="every interval up to now is done")
    views = []
    for number, interval in enumerate(intervals, 1):
        check_cancel()
        with ctx.building(interval):
            views.append(ctx.temp_view(interval_rows(pipeline, build(ctx, pipeline), interval), f"interval_{number}"))
        events.publish(IntervalBuilt(ctx.run_id, pipeline.ref.fqn, number, len(intervals), interval.start_text,
                                     interval.end_text))
    return BuildOutcome(ctx.spark.sql(union_all(views)))


def interval_rows(pipeline: LoadedPipeline, frame: "DataFrame", interval: Interval) -> "DataFrame":
    """What a run keeps of one interval's build: its rows inside the interval. A RatError at config.yaml when the
    result lacks the partitions column."""
    partitions = pipeline.config.partitions
    assert partitions is not None
    why = partitions.missing_column(pipeline.source_relpath.rsplit("/", 1)[-1], frame.columns)
    if why:
        raise RatError(why, partitions.column_path, partitions.column_line)
    return frame.where(in_intervals(partitions.column, [interval]))


def union_all(views: list[str]) -> str:
    """One statement over a view an interval, so Spark analyses it once (a chain of DataFrame unions is analysed
    once per union), nested as a balanced tree: Spark's parser and analyser recurse once per level, and a flat
    `a UNION ALL b UNION ALL …` of ~1000 views (three years of days) overflowed the JVM's stack."""
    if len(views) == 1:
        return f"SELECT * FROM {views[0]}"
    middle = len(views) // 2
    return f"({union_all(views[:middle])}) UNION ALL ({union_all(views[middle:])})"


def replace(config: PipelineConfig, intervals: list[Interval], job: "WriteJob") -> None:
    """Delete the intervals' rows on the branch, then insert the result: a rerun of an interval is idempotent."""
    assert config.partitions is not None
    job.sql(f"DELETE FROM {job.target} WHERE {in_intervals(config.partitions.column, intervals)}")
    job.writer(job.new).append()
