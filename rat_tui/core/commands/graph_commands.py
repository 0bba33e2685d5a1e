"""The project as a graph: lineage, runs of a selection (`NAME+`, `+NAME`, `+NAME+`), builds,
which downstream tables a table rollback leaves stale, and their rebuild."""
from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from dataclasses import replace

from ..errors import RatError, reported_fields
from ..lake.history import same_rows_as
from ..lake.metadata import ancestry, load_table, run_ends, snapshot_run_id
from ..project.graph import GraphCache, ProjectGraph
from ..project.model import PipelineRef
from ..run.runner import RunHandle
from ..run.selection import SelectionRun, Selector
from .base import WorkbenchParts
from .run_results import SelectionResult


class GraphCommands(WorkbenchParts):
    graph_cache: GraphCache
    selections: list[SelectionRun]
    _selections_lock: threading.Lock
    unit_test_pipelines: Callable[[list[PipelineRef]], object]  # commands/unit_tests.py

    def graph(self) -> ProjectGraph:
        return self.graph_cache.graph()

    def lineage(self, pipeline: str | None = None) -> dict:
        """Nodes and edges of the project, or of one pipeline's upstream and downstream."""
        graph = self.graph()
        only = None
        if pipeline:
            ref = self.resolve(pipeline)
            only = {ref.fqn} | graph.upstream_of(ref.fqn) | graph.downstream_of(ref.fqn)
        last, at = {}, {}
        for name in graph.pipelines():
            runs = self.state.runs(name, limit=1)
            last[name] = runs[0].outcome if runs else None  # `nothing_new` as the tree shows it
            at[name] = (runs[0].finished_at or runs[0].started_at or runs[0].queued_at) if runs else None
        return graph.as_dict(only, last, at)

    def run_selection(self, selector: str, full_refresh: bool = False, published: bool = False,
                      review: bool = False) -> SelectionResult:
        """`review`: every run stops before main, each on its branch, later ones reading their upstream's."""
        graph = self.graph()
        return self._run_names(graph, Selector.parse(selector).select(graph), full_refresh, published, review=review)

    def build(self, namespaces: list[str] | None = None, full_refresh: bool = False) -> SelectionResult:
        """Every pipeline (of those namespaces) in dependency order."""
        graph = self.graph()
        known = {graph.nodes[n].namespace for n in graph.pipelines()}
        unknown = sorted(set(namespaces or ()) - known)
        if unknown:
            raise RatError(f"no pipelines in namespace {', '.join(unknown)} (namespaces: {', '.join(sorted(known))})")
        names = [n for n in graph.pipelines() if not namespaces or graph.nodes[n].namespace in namespaces]
        return self._run_names(graph, graph.order(names), full_refresh, False)

    def run_pipelines(self, names: list[str], full_refresh: bool = False, review: bool = False) -> SelectionResult:
        """Exactly these pipelines, in dependency order, with the skip rule of a selection: the stale
        tables after a rollback (not the rolled-back table), or what is downstream of a saved pipeline."""
        graph = self.graph()
        unknown = sorted(n for n in names if n not in graph.nodes or graph.nodes[n].kind != "pipeline")
        if unknown:
            raise RatError(f"no pipeline {', '.join(unknown)} in this project")
        return self._run_names(graph, graph.order(names), full_refresh, False, review=review)

    def _run_names(self, graph: ProjectGraph, names: list[str], full_refresh: bool, published: bool,
                   submit: Callable[[str], RunHandle] | None = None, review: bool = False) -> SelectionResult:
        if self.project.settings.unit_tests_before_build:  # raises, with the tests, when one did not pass
            self.unit_test_pipelines([PipelineRef.parse(name) for name in names])
        group = f"sel_{secrets.token_hex(4)}"  # the held runs of this selection are approved or rejected together
        submit = submit or (lambda name: self.submit(
            name, full_refresh=full_refresh, published=published, trigger="selection", review=review,
            review_group=group, upstream_branches=selection.held_upstream(name)))
        selection = SelectionRun(graph, names, submit, self.state, self.events, cancel_run=self.runner.cancel)
        with self._selections_lock:
            self.selections.append(selection)
        try:
            records = selection.run()
        finally:
            with self._selections_lock:
                self.selections.remove(selection)
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

    def stale_downstream(self, ref: PipelineRef, new_main: int) -> list[str]:
        """Downstream pipelines whose table's current snapshot was built from a snapshot of `ref`
        that main no longer contains, and everything built on them. A snapshot whose rows main still
        has (a run that changed no row, on what main kept) leaves its readers as they were."""
        graph = self.graph()
        upstream = load_table(self.project.table_dir(ref), ref.fqn)
        kept = same_rows_as(upstream, ancestry(upstream, new_main))
        stale: set[str] = set()
        for name in sorted(graph.downstream.get(ref.fqn, ())):
            if graph.nodes[name].kind != "pipeline" or name in stale:
                continue
            target = PipelineRef.parse(name)
            try:
                table = load_table(self.project.table_dir(target), name)
            except RatError:  # never built
                continue
            run_id = snapshot_run_id(table, table.metadata.current_snapshot_id)
            record = self.state.get_run(run_id) if run_id else None
            read = record.inputs.get(ref.fqn) if record is not None else None
            if read is not None and read not in kept:
                stale |= {name} | {n for n in graph.downstream_of(name) if graph.nodes[n].kind == "pipeline"}
        return sorted(stale)

    def rebuild_stale(self, names: list[str]) -> SelectionResult:
        """Rebuild the tables a rollback left stale (`stale_downstream`) so that each equals a fresh build
        from its upstreams' current main; result `runs` as for a selection, and `rebuilt_from`: per
        table, the snapshot its run started from (None: a full refresh).

        In dependency order, each table first goes back to the newest snapshot of its main built only
        from upstream snapshots still on their main (the inputs every run records), then runs as usual.
        Chosen over a full refresh of every table: an incremental run on a state built from data that
        is still there gives what a full build gives (what any incremental pipeline promises), yet
        costs the data since that snapshot rather than the whole table, and keeps what a full refresh
        throws away (an scd2 table's history, the snapshots built from data still there). Merely
        re-running, as before, kept rows the rollback had removed upstream. A table with no such
        snapshot, or whose runs did not record their inputs, gets a full refresh.
        """
        started_from: dict[str, int | None] = {}

        def submit(name: str) -> RunHandle:  # called once the tables it reads are rebuilt
            ref = PipelineRef.parse(name)
            clean = self.clean_snapshot(ref)
            if clean is not None:
                self.set_main(ref, clean)
            started_from[name] = clean
            return self.submit(name, full_refresh=clean is None, trigger="selection")

        graph = self.graph()
        try:
            result = self._run_names(graph, graph.order(names), False, False, submit)
        except RatError as exc:
            if isinstance(exc.result, SelectionResult):
                exc.result = replace(exc.result, rebuilt_from=started_from)
            else:  # it failed before the first run (the unit tests a build runs first)
                exc.result = {**reported_fields(exc.result), "rebuilt_from": started_from}
            raise
        return replace(result, rebuilt_from=started_from)

    def clean_snapshot(self, ref: PipelineRef) -> int | None:
        """The newest run's snapshot on `ref`'s main whose recorded inputs are all still on their tables'
        main (an empty upstream counts as still there); None if none is."""
        kept: dict[str, set[int]] = {}

        def still_there(fqn: str, snapshot_id: int | None) -> bool:
            if snapshot_id is None:
                return True
            if fqn not in kept:
                try:
                    upstream = load_table(self.project.table_dir(PipelineRef.parse(fqn)), fqn)
                    kept[fqn] = ancestry(upstream, upstream.metadata.current_snapshot_id)
                except RatError:  # the table is gone
                    kept[fqn] = set()
            return snapshot_id in kept[fqn]

        try:
            table = load_table(self.project.table_dir(ref), ref.fqn)
        except RatError:  # never built: nothing to go back to
            return None
        for snapshot_id, run_id in run_ends(table):
            record = self.state.get_run(run_id)
            if record is not None and record.inputs and all(still_there(f, s) for f, s in record.inputs.items()):
                return snapshot_id
        return None
