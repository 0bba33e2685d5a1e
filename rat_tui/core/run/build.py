"""Phase 2: turn a pipeline (SQL template or Python `run`) into a Spark DataFrame."""
from __future__ import annotations

import re
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ..errors import RatError
from ..lake.spark_errors import is_cancellation, summarise
from ..lineage.plan_handoff import hand_over
from ..project.pipeline_source import LoadedPipeline
from ..project.python_guard import python_problems
from ..lake.jvm_names import static_method
from ..lake.sql_guard import check_read_only
from ..project.templating import render
from .context import PythonContext, RunContext
from .plan_lineage import dataframe_lineage
from .result_checks import check_result
from .strategies import output_order

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame


_UNRESOLVED = re.compile(r"with name `(?:[^`]+`\.`)*([^`]+)` cannot be resolved")  # Spark's UNRESOLVED_COLUMN


def run_sql(ctx: RunContext, sql: str, relpath: str, parsed=None) -> "DataFrame":
    """spark.sql with errors turned into a sentence naming the file (and the line when Spark knows it).
    `parsed`: the text's plan, parsed already (check_read_only): analysed as spark.sql would (Dataset.ofRows,
    under the session as the active one), without a second parse."""
    from pyspark.sql import DataFrame

    try:
        if parsed is None:
            return ctx.spark.sql(sql)
        dataset = static_method(ctx.spark, "org.apache.spark.sql.Dataset.ofRows")
        return DataFrame(dataset(ctx.spark._jsparkSession, parsed), ctx.spark)
    except Exception as exc:
        message, line = summarise(exc)
        unresolved = _UNRESOLVED.search(message)
        lacking = ctx.landing.lacking(unresolved.group(1)) if unresolved else None
        raise RatError(f"SQL error: {message}" + (f"; {lacking}" if lacking else ""), relpath, line) from None


def build_sql(ctx: RunContext, pipeline: LoadedPipeline) -> "DataFrame":
    sql = render(pipeline.source, pipeline.source_relpath, ctx.jinja_context(ctx.this))
    parsed = check_read_only(ctx.spark, sql, "a pipeline", pipeline.source_relpath)
    return run_sql(ctx, sql, pipeline.source_relpath, parsed)


def _to_dataframe(ctx: RunContext, result: Any, relpath: str) -> "DataFrame":
    from pyspark.sql import DataFrame

    if isinstance(result, DataFrame):
        return result
    try:
        import pandas as pd
        import pyarrow as pa
    except ImportError:  # pragma: no cover - both are dependencies
        pd = pa = None
    if pa is not None and isinstance(result, pa.Table):
        result = result.to_pandas()
    if pd is not None and isinstance(result, pd.DataFrame):
        return ctx.spark.createDataFrame(result)
    raise RatError(
        f"run(spark, ctx) returned {type(result).__name__}; return a Spark DataFrame, a pandas DataFrame or a pyarrow Table",
        relpath,
    )


def build_python(ctx: RunContext, pipeline: LoadedPipeline) -> "DataFrame":
    relpath = pipeline.source_relpath
    problems = python_problems(pipeline.source, relpath)
    if problems:
        raise RatError.from_problem(problems[0])
    namespace: dict[str, Any] = {"__name__": f"rat_pipeline_{pipeline.ref.name}"}
    try:
        exec(compile(pipeline.source, relpath, "exec"), namespace)  # the AST guard ran above
        result = namespace["run"](ctx.spark, PythonContext(ctx))
    except RatError as exc:
        if exc.path is None:  # from ctx.ref() / ctx.landing_zone(): name the pipeline's line (its kind kept)
            raise type(exc)(exc.message, relpath, _line_in(exc, relpath)) from None
        raise
    except Exception as exc:
        message, _ = summarise(exc)
        line = _line_in(exc, relpath, pipeline.source, message)
        raise RatError(f"{type(exc).__name__} in run(): {message}", relpath, line) from None
    df = _to_dataframe(ctx, result, relpath)
    if not ctx.preview:  # SQL's lineage is read from its text; Python's only from the plan of what it returned
        hand_over(ctx.run_id, dataframe_lineage(df, ctx.project, ctx.ref.fqn, ctx.inputs))
    return df


def _line_in(exc: BaseException, relpath: str, source: str = "", message: str = "") -> int | None:
    """The pipeline's line where `exc` arose. Python gives the line a multi-line call starts on
    (`return df.select(` over the column list); when the message names what it could not resolve
    (`stauts`), the line of that call which spells it."""
    tb, inner = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == relpath:
            inner = tb
        tb = tb.tb_next
    if inner is None:
        return None
    named = _NAMED.search(message)
    first, last = _call_lines(inner)
    if named is not None and first is not None and last is not None:
        word = re.compile(rf"(?<![\w]){re.escape(named.group(1))}(?![\w])")
        lines = source.splitlines()
        for number in range(first, min(last, len(lines)) + 1):
            if word.search(lines[number - 1]):
                return number
    return inner.tb_lineno


_NAMED = re.compile(r"`(?:[^`]+`\.`)*([^`]+)`")  # the first name in back-quotes: `stauts`, `o`.`stauts`


def _call_lines(tb: TracebackType) -> tuple[int | None, int | None]:
    """First and last line of the expression that was running in the frame (its call's arguments too)."""
    positions = list(tb.tb_frame.f_code.co_positions())
    index = tb.tb_lasti // 2  # one position per two-byte code unit
    first, last, *_ = positions[index] if 0 <= index < len(positions) else (None, None)
    return first, last


def build(ctx: RunContext, pipeline: LoadedPipeline) -> "DataFrame":
    df = build_sql(ctx, pipeline) if pipeline.kind == "sql" else build_python(ctx, pipeline)
    check_result(df, pipeline.config, pipeline.source_relpath)
    return df


def materialise(df: "DataFrame", relpath: str, arrival: "Column | None" = None) -> tuple["DataFrame", int]:
    """Run the query once and count its rows; later phases read the checkpoint, so the result cannot change
    under them. The count is the job that fills the checkpoint: an eager checkpoint and then a count were
    two jobs (a unit test's table_after, a merge's run). `arrival`: RunContext.arrival."""
    try:
        checkpoint = output_order(df, arrival).localCheckpoint(eager=False)
        return checkpoint, checkpoint.count()
    except Exception as exc:
        if is_cancellation(exc):
            raise
        message, line = summarise(exc)
        raise RatError(f"query failed: {message}", relpath, line) from None
