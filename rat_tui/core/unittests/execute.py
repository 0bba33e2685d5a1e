"""One unit test on its own session: the pipeline built by the run's own path (templating, ref(),
landing_zone(), result checks), its result written by the run's own strategy code into a scratch
Iceberg table of a throwaway catalog, and both compared with what the test expects.

Nothing of the project is touched: the catalog lives in a temp folder outside it, is registered on
the test's session only, and is deleted afterwards; no branch, no table, no state.db row."""
from __future__ import annotations

import secrets
import shutil
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import RatError
from ..lake.session import catalog_conf
from ..lake.spark_errors import summarise
from ..lake.table import IcebergTable, quote, sql_string
from ..project.model import PipelineRef, Project
from ..project.pipeline_source import LoadedPipeline
from ..run.build import build, materialise
from ..run.context import run_timestamp
from ..run.strategies import WRITERS, WriteJob, partition_by, table_properties, table_schema, writes_once
from .context import UnitContext
from .frames import as_dicts, cast_rows, compare, rows_frame
from .spec import Rows, UnitTest

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType

    from ..storage import Storage

BRANCH = "unit"
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

    def as_dict(self) -> dict[str, Any]:
        return {"pipeline": self.pipeline, "name": self.name, "status": self.status, "missing": self.missing,
                "unexpected": self.unexpected, "error": self.error}


class Scratch:
    """A throwaway Hadoop catalog in a temp folder, known only to one test's session."""

    def __init__(self, spark: "SparkSession", ref: PipelineRef, unit_id: str):
        self.spark = spark
        self.folder = Path(tempfile.mkdtemp(prefix=f"rat-unit-{unit_id}-"))
        self.catalog = f"rat_unit_{unit_id}"
        for key, value in catalog_conf(self.catalog, self.folder.as_uri(), "hadoop", {}).items():
            spark.conf.set(key, value)
        self.table = IcebergTable(spark, PipelineRef(self.catalog, ref.layer, ref.name))
        self.created = False

    def create(self, schema: "StructType", properties: dict[str, str], partition: str | None,
               this: "DataFrame | None") -> None:
        self.table.create_empty(schema, properties, partition)
        self.created = True
        if this is not None:
            this.writeTo(self.table.ident).append()
        self.table.create_branch(BRANCH)

    def after(self) -> "DataFrame":
        return self.spark.sql(f"SELECT * FROM {self.table.ident} VERSION AS OF {sql_string(BRANCH)}")

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def run_unit_test(spark: "SparkSession", project: Project, storage: "Storage", pipeline: LoadedPipeline,
                  test: UnitTest) -> UnitResult:
    """The test's outcome; every failure to run it is an `error` with one sentence."""
    result = UnitResult(test.pipeline, test.name, "passed")
    began = datetime.now(timezone.utc)
    try:
        result.missing, result.unexpected = _run(spark, project, storage, pipeline, test)
        if result.missing or result.unexpected:
            result.status = "failed"
            result.error = (f"{test.relpath}: {len(result.missing)} expected row(s) missing, "
                            f"{len(result.unexpected)} unexpected row(s)")
    except RatError as exc:
        result.status, result.error = "error", exc.sentence()
    except Exception as exc:
        result.status, result.error = "error", f"{test.relpath}: {summarise(exc)[0]}"
    result.ms = int((datetime.now(timezone.utc) - began).total_seconds() * 1000)
    return result


def _run(spark: "SparkSession", project: Project, storage: "Storage", pipeline: LoadedPipeline,
         test: UnitTest) -> tuple[list, list]:
    unit_id = secrets.token_hex(4)
    config = pipeline.config
    started = test.vars.get("run_started_at")
    started = str(started) if started is not None else run_timestamp(datetime.now(timezone.utc))
    scratch = Scratch(spark, pipeline.ref, unit_id)
    ctx = UnitContext(spark, project, pipeline.ref, config, f"unit_{unit_id}", started, scratch.table,
                      test.this is not None, storage)
    try:
        ctx.prepare(test)
        if test.this is not None:
            _load_this(ctx, scratch, pipeline, test, test.this)
        result = build(ctx, pipeline)
        missing: list = []
        unexpected: list = []
        if test.output is not None:
            _extend(missing, unexpected, _check(spark, test, test.output, result, "expect.output"))
        if test.table_after is not None:
            after = _write(ctx, scratch, pipeline, test, result, started)
            _extend(missing, unexpected, _check(spark, test, test.table_after, after, "expect.table_after"))
        return missing, unexpected
    finally:
        ctx.cleanup()
        scratch.remove()


def _load_this(ctx: UnitContext, scratch: Scratch, pipeline: LoadedPipeline, test: UnitTest, this: Rows) -> None:
    """`this` as a real table with the pipeline's own table schema. That schema comes from the
    result, which may read `this`: so a first build reads the rows as the file gives them."""
    view = f"rat_unit_this_{ctx.run_id}"
    rows_frame(ctx.spark, this).createOrReplaceTempView(view)
    ctx._views.append(view)
    probe = IcebergTable(ctx.spark, scratch.table.ref)
    probe.ident = quote(view)
    ctx.table = probe
    shape = build(ctx, pipeline).schema
    schema = table_schema(shape, pipeline.config)
    rows = ctx.spark.createDataFrame(cast_rows(ctx.spark, test, this, schema, "this"), schema)
    scratch.create(schema, table_properties(pipeline.config, SCRATCH_FILE_SIZE), partition_by(pipeline.config), rows)
    # Whether the table has rows, the test says: no scan of the table for is_incremental().
    ctx.table, ctx._watermark, ctx._has_rows = scratch.table, None, bool(this.rows)


def _write(ctx: UnitContext, scratch: Scratch, pipeline: LoadedPipeline, test: UnitTest, result: "DataFrame",
           started: str) -> "DataFrame":
    """The run's write step: the strategy's own code onto a branch of the scratch table."""
    config = pipeline.config
    empty = test.this is None
    if not scratch.created:
        scratch.create(table_schema(result.schema, config), table_properties(config, SCRATCH_FILE_SIZE),
                       partition_by(config), None)
    once = writes_once(config, empty)
    new = result if once else materialise(result, pipeline.source_relpath)
    job = WriteJob(scratch.table, BRANCH, new, config, ctx.run_id, started, None if once else new.count(),
                   target_empty=empty)
    try:
        WRITERS[config.merge_strategy](job)
    except RatError as exc:
        raise RatError(exc.message, pipeline.source_relpath, exc.line) from None
    finally:
        job.drop_views()
    return scratch.after()


def _check(spark: "SparkSession", test: UnitTest, expected: Rows, actual: "DataFrame", what: str
           ) -> tuple[list, list]:
    columns = expected.columns() or actual.columns
    want = as_dicts(cast_rows(spark, test, expected, actual.schema, what), actual.columns, columns)
    got = as_dicts([tuple(row) for row in actual.select(*columns).collect()], columns, columns)
    return compare(want, got, test.ordered)


def _extend(missing: list, unexpected: list, found: tuple[list, list]) -> None:
    missing.extend(found[0])
    unexpected.extend(found[1])
