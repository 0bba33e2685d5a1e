"""The command layer: every action the TUI and `--script` offer, as plain methods returning data."""
from __future__ import annotations

import secrets
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from ..automation.service import Automation
from ..automation.store import TickStore
from ..errors import RatError
from ..events import EventBus
from ..freshness.policy import clash_problems as freshness_problems
from ..freshness.service import FreshnessService
from ..lake.metadata import load_table, table_stats
from ..lake.session import SparkManager
from ..lake.spark_errors import summarise
from ..lake.table import IcebergTable
from ..landing.load_history import LoadHistory
from ..lineage.run_lineage import RunLineage
from ..lineage.run_store import LineageStore
from ..lineage.schemas import SchemaReader
from ..lineage.service import ColumnLineage
from ..project.graph import GraphCache
from ..project.model import PipelineRef, Project
from ..lake.sql_guard import check_read_only
from ..project.validate import validate
from ..run.build import build
from ..run.context import RunContext, run_timestamp
from ..run.explain import watermark_note
from ..run.intervals import preview_interval
from ..run.loading import load_checked
from ..run.phases import RunOptions
from ..run.recovery import drop_leftovers, leftover_stages, mark_orphans
from ..run.run_log import RunLog
from ..run.runner import RunHandle, Runner
from ..run.selection import Selector
from ..store.presence import OpenMark
from ..store.state import StateDB
from ..unittests.scratch import ScratchCatalog
from ..values import row_values

if TYPE_CHECKING:
    from ..remote.storage import BucketStorage

from .base import open_storage
from .browse_results import (
    Listing,
    NamespaceOverview,
    Overview,
    PipelineOverview,
    ProblemList,
    QueryResult,
    TableOverview,
    ZoneOverview,
)
from .bucket import BucketCommands
from .console_export import ExportCommands
from .files import FileCommands
from .graph_commands import GraphCommands
from .intervals_commands import IntervalCommands
from .landing_commands import LandingCommands
from ..background.outside import OutsideChanges
from .review_commands import ReviewCommands
from .run_results import RunList, RunResult, SelectionResult
from .tables import TableCommands
from .unit_tests import UnitTestCommands
from .upkeep import UpkeepCommands
from .versions import VersionCommands
from ..background.warm_up import start_warm_up
from ..background.settings_watch import SettingsWatch
from ..background.watching import Watching

QUERY_ROW_LIMIT = 1000


