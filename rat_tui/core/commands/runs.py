"""Runs: one pipeline, a selection (`NAME+`, `+NAME`, `+NAME+`), a build, an explicit list in dependency
order; the planning of a selection; cancel, wait; the cleanup of crashed runs' leftovers."""
from __future__ import annotations

import secrets
import threading
from collections.abc import Callable

from ..errors import RatError
from ..events import EventBus
from ..lake.session import SparkManager
from ..project.graph import GraphCache
from ..project.model import PipelineRef, Project
from ..run.phases import RunOptions
from ..run.recovery import drop_leftovers, leftover_stages
from ..run.runner import RunHandle, Runner
from ..run.selection import SelectionRun, Selector, check_namespaces
from ..storage import Storage
from ..store.state import StateDB
from ..store.versions import VersionStore
from .review_commands import Review
from .run_results import RunList, RunResult, SelectionResult
from .unit_tests import UnitTests


class Runs:
    def __init__(self, project: Project, state: StateDB, events: EventBus, spark: SparkManager, runner: Runner,
                 storage: Storage, version_store: VersionStore, graph_cache: GraphCache, unit_tests: UnitTests,
                 review: Review):
        self.project, self.state, self.events, self.spark, self.runner = project, state, events, spark, runner
        self.storage, self.version_store, self.graph_cache = storage, version_store, graph_cache
        self.unit_tests, self.review = unit_tests, review
        self.selections: list[SelectionRun] = []
        self._selections_lock = threading.Lock()
        self._cleanup_lock = threading.Lock()
        self._by_hand = threading.Lock()  # one check-then-submit at a time (run_unless_queued)

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

    # -- one pipeline -------------------------------------------------------------------
    def submit(self, pipeline: str, full_refresh: bool = False, published: bool = False, trigger: str = "manual",
               reload_files: bool = False, join_since: float | None = None, review: bool = False,
               review_group: str | None = None, upstream_branches: dict[str, str] | None = None) -> RunHandle:
        """`upstream_branches`: tables ref() reads from a held run's branch; such a run is held too."""
        ref = self.project.find_pipeline(pipeline)
        options = RunOptions(full_refresh=full_refresh, reload_files=reload_files, review=review or bool(upstream_branches),
                             review_group=review_group, upstream_branches=upstream_branches or {})
        version = "draft"
        if published:
            self.storage.pull_published()
            pinned = self.version_store.current(ref)
            if pinned is None:
                raise RatError(f"{ref.fqn} has no published version yet; publish it first or run the working copy")
            options.files, version = self.version_store.read_pinned(ref, pinned), str(pinned.version)
        if self.needs_cleanup():
            self.cleanup_leftovers()
        return self.runner.submit(ref, options, version=version, trigger=trigger, join_since=join_since)

    def run_unless_queued(self, pipeline: str) -> tuple[RunHandle, bool]:
        """A run of the working copy, or the one of it already queued, which then runs even where a save's run
        would have joined another (see request_run): `r` pressed three times in a row while a run went gave three
        runs, one after the other. (the run, whether it is a new one)"""
        ref = self.project.find_pipeline(pipeline)
        with self._by_hand:
            queued = self.runner.queued_run(ref)
            if queued is not None and queued.options == RunOptions() and queued.record.version == "draft":
                queued.join_since = None
                return queued, False
            return self.submit(pipeline), True

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
        result = RunResult(record, self.review.impact(record) if record.status == "awaiting_review" else None)
        if record.status not in ("success", "awaiting_review"):
            raise RatError.with_result(f"run {record.run_id} of {record.pipeline} {record.status}: {record.error}", result)
        return result

    def cancel(self, run_id: str) -> bool:
        return self.cancel_selection_of(run_id) or self.runner.cancel(run_id)

    def wait_idle(self, timeout: float | None = None) -> RunList:
        records = self.runner.wait_idle(timeout)
        self.events.settle()
        return RunList(records)

    # -- selections -----------------------------------------------------------------------
    def plan(self, selector: str | None = None, names: list[str] | None = None) -> list[str]:
        """The pipelines a run of `selector` (`NAME+`, `+NAME`, `+NAME+`), or of exactly `names`, runs, in
        dependency order; neither: every pipeline (a build)."""
        graph = self.graph_cache.graph()
        if selector is not None:
            return Selector.parse(selector).select(graph)
        return graph.order(graph.pipelines() if names is None else names)

    def run_selection(self, selector: str, full_refresh: bool = False, published: bool = False,
                      review: bool = False) -> SelectionResult:
        """`review`: every run stops before main, each on its branch, later ones reading their upstream's."""
        return self.run_in_order(self.plan(selector), full_refresh, published, review=review)

    def build(self, namespaces: list[str] | None = None, full_refresh: bool = False) -> SelectionResult:
        """Every pipeline (of those namespaces) in dependency order."""
        graph = self.graph_cache.graph()
        check_namespaces(graph, namespaces or [])
        names = [n for n in graph.pipelines() if not namespaces or graph.nodes[n].namespace in namespaces]
        return self.run_in_order(graph.order(names), full_refresh, False)

    def run_pipelines(self, names: list[str], full_refresh: bool = False, review: bool = False) -> SelectionResult:
        """Exactly these pipelines, in dependency order, with the skip rule of a selection: the stale
        tables after a rollback (not the rolled-back table), or what is downstream of a saved pipeline."""
        graph = self.graph_cache.graph()
        unknown = sorted(n for n in names if n not in graph.nodes or graph.nodes[n].kind != "pipeline")
        if unknown:
            raise RatError(f"no pipeline {', '.join(unknown)} in this project")
        return self.run_in_order(graph.order(names), full_refresh, False, review=review)

    def run_in_order(self, names: list[str], full_refresh: bool, published: bool,
                     submit: Callable[[str], RunHandle] | None = None, review: bool = False) -> SelectionResult:
        """`names` (in dependency order) as one selection: a failed run skips what reads it. `submit`: how each
        starts (default: a draft or published run of the selection)."""
        if self.project.settings.unit_tests_before_build:  # raises, with the tests, when one did not pass
            self.unit_tests.unit_test_pipelines([PipelineRef.parse(name) for name in names])
        group = f"sel_{secrets.token_hex(4)}"  # the held runs of this selection are approved or rejected together
        submit = submit or (lambda name: self.submit(
            name, full_refresh=full_refresh, published=published, trigger="selection", review=review,
            review_group=group, upstream_branches=selection.held_upstream(name)))
        selection = SelectionRun(self.graph_cache.graph(), names, submit, self.state, self.events,
                                 cancel_run=self.runner.cancel)
        with self._selections_lock:
            self.selections.append(selection)
        try:
            records = selection.run()
        finally:
            with self._selections_lock:
                self.selections.remove(selection)
        self.events.settle()
        result = SelectionResult(records)
        failed = result.failed()
        if failed:
            first = failed[0]
            raise RatError.with_result(f"{len(failed)} of {len(records)} run(s) did not succeed; first: "
                                       f"{first.pipeline} {first.status}: {first.error}", result)
        return result

    def cancel_selection_of(self, run_id: str) -> bool:
        """Cancelling one run of a selection cancels the whole selection."""
        with self._selections_lock:
            chosen = [s for s in self.selections if any(h.run_id == run_id for h in s.active.values())]
        for selection in chosen:
            selection.cancel()
        return bool(chosen)
