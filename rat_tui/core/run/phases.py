"""One run of one pipeline in six phases, on its own Iceberg branch.

`PHASES` in order, numbered 0-5 as the reference numbers them: 0 branch_creation, 1 config_loading,
2 build_result, 3 iceberg_write, 4 quality_tests, 5 branch_resolution. Results and events carry
these ids.

Whatever happens (failure, cancellation, an exception), the branch is dropped and a table
created by this run is removed again unless the run reached `main`.
"""
from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from .. import testpoints
from ..errors import RatError, RunCancelled
from ..events import (
    EventBus,
    IntervalsPlanned,
    LogLine,
    PhaseFinished,
    PhaseProgress,
    PhaseStarted,
    QualityResultEvent,
)
from ..lake.jvm_names import literal
from ..lake.schema_change import pending_changes
from ..lake.spark_errors import is_cancellation, summarise
from ..lake.table import IcebergTable, run_branch
from ..notes import RunNote
from ..project.model import PipelineRef, Project
from ..project.partitions import Interval
from ..project.pipeline_source import LoadedPipeline
from ..project.settings import target_file_size
from ..store.state import QualityOutcome, RunRecord, StateDB
from .build import build
from ..landing.load_history import LoadHistory
from .context import RunContext, run_timestamp
from . import diff_gates, intervals, landing_steps
from .explain import unique_key_changed, why_no_rows
from .loading import load_checked
from .names import case_sensitive
from .outcomes import BuildOutcome
from .progress import watch_tasks
from .publish import check_main_unchanged, fast_forward
from .quality import run_quality_test
from .rebuild import create_stage, replace_from_stage
from .schema_evolution import align, apply_plan, plan_schema, settle_schema_changes
from .strategies import (
    UNIQUE_KEY_PROPERTY,
    WRITERS,
    WriteJob,
    partition_by,
    run_strategy,
    strategy_properties,
    table_properties,
    table_schema,
    writes_once,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from ..landing.file_read import FileRead
    from ..lineage.null_columns import NullColumns
    from ..storage import Storage

log = logging.getLogger(__name__)

PHASES = ("branch_creation", "config_loading", "build_result", "iceberg_write", "quality_tests", "branch_resolution")
PHASES_WITHOUT_JOBS = ("branch_creation", "config_loading")  # no Spark job to follow: no progress thread


@dataclass
class RunOptions:
    full_refresh: bool = False
    files: dict[str, bytes] | None = None  # pinned content for `run --published`; None = working folder
    reload_files: bool = False  # load files the load history says this pipeline loaded already
    review: bool = False  # stop before main with the branch kept (also `@review: true`); see diff_gates.hold
    review_group: str | None = None  # the selection a reviewed run belongs to (approved or rejected together)
    upstream_branches: dict[str, str] = field(default_factory=dict)  # fqn -> branch its ref() reads instead of main
    intervals: list[Interval] | None = None  # a backfill's intervals of a partitioned pipeline (intervals.py)
    read_not_before: float | None = None  # a save's run reads its files no sooner (runner.py)


class _WriteFailed(Exception):
    """The write's Spark job failed: `error` is the sentence, `cause` what Spark raised (a landing read
    may widen and write again)."""

    def __init__(self, error: RatError, cause: BaseException):
        super().__init__(error.sentence())
        self.error, self.cause = error, cause


class Execution:
    def __init__(
        self,
        spark: "SparkSession",
        project: Project,
        record: RunRecord,
        ref: PipelineRef,
        options: RunOptions,
        state: StateDB,
        events: EventBus,
        cancelled: threading.Event,
        ensure_catalog: Callable[[str], None],
        storage: Storage,
        null_columns: NullColumns | None = None,
    ):
        """`null_columns`: who reads a column this run leaves NULL, and whether it reads one (None: not asked)."""
        self.spark, self.project, self.record, self.ref = spark, project, record, ref
        self.storage, self.null_columns = storage, null_columns
        self.options, self.state, self.events, self.cancelled = options, state, events, cancelled
        self.ensure_catalog = ensure_catalog
        self.table = IcebergTable(spark, ref)
        self.branch = run_branch(record.run_id)
        self.branch_made = False
        self.table_existed = False
        self.base_snapshot: int | None = None
        # the Java table as the run loaded it, while nothing has committed to it since: the schema and the
        # branch are read and made from it (two catalog loads fewer a run); None once anything commits
        self.java_table = None
        self.stored_unique_key: str | None = None  # main's, as config_loading read it from java_table
        self.schema_id: int | None = None  # what the run writes with; main must still have it to publish
        self.schema_changes_pending = False  # this run changed the schema, or found changes to settle
        self.stage: IcebergTable | None = None  # a rebuild writes here (rebuild.py)
        self.files_read: dict[tuple[str, str], list[FileRead]] = {}
        self.ctx: RunContext | None = None
        self.built: BuildOutcome | None = None  # what the build_result phase made (its result: what the write writes)
        self.schema_notes: list[RunNote] = []  # what the write does to the table's columns
        self.input_notes: list[RunNote] = []  # the columns it reads that an input's last run left NULL
        self.pipeline: LoadedPipeline | None = None
        self.held = False  # stopped before main, awaiting review: cleanup keeps the branch
        self.intervals: list[Interval] | None = None  # a partitioned pipeline's intervals this run writes

    @property
    def result(self) -> "DataFrame | None":
        return self.built.result if self.built is not None else None

    @property
    def nothing_new(self) -> str | None:
        """"nothing new in …": the run writes nothing, main stays."""
        return self.built.nothing_new if self.built is not None else None

    @property
    def review(self) -> bool:
        """The run stops before main: asked for, or the pipeline's `review` setting."""
        return self.options.review or (self.pipeline is not None and self.pipeline.config.review)

    # -- plumbing -----------------------------------------------------------------
    def log(self, message: str, level: str = "info") -> None:
        getattr(log, level if level != "warn" else "warning")("[%s] %s", self.record.run_id, message)
        self.events.publish(LogLine(self.record.run_id, level, message))

    def check_cancel(self) -> None:
        if self.cancelled.is_set():
            raise RunCancelled()

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[dict]:
        self.check_cancel()
        info: dict = {"rows": None}
        self.events.publish(PhaseStarted(self.record.run_id, name))
        began = time.monotonic()
        ok, message, cancelled = False, "", False
        try:
            if name in PHASES_WITHOUT_JOBS:
                progress = contextlib.nullcontext()
            else:
                progress = watch_tasks(self.spark.sparkContext, self.record.run_id, lambda done, total: self.events.publish(
                    PhaseProgress(self.record.run_id, name, done, total)))
            with progress:
                yield info
            ok = True
        except BaseException as exc:
            cancelled = isinstance(exc, RunCancelled) or (is_cancellation(exc) and self.cancelled.is_set())
            if cancelled and not isinstance(exc, RunCancelled):  # Spark's "Job 74 cancelled" and its JVM stack
                log.info("[%s] %s cancelled", self.record.run_id, name, exc_info=exc)
            message = "cancelled" if cancelled else exc.sentence() if isinstance(exc, RatError) else str(exc)
            raise
        finally:
            ms = int((time.monotonic() - began) * 1000)
            self.record.phases[name] = ms
            if info["rows"] is not None:
                self.record.phase_rows[name] = info["rows"]
            self.state.update_run(self.record.run_id, phases=self.record.phases, phase_rows=self.record.phase_rows)
            self.events.publish(PhaseFinished(self.record.run_id, name, ms, ok, info["rows"],
                                              message or info.get("message", ""), cancelled))
            testpoints.reached(f"after:{name}")

    # -- the phases -------------------------------------------------------------------
    def run(self) -> None:
        """Runs the phases; raises RatError / RunCancelled; always cleans up its branch."""
        run_started_at = run_timestamp(datetime.now(timezone.utc))
        self.spark.sparkContext.setJobGroup(self.record.run_id, f"rat run {self.ref.fqn}", interruptOnCancel=True)
        try:
            with self.phase("branch_creation"):
                # Fixes what the run branches from; the branch itself is made just before the first
                # write, so a run refused or failed before writing leaves the table's metadata untouched.
                self.ensure_catalog(self.ref.namespace)
                loaded = self.java_table = self.table.loaded()
                self.table_existed = loaded is not None
                if loaded is not None and pending_changes(self.spark, loaded):  # a crashed run's, say: never built on
                    self.settle_schema_changes()
                    self.java_table = None
                self.base_snapshot = self.table.head("main", loaded) if loaded is not None else None
            with self.phase("config_loading"):
                self.pipeline = self.load()
                self.refuse_changed_unique_key()
                memory = LoadHistory(self.state)
                history = memory if self.pipeline.config.loads_files_once else None
                self.ctx = RunContext(
                    self.spark, self.project, self.ref, self.pipeline.config, self.record.run_id, run_started_at,
                    self.table, self.table_existed, self.storage, self.options.full_refresh, self.log, self.ensure_catalog,
                    history, memory, self.options.reload_files, upstream_branches=self.options.upstream_branches,
                )
                self.intervals = intervals.plan(self.state, self.pipeline, self.record.run_id, self.options.intervals,
                                                self.options.full_refresh)
                if self.intervals:
                    self.announce_intervals(self.intervals)
            with self.phase("build_result") as info:
                self.built = self.build_result()
                info["rows"], info["message"] = self.built.phase_rows, self.built.nothing_new or ""
                self.record_files_read()
            with self.phase("iceberg_write") as info:
                if self.nothing_new is None:
                    info["rows"] = self.record.rows_written = self.write()
                    landing_steps.check_unchanged(self.project, self.files_read)
                    info["message"] = "; ".join(
                        [*(n.text for n in self.schema_notes), *why_no_rows(self.ctx, self.record.rows_written, self.log)])
                else:
                    info["message"] = self.nothing_new
            with self.phase("quality_tests"):
                blocking = self.quality() if self.nothing_new is None else None
                if blocking:  # the phase that failed carries the failure
                    raise RatError(blocking)
            with self.phase("branch_resolution"):
                # Archive before merging: a crash in between is undone at the next start
                # (files put back, main untouched), so no batch is ever read twice or lost.
                landing_steps.record_loads(self.ctx.landing, self.ref, self.record.run_id, self.files_read)
                if self.pipeline.config.archive_landing_zones:
                    self.archive()
                try:
                    if self.nothing_new is not None:
                        self.record_published(self.base_snapshot)
                    elif self.review:
                        self.hold()
                    else:
                        self.replace_main() if self.stage is not None else self.merge()
                except BaseException:
                    landing_steps.unarchive(self.ctx.landing if self.ctx is not None else None, self.ref, self.project,
                                            self.storage, self.record.run_id, self.files_read, self.log)
                    raise
        except BaseException as exc:
            if is_cancellation(exc) and self.cancelled.is_set():
                raise RunCancelled() from None
            raise
        finally:
            self.cleanup()

    def make_branch(self, at_snapshot: int | None = None) -> None:
        """The run's branch, from the main the run began with (it publishes only onto that: see merge)."""
        self.state.update_run(self.record.run_id, branch=self.branch)
        self.table.create_branch(self.branch, at_snapshot, self.java_table)
        self.java_table = None
        self.branch_made = True
        if at_snapshot is None:  # a table this run created: its branch starts at the empty main
            self.base_snapshot = self.table.head(self.branch)

    def refuse_changed_unique_key(self) -> None:
        """A unique_key other than the table's is refused before the build (a new user waited out a 28.6 s build
        for it); the write's schema plan checks it again, and lets a --full-refresh rebuild the table."""
        if self.java_table is None or self.pipeline is None:
            return
        stored = self.stored_unique_key = self.java_table.properties().get(UNIQUE_KEY_PROPERTY)
        if not self.options.full_refresh and stored is not None and stored != ",".join(self.pipeline.config.unique_key):
            unique_key_changed(self.ref.fqn, stored, self.pipeline.config, False, self.pipeline.source_relpath,
                               case_sensitive(self.spark))

    def load(self) -> LoadedPipeline:
        if self.options.read_not_before is not None:
            self.cancelled.wait(self.options.read_not_before - time.time())
            self.check_cancel()
        files = self.options.files if self.options.files is not None else self.project.read_pipeline_files(self.ref)
        return load_checked(self.ref, files, lambda problem: self.log(problem.sentence(), "warn"))

    def build_result(self) -> BuildOutcome:
        """The result of the pipeline (of each of its intervals, for a partitioned one), or why nothing is new."""
        assert self.ctx is not None and self.pipeline is not None
        if self.intervals is None:
            runs_in_write = writes_once(self.pipeline.config, not self.table_existed or self.options.full_refresh)
            built = landing_steps.build_result(self.ctx, self.pipeline, runs_in_write, self.widen)
        else:
            built = intervals.build_result(self.ctx, self.pipeline, self.intervals, self.check_cancel, self.events)
        if built.nothing_new is not None:
            self.log(built.nothing_new)
        return built

    def announce_intervals(self, planned: list[Interval]) -> None:
        """Before the build: how many intervals, and a warning when so many make a long run."""
        warning = intervals.size_warning(planned)
        if warning:
            self.log(warning, "warn")
        self.events.publish(IntervalsPlanned(self.record.run_id, self.ref.fqn, len(planned), planned[0].start_text,
                                             planned[-1].end_text, warning))

    def record_files_read(self) -> None:
        """What the build phase read is what the run archives: landing_zone() in a quality test later must
        not widen it."""
        assert self.ctx is not None
        self.files_read = {zone: list(files) for zone, files in self.ctx.files_read.items()}
        self.record.inputs = dict(self.ctx.inputs)  # provenance: the snapshot of each table the result was built from
        self.record.landing = landing_steps.landing_result(self.ctx.landing, self.nothing_new)
        read = landing_steps.files_read_json(self.project, self.files_read)
        self.state.update_run(self.record.run_id, files_read=read, inputs=self.record.inputs, landing=self.record.landing)
        if self.null_columns is not None and self.pipeline is not None:
            self.input_notes = self.null_columns.reads(self.pipeline, self.record.inputs)
            for note in self.input_notes:
                self.log(note.text, "warn")
        self.record_notes()

    def record_notes(self) -> None:
        """The run's notes as they stand: what reading its zones did, then what its write did to the columns."""
        assert self.ctx is not None
        self.record.notes = landing_steps.run_notes(self.ctx.landing, [*self.input_notes, *self.schema_notes])
        self.state.update_run(self.record.run_id, notes=self.record.notes)

    def widen(self, exc: BaseException) -> bool:
        """After a failed read: True when a landing column was widened (what that did goes into the record);
        see landing_steps.widen."""
        assert self.ctx is not None and self.pipeline is not None
        if not landing_steps.widen(self.ctx, self.pipeline, exc, self.log):
            return False
        self.record.landing = landing_steps.landing_result(self.ctx.landing, self.nothing_new)
        self.state.update_run(self.record.run_id, landing=self.record.landing)
        self.record_notes()
        return True

    def archive(self) -> None:
        assert self.ctx is not None
        archived = landing_steps.archive(self.ctx.landing, self.ref, self.project, self.storage, self.record.run_id,
                                         self.files_read, self.log)
        self.state.update_run(self.record.run_id, archived_files=json.dumps(archived))

    def write(self) -> int:
        """The write; once more after a landing column was widened (what this try created is undone first)."""
        assert self.ctx is not None and self.pipeline is not None and self.built is not None
        try:
            return self.write_once()
        except _WriteFailed as failed:
            if not self.widen(failed.cause):
                raise failed.error from None
        self.undo_write()
        self.built = replace(self.built, result=build(self.ctx, self.pipeline))
        try:
            return self.write_once()
        except _WriteFailed as failed:
            raise failed.error from None

    def undo_write(self) -> None:
        """Before a second write after widening: a table this run created goes (it is empty), and a stage."""
        if self.stage is not None:
            self.stage.drop()
            self.stage = None
        if not self.table_existed:
            if self.branch_made or (self.state.get_run(self.record.run_id) or self.record).created_table:
                self.table.drop()
            self.state.update_run(self.record.run_id, created_table=False, branch=None)
            self.branch_made = False

    def write_once(self) -> int:
        assert self.ctx is not None and self.built is not None and self.result is not None
        assert self.pipeline is not None
        config = self.pipeline.config
        empty = True  # nothing on the target to merge with: keyed strategies just append
        if not self.table_existed:
            testpoints.reached("before:create_table")
            self.create_table(config)
            self.make_branch()
            self.log(f"created table {self.ref.fqn}")
        elif self.evolve_schema(config):
            self.stage = self.create_stage(config)
        else:
            self.make_branch(self.base_snapshot)
            if self.options.full_refresh and config.merge_strategy.value != "full_refresh":
                self.spark.createDataFrame([], self.table.schema()).writeTo(
                    self.table.branch_ident(self.branch)).overwrite(literal(self.spark, True))
            else:
                empty = False
        target = self.target
        job = WriteJob(target, self.branch, self.result, config, self.record.run_id, self.ctx.run_started_at,
                       self.built.rows, self.ctx.arrival(), target_empty=empty,
                       full_refresh=self.options.full_refresh, intervals=self.intervals is not None)
        # A branch made from main starts where the run began; an overwrite above or a stage moved it.
        moved = self.stage is not None or (empty and self.table_existed)
        before = target.head(self.branch) if moved else self.base_snapshot
        try:
            if self.intervals is None:
                WRITERS[config.merge_strategy](job)
            else:
                intervals.replace(config, self.intervals, job)
        except RatError:
            raise
        except Exception as exc:
            if is_cancellation(exc):
                raise
            message, line = summarise(exc)
            if writes_once(config, empty):  # the query itself runs in this write
                raise _WriteFailed(RatError(f"query failed: {message}", self.pipeline.source_relpath, line), exc) from None
            raise _WriteFailed(RatError(f"writing {self.ref.fqn} failed: {message}", self.pipeline.source_relpath), exc) from None
        finally:
            job.drop_views()
        if job.notes:
            self.schema_notes = [*self.schema_notes, *job.notes]
            for note in job.notes:
                self.log(note.text, "warn")
            self.record_notes()
        testpoints.reached("during:iceberg_write")
        after, added, run_id = target.head_summary(self.branch)
        if after == before:
            added, run_id = 0, None
        if run_id != self.record.run_id and self.stage is None:
            # The branch head must carry the run id (a SQL MERGE cannot set it): recovery asks
            # the table, not state.db, whether this run reached main. (A rebuild's replace carries it.)
            job.writer(self.spark.createDataFrame([], self.table.schema())).append()
        return added

    @property
    def target(self) -> IcebergTable:
        """Where the run writes and its quality tests read: the table's run branch, or a staging table."""
        return self.stage if self.stage is not None else self.table

    def create_stage(self, config) -> IcebergTable:
        assert self.result is not None
        stage = create_stage(self.spark, self.ref, self.record.run_id, self.branch,
                             table_schema(self.result.schema, config), self.properties(config), partition_by(config))
        self.log(f"rebuilding {self.ref.fqn} beside main (in {stage.ref.fqn}); main changes only if the run succeeds")
        return stage

    def properties(self, config) -> dict[str, str]:
        return table_properties(config, target_file_size(self.project.settings, self.ref.fqn))

    def create_table(self, config) -> None:
        """The run's first write. Ownership (dropped again if the run fails) is recorded only once
        the create succeeded: a run that lost a race to create the same table must never drop it."""
        assert self.result is not None
        try:
            by_interval = intervals.partitioning(config, self.result.schema)
            self.table.create_empty(table_schema(self.result.schema, config), self.properties(config),
                                    partition_by(config) if by_interval is None else by_interval)
        except Exception as exc:
            if is_cancellation(exc) or "already exists" not in str(exc):
                raise
            raise RatError(f"table {self.ref.fqn} was created by another run at the same time; this run wrote "
                           "nothing, run it again to build on that table") from None
        self.state.update_run(self.record.run_id, created_table=True)

    def evolve_schema(self, config) -> bool:
        """Align the table's schema with the result (see schema_evolution); notes go to the run.

        True when the table must be rebuilt beside main (see rebuild.py): a run that replaces every
        row (`--full-refresh`, or the full_refresh strategy) and changes a column's type, a changed
        unique key, or a `--full-refresh` whose query's columns differ from the table's in any way
        (one gone, the order, a narrower type: it makes the table its query's, as dbt's does).
        Additive changes (a new column, a safe widening) are metadata commits made here; they change
        no value main returns.
        """
        assert self.built is not None and self.result is not None and self.pipeline is not None
        # java_table is still the one config_loading read main's key from (it is let go only after this)
        read = self.java_table is not None
        schema, self.schema_id, unique_key = self.table.schema_and_property(
            None if read else UNIQUE_KEY_PROPERTY, self.java_table)
        if read:
            unique_key = self.stored_unique_key
        sensitive = case_sensitive(self.spark)
        plan = plan_schema(schema, table_schema(self.result.schema, config), sensitive)
        full_refresh = self.options.full_refresh
        replaces_every_row = full_refresh or config.merge_strategy.value == "full_refresh"
        # a table no reader sees a row of loses nothing by a rebuild: the types of a first load of files
        # without data rows (every column a string) do not stand in the way of the first real file
        rebuild = (unique_key_changed(self.ref.fqn, unique_key, config, full_refresh, self.pipeline.source_relpath,
                                      sensitive)
                   or (bool(plan.incompatible) and (replaces_every_row or self.table.holds_no_rows()))
                   or (full_refresh and not plan.matches_result()))
        header_only_notes = []
        if plan.incompatible and not replaces_every_row and (
                header_only := landing_steps.header_only_files(self.project, self.files_read)):
            # a partner's file of its header alone: no row, no type; its columns take the table's
            plan, rebuild = plan.cast_to_the_table(), False
            header_only_notes.append(RunNote("other", f"{', '.join(header_only)}: only a header, no row loaded; "
                                             "the table's column types kept", phase="iceberg_write"))
        if rebuild and full_refresh:
            plan = plan.as_the_query_makes()
        breaks = self.null_columns.breaks(self.ref.fqn, *plan.dropped_and_added()) \
            if (plan.missing or plan.dropped) and self.null_columns is not None else None
        if breaks and config.breaks_downstream == "fail":  # before any schema commit: main stays as it was
            raise RatError(f"{'; '.join(breaks.values())}; this pipeline is marked @breaks_downstream: fail, so the "
                           "run stops before main; make the column again, or change the downstream queries first",
                           self.pipeline.source_relpath)
        if not rebuild:
            if plan.changes_the_table():  # a schema commit follows; recovery visits runs with a branch
                self.state.update_run(self.record.run_id, branch=self.branch)
            self.schema_changes_pending |= plan.changes_the_table()
            applied = apply_plan(self.table, plan, self.schema_id, self.record.run_id,
                                 lambda *change: landing_steps.type_change_remedy(
                                     self.files_read, self.pipeline, *change, self.ctx.landing.run_notes()))
            if applied != self.schema_id:  # a schema commit: the table loaded at the start is stale
                self.schema_id, self.java_table = applied, None
        self.built = replace(self.built, result=align(self.result, plan))
        self.schema_notes = [*header_only_notes, *plan.run_notes(breaks)]
        for note in self.schema_notes:
            self.log(f"schema: {note.text}", "warn" if note.kind == "null_column" else "info")
        self.record_notes()
        return rebuild

    def quality(self) -> str | None:
        """Runs every test; returns why the merge is blocked, or None."""
        assert self.ctx is not None and self.pipeline is not None
        timeout = self.project.settings.quality_timeout_seconds
        blocking = []
        for test in self.pipeline.quality_tests:
            self.check_cancel()
            outcome = run_quality_test(self.ctx, test, self.target.branch_ident(self.branch), timeout, self.record.run_id)
            if self.cancelled.is_set():
                raise RunCancelled()
            self.record_quality(outcome)
            if outcome.status == "failed":
                blocking.append(f"quality test {test.name} failed with {outcome.violations} violating row(s) "
                                f"({test.relpath})")
            elif outcome.status == "error":
                blocking.append(f"quality test {test.name} could not run: {outcome.error}")
            elif outcome.status == "warned":
                self.log(f"quality test {test.name} warned: {outcome.violations} row(s)", "warn")
        diff = diff_gates.run_diff(self.table, self.branch, self.base_snapshot, self.pipeline.config, self.review,
                                   self.stage is not None, self.log)
        if diff is not None:
            self.record.review = {**self.record.review, "diff": diff.as_dict()}
            self.state.update_run(self.record.run_id, review=self.record.review)
            self.log(f"diff against main: {diff.added} added, {diff.removed} removed, {diff.changed} changed "
                     f"(read {diff.read})")
            for gate in diff_gates.check_gates(self.pipeline.config, diff):
                self.record_quality(gate.outcome)
                if gate.blocking is not None:
                    blocking.append(gate.blocking)
                elif gate.warning is not None:
                    self.log(gate.warning, "warn")
        return "; ".join(blocking) or None

    def record_quality(self, outcome: QualityOutcome) -> None:
        self.record.quality.append(outcome)
        self.state.save_quality(self.record.run_id, outcome)
        self.events.publish(QualityResultEvent(
            self.record.run_id, outcome.name, outcome.severity, outcome.status, outcome.violations, outcome.ms,
            tuple(tuple(row) for row in outcome.sample), tuple(outcome.sample_columns), outcome.error))

    def hold(self) -> None:
        """Stop before main: the branch (and a table the run created) stays until approve or reject (review.py)."""
        self.record.review = {**self.record.review, "base_snapshot": self.base_snapshot, "schema_id": self.schema_id,
                              "branch": self.branch, "group": self.options.review_group}
        self.state.update_run(self.record.run_id, review=self.record.review, branch=self.branch)
        self.held = True
        self.log(f"awaiting review: approve or reject run {self.record.run_id}")

    def merge(self) -> None:
        """main moves to the branch, which goes in the same commit."""
        assert self.pipeline is not None
        self.record_published(fast_forward(self.table, self.branch, self.record.run_id, self.base_snapshot,
                                           self.schema_id, self.log, self.check_cancel,
                                           properties=strategy_properties(self.pipeline.config)))
        self.branch_made = False

    def check_main_unchanged(self) -> None:
        check_main_unchanged(self.table, self.base_snapshot, self.schema_id)

    def replace_main(self) -> None:
        """A rebuild's one commit: main becomes the staged table (schema, properties and rows)."""
        assert self.stage is not None and self.pipeline is not None
        self.check_cancel()
        self.check_main_unchanged()
        config = self.pipeline.config
        try:
            replace_from_stage(self.spark, self.table, self.stage, self.branch, self.record.run_id,
                               run_strategy(config, self.options.full_refresh), self.properties(config),
                               partition_by(config))
        except Exception as exc:
            if is_cancellation(exc):
                raise
            raise RatError(f"replacing main of {self.ref.fqn} with the rebuilt table failed: {summarise(exc)[0]}") from None
        testpoints.reached("after:replace")
        self.record_published(self.table.head("main"))

    def record_published(self, main: int | None) -> None:
        self.record.snapshot_id = main
        self.state.update_run(self.record.run_id, snapshot_id=self.record.snapshot_id, created_table=False)

    def settle_schema_changes(self) -> None:
        """Put back schema changes of this pipeline's runs that ended unpublished (this run's own too, at its
        end: state.db says 'running' until the runner records how it went); what waits is looked at again then."""
        self.schema_changes_pending = True
        for line in settle_schema_changes(self.table, self.state.unsettled_run_ids(self.ref.fqn) - {self.record.run_id}):
            self.log(line, "warn")

    def cleanup(self) -> None:
        """Drop the branch (and a table this run created but did not publish) unless the run awaits
        review; never raises (a JVM that died under the run fails every call here: the run's own error says
        what happened, and the next start cleans up)."""
        with contextlib.suppress(Exception):
            self.spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)  # a cancel's repeats spare it
        if self.ctx is not None:
            with contextlib.suppress(Exception):
                self.ctx.cleanup()
        if self.result is not None:
            with contextlib.suppress(Exception):
                self.result.unpersist()
        if self.held:
            return
        try:
            if self.stage is not None:
                self.stage.drop()
            record = self.state.get_run(self.record.run_id)
            drop_table = bool(record and record.created_table)
            if drop_table:
                self.table.drop()
                self.log(f"dropped table {self.ref.fqn}, which this run had created")
            elif self.branch_made:
                self.table.drop_branch(self.branch)
            if self.schema_changes_pending and not drop_table:
                self.settle_schema_changes()
            self.state.update_run(self.record.run_id, branch=None, created_table=False)
        except Exception:
            log.exception("[%s] cleanup of branch %s failed; the next start will retry", self.record.run_id, self.branch)