class Workbench(GraphCommands, TableCommands, LandingCommands, UpkeepCommands, VersionCommands, BucketCommands,
                FileCommands, ExportCommands, UnitTestCommands, ReviewCommands, IntervalCommands):
    """One open project and the services built on it. Faces call these methods; nothing here renders.

    Browsing and running live here; the other groups of commands live in `core/commands/`.
    """

    def __init__(self, root: Path | str, one_shot: bool = False):
        """`one_shot`: this process runs one script and exits (Spark starts tuned for that)."""
        self.project = Project(root)
        self.events = EventBus()
        self.state = StateDB(self.project.state_dir / "state.db")
        self.storage, self.versions = open_storage(self.project, self.state)
        self.open_mark = OpenMark(self.project.state_dir)  # so `generate.py --all` refuses while this runs
        self.spark = SparkManager(self.project, self.events, self.storage, one_shot)
        self.runner = Runner(self.project, self.spark, self.state, self.events, self.storage)
        self.graph_cache = GraphCache(self.project)
        self.lineage_store = LineageStore(self.state)
        schemas = SchemaReader(self.project)
        self.column_lineage = ColumnLineage(self.project, self.graph_cache, schemas, self.lineage_store)
        self.events.subscribe(RunLineage(self.project, self.state, self.column_lineage, schemas, self.lineage_store,
                                         self.versions, lambda run_id: self.automation.cause_of(run_id)))
        self.selections = []
        self._selections_lock = threading.Lock()
        self.run_log = RunLog(self.project.state_dir / "logs" / "runs.jsonl")
        self.events.subscribe(self.run_log)
        self.recovered = mark_orphans(self.state, self.project, self.storage.landing_archive)
        self._cleanup_lock = threading.Lock()
        self.watching = Watching(self)  # off until a face turns it on
        self.outside = OutsideChanges(self)  # other processes' runs, state deleted under the app: a face starts it
        # rat.yaml and config.yaml saves take effect while a face is open: the face starts it
        self.settings_watch = SettingsWatch(self.project, self.events, self.project.settings.watch_debounce_ms / 1000)
        self.unit_last = {}  # (pipeline, test name) -> its last UnitResult in this process
        self.unit_catalog = ScratchCatalog()
        self.freshness = FreshnessService(self.project, self.state, self.spark)
        self.automation = Automation(self.project, TickStore(self.state), self.events,
                                     lambda pipeline, kind: self.submit(pipeline, trigger=kind), self.graph,
                                     self.freshness)

    @property
    def remote(self) -> BucketStorage | None:
        """The bucket, for what only a bucket offers (push, pull, its status)."""
        return self.storage if self.storage.is_bucket else None  # type: ignore[return-value]

    def close(self) -> None:
        self.outside.stop()
        self.watching.stop()
        self.spark.stop()
        self.unit_catalog.close()
        self.open_mark.close()

    def warm_up(self) -> threading.Thread:
        """Start Spark in the background, then warm it on a run's paths out of sight (warm_up.py)."""
        self.spark.start_background()
        return start_warm_up(self.spark)

    # -- recovery -----------------------------------------------------------------------
    def needs_cleanup(self) -> bool:
        return bool(self.state.unresolved_branches() or leftover_stages(self.project, self.state))

    def cleanup_leftovers(self) -> list[str]:
        """Drop branches of crashed runs (needs Spark; the TUI calls this from a worker)."""
        with self._cleanup_lock:
            if not self.needs_cleanup():
                return []
            with self.spark.using() as spark:
                return drop_leftovers(self.state, self.project, spark, self.spark.ensure_catalog)

    # -- browsing -------------------------------------------------------------------
    def ls(self) -> Listing:
        return Listing(self.project.scan())

    def overview(self) -> Overview:
        """Everything the project tree shows, in one pass over disk and state (no Spark)."""
        scan = self.project.scan()
        tables = {ref.fqn: ref for ref in self.table_refs()}
        namespaces = []
        for ns in scan.namespaces:
            pipelines = []
            for ref in ns.pipelines:
                last = self.state.runs(ref.fqn, limit=1)
                pipelines.append(PipelineOverview(ref, last[0].outcome if last else None,
                                                  self.versions.current(ref) is not None, self.drift(ref),
                                                  self.storage.pipeline_state(ref)))
            zones = [ZoneOverview(z.name, len(z.active_files())) for z in ns.zones]
            ns_tables = [self._table_overview(ref) for ref in tables.values() if ref.namespace == ns.name]
            namespaces.append(NamespaceOverview(ns.name, pipelines, zones, ns_tables))
        return Overview(namespaces, [p.sentence() for p in scan.problems if p.is_error])

    def _table_overview(self, ref: PipelineRef) -> TableOverview:
        try:
            stats = table_stats(load_table(self.project.table_dir(ref), ref.fqn))
        except Exception:  # a damaged table still shows, with its name
            return TableOverview(ref, None, None)
        return TableOverview(ref, stats["snapshot_id"], stats["rows"])

    def validate(self, pipeline: str | None = None) -> ProblemList:
        only = self.project.find_pipeline(pipeline) if pipeline else None
        problems = validate(self.project, only) + self.automation.problems(only) + freshness_problems(self.project, only)
        problems += self.column_lineage.working_copy_problems(only)
        problems += self.column_lineage.partition_column_problems(only)
        errors = [p for p in problems if p.is_error]
        result = ProblemList(problems)
        if errors:
            raise RatError.with_result(f"{len(errors)} problem(s) found; first: {errors[0].sentence()}", result)
        return result

    def resolve(self, text: str) -> PipelineRef:
        return self.project.find_pipeline(text)

    def runs(self, pipeline: str | None = None, limit: int = 20) -> RunList:
        name = PipelineRef.parse(pipeline).fqn if pipeline else None
        return RunList(self.state.runs(name, limit))

    # -- running --------------------------------------------------------------------
    def submit(self, pipeline: str, full_refresh: bool = False, published: bool = False, trigger: str = "manual",
               reload_files: bool = False, join_since: float | None = None, review: bool = False,
               review_group: str | None = None, upstream_branches: dict[str, str] | None = None) -> RunHandle:
        """`upstream_branches`: tables ref() reads from a held run's branch; such a run is held too."""
        ref = self.resolve(pipeline)
        options = RunOptions(full_refresh=full_refresh, reload_files=reload_files, review=review or bool(upstream_branches),
                             review_group=review_group, upstream_branches=upstream_branches or {})
        version = "draft"
        if published:
            self.storage.pull_published()
            pinned = self.versions.current(ref)
            if pinned is None:
                raise RatError(f"{ref.fqn} has no published version yet; publish it first or run the working copy")
            options.files, version = self.versions.read_pinned(ref, pinned), str(pinned.version)
        if self.needs_cleanup():
            self.cleanup_leftovers()
        return self.runner.submit(ref, options, version=version, trigger=trigger, join_since=join_since)

    def request_run(self, ref: PipelineRef, trigger: str, changed_at: float) -> RunHandle:
        """A draft run for files changed at `changed_at`: a burst of saves, or saves during a run, give one more
        run, not many; a run another process started after the change covers it (run/across_processes.py)."""
        queued = self.runner.queued_run(ref)
        if queued is None:
            return self.submit(ref.fqn, trigger=trigger, join_since=changed_at)
        if queued.join_since is not None:  # a run asked for by hand runs anyway
            queued.join_since = max(queued.join_since, changed_at)
        return queued

    def run(self, pipeline: str, full_refresh: bool = False, published: bool = False, reload_files: bool = False,
            review: bool = False) -> RunResult | SelectionResult:
        """One pipeline (result `run`), or a selector `NAME+`, `+NAME`, `+NAME+` (result `runs`).

        `reload_files`: load the landing files its load history says it loaded already (one pipeline only).
        `review`: the run stops before main, awaiting `approve` or `reject` (status awaiting_review)."""
        if Selector.parse(pipeline).is_graph:
            if reload_files:
                raise RatError("--reload-files reloads the files of one pipeline; name one, not a selector")
            return self.run_selection(pipeline, full_refresh, published, review=review)
        record = self.submit(pipeline, full_refresh, published, reload_files=reload_files, review=review).wait()
        result = RunResult(record, self.impact(record) if record.status == "awaiting_review" else None)
        if record.status not in ("success", "awaiting_review"):
            raise RatError.with_result(f"run {record.run_id} of {record.pipeline} {record.status}: {record.error}", result)
        return result

    def cancel(self, run_id: str) -> bool:
        return self.cancel_selection_of(run_id) or self.runner.cancel(run_id)

    def wait_idle(self, timeout: float | None = None) -> RunList:
        return RunList(self.runner.wait_idle(timeout))

    def preview(self, pipeline: str, limit: int = 20) -> QueryResult:
        """Phases 1-2 only (config_loading, build_result), checked as a run checks them; writes nothing."""
        ref = self.resolve(pipeline)
        loaded = load_checked(ref, self.project.read_pipeline_files(ref))
        with self.spark.using(isolated=True) as spark:
            ctx = self.preview_context(spark, ref, loaded.config)
            try:
                df = build(ctx, loaded)
                rows = self._collect(df, limit, loaded.source_relpath)
                samples = [f"{label} holds nothing new: read its _samples/" for label in ctx.landing.nothing_new]
                note = "; ".join(samples) or (None if rows else watermark_note(ctx))
            finally:
                ctx.cleanup()
        return QueryResult(df.columns, [row_values(r) for r in rows], note=note)

    def preview_context(self, spark, ref: PipelineRef, config, kind: type[RunContext] = RunContext) -> RunContext:
        """What a run would read, on `spark`, for a build that writes nothing (a preview, a fixture)."""
        self.spark.ensure_catalog(ref.namespace)
        table = IcebergTable(spark, ref)
        return kind(spark, self.project, ref, config, f"preview_{secrets.token_hex(3)}",
                    run_timestamp(datetime.now(timezone.utc)), table, table.exists(), self.storage,
                    ensure_catalog=self.spark.ensure_catalog, memory=LoadHistory(self.state), preview=True,
                    interval=preview_interval(config))

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
            rows = self._collect(df, QUERY_ROW_LIMIT + 1, "query")
        return QueryResult(df.columns, [row_values(r) for r in rows[:QUERY_ROW_LIMIT]], len(rows) > QUERY_ROW_LIMIT)

    @staticmethod
    def _collect(df, limit: int, where: str) -> list:
        try:
            return df.limit(limit).collect()
        except Exception as exc:
            message, _ = summarise(exc)
            raise RatError(f"query failed: {message}", where) from None
