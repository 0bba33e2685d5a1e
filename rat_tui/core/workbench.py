"""The command layer: every action the TUI and `--script` offer, as plain methods returning data."""
from __future__ import annotations

import os
import re
import secrets
import threading
from datetime import datetime, timezone
from pathlib import Path

from .catalog import IcebergTable
from .errors import RatError
from .events import EventBus
from .executor import RunOptions
from .pipeline_source import load_pipeline
from .project import PipelineRef, Project
from .quality import row_values
from .recovery import drop_leftovers, mark_orphans
from .run_context import RunContext
from .build import build
from .runner import RunHandle, Runner
from .spark_errors import summarise
from .spark_session import SparkManager
from .state import StateDB
from .table_metadata import load_table, snapshots, table_stats
from .validate import validate

QUERY_ROW_LIMIT = 1000
_READ_ONLY = re.compile(r"^\s*(select|with|show|describe|desc|explain|values|table)\b", re.I)
_COMMENTS = re.compile(r"(--[^\n]*\n?)|(/\*.*?\*/)", re.S)


class Workbench:
    """One open project and the services built on it. Faces call these methods; nothing here renders."""

    def __init__(self, root: Path | str):
        self.project = Project(root)
        self.events = EventBus()
        self.state = StateDB(self.project.state_dir / "state.db")
        self.spark = SparkManager(self.project, self.events)
        self.runner = Runner(self.project, self.spark, self.state, self.events)
        self.recovered = mark_orphans(self.state)
        self._cleanup_lock = threading.Lock()

    def close(self) -> None:
        self.spark.stop()

    # -- recovery -----------------------------------------------------------------------
    def needs_cleanup(self) -> bool:
        return bool(self.state.unresolved_branches())

    def cleanup_leftovers(self) -> list[str]:
        """Drop branches of crashed runs (needs Spark; the TUI calls this from a worker)."""
        with self._cleanup_lock:
            if not self.needs_cleanup():
                return []
            with self.spark.using() as spark:
                return drop_leftovers(self.state, spark, self.spark.ensure_catalog)

    # -- browsing -------------------------------------------------------------------
    def ls(self) -> dict:
        scan = self.project.scan()
        return {
            "namespaces": [
                {"name": ns.name, "pipelines": [p.fqn for p in ns.pipelines], "zones": [z.name for z in ns.zones]}
                for ns in scan.namespaces
            ]
        }

    def validate(self, pipeline: str | None = None) -> dict:
        only = self.project.find_pipeline(pipeline) if pipeline else None
        problems = validate(self.project, only)
        errors = [p for p in problems if p.is_error]
        result = {"problems": [p.as_dict() for p in problems]}
        if errors:
            raise RatError.with_result(f"{len(errors)} problem(s) found; first: {errors[0].sentence()}", result)
        return result

    def resolve(self, text: str) -> PipelineRef:
        return self.project.find_pipeline(text)

    def table_refs(self) -> list[PipelineRef]:
        """Tables on disk (hadoop catalog layout), whether or not a pipeline still produces them."""
        found = []
        for ns in self.project.scan().namespaces:
            warehouse = self.project.warehouse_dir(ns.name)
            for layer_dir in sorted(warehouse.glob("*")) if warehouse.is_dir() else []:
                for table_dir in sorted(layer_dir.glob("*")):
                    if (table_dir / "metadata").is_dir():
                        found.append(PipelineRef(ns.name, layer_dir.name, table_dir.name))
        return found

    def tables(self) -> dict:
        rows = []
        for ref in self.table_refs():
            table = load_table(self.project.table_dir(ref), ref.fqn)
            rows.append({"name": ref.fqn, **table_stats(table)})
        return {"tables": rows}

    def snapshots(self, pipeline: str) -> dict:
        ref = PipelineRef.parse(pipeline)
        table = load_table(self.project.table_dir(ref), ref.fqn)
        found, refs = snapshots(table)
        by_snapshot = {r.snapshot_id: r.run_id for r in self.state.runs(ref.fqn, limit=10_000) if r.snapshot_id}
        return {
            "snapshots": [{**s.as_dict(), "run_id": s.run_id or by_snapshot.get(s.snapshot_id)} for s in found],
            "refs": refs,
        }

    def runs(self, pipeline: str | None = None, limit: int = 20) -> dict:
        name = PipelineRef.parse(pipeline).fqn if pipeline else None
        return {"runs": [r.as_dict() for r in self.state.runs(name, limit)]}

    # -- running --------------------------------------------------------------------
    def submit(self, pipeline: str, full_refresh: bool = False, published: bool = False, trigger: str = "manual") -> RunHandle:
        ref = self.resolve(pipeline)
        if published:
            raise RatError(f"{ref.fqn} has no published version yet; publish it first or run the working copy")
        if self.needs_cleanup():
            self.cleanup_leftovers()
        return self.runner.submit(ref, RunOptions(full_refresh=full_refresh), trigger=trigger)

    def run(self, pipeline: str, full_refresh: bool = False, published: bool = False) -> dict:
        record = self.submit(pipeline, full_refresh, published).wait()
        result = {"run": record.as_dict()}
        if record.status != "success":
            raise RatError.with_result(f"run {record.run_id} of {record.pipeline} {record.status}: {record.error}", result)
        return result

    def cancel(self, run_id: str) -> bool:
        return self.runner.cancel(run_id)

    def wait_idle(self, timeout: float | None = None) -> dict:
        return {"runs": [r.as_dict() for r in self.runner.wait_idle(timeout)]}

    def preview(self, pipeline: str, limit: int = 20) -> dict:
        """Phases 1-2 only: compile and execute, write nothing."""
        ref = self.resolve(pipeline)
        loaded, problems = load_pipeline(ref, self.project.read_pipeline_files(ref))
        errors = [p for p in problems if p.is_error]
        if loaded is None or errors:
            raise RatError.from_problem(errors[0])
        with self.spark.using() as spark:
            self.spark.ensure_catalog(ref.namespace)
            table = IcebergTable(spark, ref)
            started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
            ctx = RunContext(
                spark, self.project, ref, loaded.config, f"preview_{secrets.token_hex(3)}", started, table,
                table.exists(), ensure_catalog=self.spark.ensure_catalog,
            )
            try:
                df = build(ctx, loaded)
                rows = self._collect(df, limit, loaded.source_relpath)
            finally:
                ctx.cleanup()
        return {"columns": df.columns, "rows": [row_values(r) for r in rows]}

    def query(self, sql: str) -> dict:
        if not _READ_ONLY.match(_COMMENTS.sub(" ", sql)):
            raise RatError("query is read-only: start with SELECT, WITH, SHOW, DESCRIBE or EXPLAIN")
        with self.spark.using() as spark:
            try:
                df = spark.sql(sql)
            except Exception as exc:
                message, line = summarise(exc)
                raise RatError(f"SQL error{f' on line {line}' if line else ''}: {message}") from None
            rows = self._collect(df, QUERY_ROW_LIMIT + 1, "query")
        result = {"columns": df.columns, "rows": [row_values(r) for r in rows[:QUERY_ROW_LIMIT]]}
        if len(rows) > QUERY_ROW_LIMIT:
            result["truncated"] = True
        return result

    @staticmethod
    def _collect(df, limit: int, where: str) -> list:
        try:
            return df.limit(limit).collect()
        except Exception as exc:
            message, _ = summarise(exc)
            raise RatError(f"query failed: {message}", where) from None

    # -- files ----------------------------------------------------------------------
    def write(self, relpath: str, content: str) -> dict:
        """Write a project file atomically (temp file, then rename), as an editor save would."""
        target = (self.project.root / relpath).resolve()
        if self.project.root not in target.parents:
            raise RatError(f"'{relpath}' is outside the project folder")
        target.parent.mkdir(parents=True, exist_ok=True)
        temp = target.with_name(f".{target.name}.rat-tmp-{os.getpid()}")
        temp.write_text(content, encoding="utf-8")
        os.replace(temp, target)
        return {"path": self.project.rel(target)}
