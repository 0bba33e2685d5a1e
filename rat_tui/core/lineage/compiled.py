"""A SQL pipeline compiled for lineage: its template rendered as a first run, each `ref()` and
`landing_zone()` written as the three-part name the lineage knows it by (`ns.layer.name`,
`ns.landing.zone`), so the query can be read without Spark or a run."""
from __future__ import annotations

from ..errors import RatError
from ..project.graph import zone_node
from ..project.partitions import PLACEHOLDER_INTERVAL
from ..project.pipeline_source import LoadedPipeline
from ..project.templating import render

# What a first run sees; `watermark_value` stays undefined, as it does on a first run.
_RUN_STARTED_AT = "2000-01-01 00:00:00.000000"


def quoted(name: str) -> str:
    """`ns.layer.name` back-quoted part by part: names may hold hyphens."""
    return ".".join(f"`{part}`" for part in name.split("."))


def compiled_sql(pipeline: LoadedPipeline) -> str:
    """The query the pipeline runs on a first run (or a full refresh); RatError if it cannot render."""
    ref = pipeline.ref

    def table(name: str) -> str:
        target = ref.resolve(name)
        return quoted(target.fqn if target else str(name))

    context = {"ref": table, "landing_zone": lambda zone: quoted(zone_node(ref.namespace, zone)),
               "this": quoted(ref.fqn), "run_started_at": _RUN_STARTED_AT, "is_incremental": lambda: False,
               "is_scd2": lambda: False, "config": pipeline.config.as_dict(), **PLACEHOLDER_INTERVAL}
    return render(pipeline.source, pipeline.source_relpath, context)


def syntax_problem(pipeline: LoadedPipeline) -> str | None:
    """Why a SQL pipeline's query does not parse, read as Spark SQL without Spark (sqlglot), at its line; None
    when it parses, or is no SQL pipeline, or does not render (validate says that). sqlglot is no Spark: a
    caller warns with this, and never refuses by it alone."""
    import sqlglot
    from sqlglot.errors import ParseError

    if pipeline.kind != "sql":
        return None
    try:
        sql = compiled_sql(pipeline)
    except RatError:
        return None
    try:
        sqlglot.parse(sql, dialect="spark")
    except ParseError as exc:
        first = exc.errors[0] if exc.errors else {}
        line = f":{first['line']}" if first.get("line") else ""
        reason = first.get("description") or str(exc).splitlines()[0]
        return f"{pipeline.source_relpath}{line}: the query does not parse as Spark SQL ({reason})"
    return None
