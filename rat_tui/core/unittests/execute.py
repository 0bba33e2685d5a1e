"""One unit test on its own session: the pipeline built by the run's own path (templating, ref(),
landing_zone(), result checks), its result written by the run's own strategy code into a scratch
Iceberg table (scratch.py), and both compared with what the test expects."""
from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from ..errors import RatError
from ..lake.spark_errors import summarise
from ..project.model import Project
from ..project.partitions import Interval, parse_moment
from ..project.pipeline_source import LoadedPipeline
from ..run.build import build, materialise
from ..run.context import run_timestamp
from ..run.intervals import interval_rows
from ..run.intervals import replace as replace_intervals
from ..run.strategies import WRITERS, WriteJob, partition_by, table_properties, table_schema, writes_once
from .context import UnitContext
from .frames import as_dicts, cast_frame, cast_rows, compare, rows_frame
from .scratch import BRANCH, ScratchCatalog, ScratchTable
from .spec import Rows, UnitTest

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from ..project.pipeline_config import PipelineConfig
    from ..storage import Storage

# A unit test's rows are few: its shuffles (key checks, MERGE) need one partition, and re-planning
# them adaptively costs more than it saves. Set on the test's own session only.
UNIT_SESSION_CONF = {"spark.sql.shuffle.partitions": "1", "spark.sql.adaptive.enabled": "false"}
# Scratch tables are tiny: no shuffle to distribute their writes (the rows written are the same).
SCRATCH_PROPERTIES = {f"write.{kind}distribution-mode": "none" for kind in ("", "delete.", "update.", "merge.")}
SCRATCH_FILE_SIZE = 8 << 20


@dataclass
class UnitResult:
    pipeline: str
    name: str
    status: str  # passed | failed | error
    missing: list[dict[str, Any]] = field(default_factory=list)
    unexpected: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    ms: int = 0
    failed_in: list[str] = field(default_factory=list)  # the expectations the rows above are of: output, table_after

    def as_dict(self) -> dict[str, Any]:
        return {"pipeline": self.pipeline, "name": self.name, "status": self.status, "missing": self.missing,
                "unexpected": self.unexpected, "error": self.error, "failed_in": self.failed_in}


def run_unit_test(spark: "SparkSession", project: Project, storage: "Storage", catalog: ScratchCatalog,
                  pipeline: LoadedPipeline, test: UnitTest) -> UnitResult:
    """The test's outcome on its own session `spark`; every failure to run it is an `error` with one sentence."""
    result = UnitResult(test.pipeline, test.name, "passed")
    began = datetime.now(timezone.utc)
    for key, value in UNIT_SESSION_CONF.items():
        spark.conf.set(key, value)
    try:
        result.missing, result.unexpected, result.failed_in = _run(spark, project, storage, catalog, pipeline, test)
        if result.failed_in:
            result.status = "failed"
            result.error = (f"{test.relpath}: {len(result.missing)} expected row(s) missing, "
                            f"{len(result.unexpected)} unexpected row(s) "
                            f"({' and '.join(f'expect.{where}' for where in result.failed_in)})")
    except RatError as exc:
        result.status, result.error = "error", exc.sentence()
    except Exception as exc:
        result.status, result.error = "error", f"{test.relpath}: {summarise(exc)[0]}"
    result.ms = int((datetime.now(timezone.utc) - began).total_seconds() * 1000)
    return result


def _run(spark: "SparkSession", project: Project, storage: "Storage", catalog: ScratchCatalog,
         pipeline: LoadedPipeline, test: UnitTest) -> tuple[list, list, list[str]]:
    unit_id = secrets.token_hex(4)
    config = pipeline.config
    started = test.vars.get("run_started_at")
    started = str(started) if started is not None else run_timestamp(datetime.now(timezone.utc))
    scratch = catalog.table(spark, pipeline.ref, unit_id)
    interval = _interval(pipeline, test)
    # Whether the table has rows, the test says: no scan of the table for is_incremental().
    ctx = UnitContext(spark, project, pipeline.ref, config, f"unit_{unit_id}", started, scratch.table,
                      test.this is not None, storage, has_rows=bool(test.this.rows) if test.this is not None else None,
                      interval=interval)
    try:
        ctx.prepare(test)
        if test.this is not None:
            _load_this(ctx, scratch, pipeline, test, test.this)
        result = build(ctx, pipeline)
        if interval is not None:
            result = interval_rows(pipeline, result, interval)
        missing: list = []
        unexpected: list = []
        failed_in: list[str] = []
        if test.output is not None:
            _extend(missing, unexpected, failed_in, "output", _check(spark, test, test.output, result, "expect.output"))
        if test.table_after is not None:
            after = _write(ctx, scratch, pipeline, test, result, started)
            _extend(missing, unexpected, failed_in, "table_after",
                    _check(spark, test, test.table_after, after, "expect.table_after"))
        return missing, unexpected, failed_in
    finally:
        ctx.cleanup()
        scratch.remove()


def _load_this(ctx: UnitContext, scratch: ScratchTable, pipeline: LoadedPipeline, test: UnitTest, this: Rows) -> None:
    """`this` as a real table with the pipeline's own table schema. That schema comes from the
    result, which may read `this`: so a first build reads the rows as the file gives them."""
    with ctx.reading_this(ctx.temp_view(rows_frame(ctx.spark, this), "unit_this")):
        shape = build(ctx, pipeline).schema
    schema = table_schema(shape, pipeline.config)
    rows, _ = cast_frame(ctx.spark, test, this, schema, "this")
    scratch.create(rows, _properties(pipeline.config), partition_by(pipeline.config))


def _write(ctx: UnitContext, scratch: ScratchTable, pipeline: LoadedPipeline, test: UnitTest, result: "DataFrame",
           started: str) -> "DataFrame":
    """The run's write step: the strategy's own code onto the scratch table."""
    config = pipeline.config
    empty = test.this is None
    if not scratch.created:
        empty_rows = ctx.spark.createDataFrame([], table_schema(result.schema, config))
        scratch.create(empty_rows, _properties(config), partition_by(config))
    new, rows = (result, None) if writes_once(config, empty) else materialise(result, pipeline.source_relpath)
    job = WriteJob(scratch.table, BRANCH, new, config, ctx.run_id, started, rows, target_empty=empty)
    try:
        if ctx.interval is None:
            WRITERS[config.merge_strategy](job)
        else:  # a partitioned pipeline's run replaces its interval's rows
            replace_intervals(config, [ctx.interval], job)
    except RatError as exc:
        raise RatError(exc.message, pipeline.source_relpath, exc.line) from None
    finally:
        job.drop_views()
    return scratch.after()


def _interval(pipeline: LoadedPipeline, test: UnitTest) -> Interval | None:
    """The interval a partitioned pipeline's test builds (`vars: {interval_start: …}`; it ends one grain later)."""
    partitions = pipeline.config.partitions
    given = test.vars.get("interval_start")
    if partitions is None:
        if given is not None:
            raise test.error("vars: interval_start is for a partitioned pipeline's test (this one has no partitions: "
                             "in its config.yaml)", test.vars_line)
        return None
    start = parse_moment(given) if given is not None else None
    if start is None:
        example = partitions.interval_at(partitions.start).start_text
        raise test.error(f"{pipeline.ref.fqn} builds one interval at a time: say which in vars, e.g. "
                         f"`vars: {{interval_start: '{example}'}}` (its {partitions.grain} starting then)",
                         test.vars_line)
    return partitions.interval_at(start)


def _properties(config: "PipelineConfig") -> dict[str, str]:
    return {**table_properties(config, SCRATCH_FILE_SIZE), **SCRATCH_PROPERTIES}


def _check(spark: "SparkSession", test: UnitTest, expected: Rows, actual: "DataFrame", what: str
           ) -> tuple[list, list]:
    columns = expected.columns() or actual.columns
    want = as_dicts(cast_rows(spark, test, expected, actual.schema, what), actual.columns, columns)
    got = as_dicts([tuple(row) for row in actual.select(*columns).collect()], columns, columns)
    return compare(want, got, test.ordered)


def _extend(missing: list, unexpected: list, failed_in: list[str], where: str, found: tuple[list, list]) -> None:
    missing.extend(found[0])
    unexpected.extend(found[1])
    if found[0] or found[1]:
        failed_in.append(where)
