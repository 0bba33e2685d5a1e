"""Tables on disk and their history: snapshots, previews, diffs, rollback (and the rebuild of what it left
stale), compaction."""
from __future__ import annotations

from dataclasses import replace

from ..errors import RatError, reported_fields
from ..lake.session import SparkManager
from ..landing.load_history import LoadHistory
from ..lake.history import boundary_refusal, history
from ..lake.metadata import load_table, snapshots, table_stats
from ..lake.spark_errors import summarise
from ..lake.table import IcebergTable
from ..project.graph import GraphCache
from ..project.model import PipelineRef, Project
from ..project.settings import target_file_size
from ..run.runner import RunHandle
from ..store.intervals import IntervalStore
from ..store.state import RunRecord, StateDB
from ..values import json_value
from .diff_results import RunDiff, SnapshotDiff
from .review_commands import Review
from .run_results import SelectionResult
from .runs import Runs
from .stale import clean_snapshot, stale_downstream
from .table_results import Compacted, SnapshotList, TableHistory, TableList, TablePreview, TableRollback, TableSummary


def table_refs(project: Project) -> list[PipelineRef]:
    """Tables on disk (hadoop catalog layout), whether or not a pipeline still produces them."""
    found = []
    for ns in project.scan().namespaces:
        warehouse = project.warehouse_dir(ns.name)
        # `_rat_staging` and other `_` folders hold the product's own work tables
        for layer_dir in sorted(p for p in warehouse.glob("*") if not p.name.startswith("_")) \
                if warehouse.is_dir() else []:
            for table_dir in sorted(layer_dir.glob("*")):
                if (table_dir / "metadata").is_dir():
                    found.append(PipelineRef(ns.name, layer_dir.name, table_dir.name))
    return found


class Tables:
    def __init__(self, project: Project, state: StateDB, spark: SparkManager, graph_cache: GraphCache, runs: Runs,
                 review: Review):
        self.project, self.state, self.spark, self.graph_cache = project, state, spark, graph_cache
        self.runs, self.review = runs, review

    def table_refs(self) -> list[PipelineRef]:
        return table_refs(self.project)

    def tables(self) -> TableList:
        return TableList([TableSummary(ref.fqn, **table_stats(load_table(self.project.table_dir(ref), ref.fqn)))
                          for ref in self.table_refs()])

    def snapshots(self, pipeline: str) -> SnapshotList:
        """Every raw Iceberg snapshot of the table, those inside a run included (`snapshots --all`), each with
        its run and what that run read (provenance: what it was built from)."""
        ref, table = self._table(pipeline)
        found, refs = snapshots(table)
        runs = self._runs_of(ref)
        by_snapshot = {r.snapshot_id: r.run_id for r in runs.values() if r.snapshot_id}
        listed = [replace(snap, run_id=snap.run_id or by_snapshot.get(snap.snapshot_id)) for snap in found]
        return SnapshotList(listed, refs, {s.run_id: runs[s.run_id].inputs for s in listed if s.run_id in runs})

    def history(self, pipeline: str) -> TableHistory:
        """The table's history as readers saw it (lake.history): one entry per run that reached main,
        per compaction, per rollback, and the creation; oldest first."""
        ref, table = self._table(pipeline)
        runs = self._runs_of(ref)
        entries = history(table)
        return TableHistory(entries, {name: r.snapshot_id for name, r in table.metadata.refs.items()},
                            {e.run_id: runs[e.run_id].inputs for e in entries if e.run_id in runs})

    def _runs_of(self, ref: PipelineRef) -> dict[str, RunRecord]:
        return {r.run_id: r for r in self.state.runs(ref.fqn, limit=10_000)}

    def _table(self, pipeline: str):
        ref = PipelineRef.parse(pipeline)
        return ref, load_table(self.project.table_dir(ref), ref.fqn)

    def table_schema(self, pipeline: str) -> str:
        ref, table = self._table(pipeline)
        return ", ".join(f"{f.name} {f.field_type}" for f in table.schema().fields)

    def rollback_table(self, pipeline: str, snapshot_id: int, rebuild: bool = False, raw: bool = False
                       ) -> TableRollback:
        """Point main at a state it had (a run's base or head, a compaction; so a rollback can be undone).
        A snapshot inside a run, which no reader ever saw, is refused unless `raw`. `rebuild`: then
        rebuild the downstream tables built from the data this removed (as the TUI offers to)."""
        ref, table = self._table(pipeline)
        if table.metadata.snapshot_by_id(snapshot_id) is None:
            raise RatError(f"table {ref.fqn} has no snapshot {snapshot_id} (see `snapshots {ref.fqn}`)")
        refusal = None if raw else boundary_refusal(table, ref.fqn, snapshot_id)
        if refusal is not None:
            raise RatError(refusal)
        self.set_main(ref, snapshot_id)
        rolled_back = TableRollback(snapshot_id, self.stale_downstream(ref, snapshot_id))
        if not rebuild:
            return rolled_back
        try:
            return replace(rolled_back, rebuild=self.rebuild_stale(rolled_back.stale_downstream))
        except RatError as exc:
            if isinstance(exc.result, SelectionResult):
                exc.result = replace(rolled_back, rebuild=exc.result)
            else:  # it failed before the first run (the unit tests a build runs first)
                exc.result = {**reported_fields(exc.result), **rolled_back.as_dict()}
            raise

    def set_main(self, ref: PipelineRef, snapshot_id: int) -> None:
        live = self.state.live_run_ids(ref.fqn)
        if live:
            raise RatError(f"{ref.fqn} has a run in progress ({', '.join(sorted(live))}); roll the table back once "
                           "it has finished (or cancel it), so the run cannot publish over the rollback")
        with self.spark.using() as spark:
            self.spark.ensure_catalog(ref.namespace)
            IcebergTable(spark, ref).set_current(snapshot_id)
        # a file whose load main no longer holds is new to the table again (load_history.py)
        runs = {e.run_id: e.on_main for e in history(load_table(self.project.table_dir(ref), ref.fqn))
                if e.kind == "run" and e.run_id}
        LoadHistory(self.state).rolled_back(ref.fqn, runs)
        IntervalStore(self.state).rolled_back(ref.fqn, runs)  # an interval a rolled-back run built is not built

    def table_preview(self, pipeline: str, snapshot_id: int | None = None, limit: int = 20) -> TablePreview:
        """First rows at a snapshot, with that snapshot's schema; PyIceberg, no JVM."""
        ref, table = self._table(pipeline)
        snapshot = table.metadata.snapshot_by_id(snapshot_id) if snapshot_id else table.metadata.current_snapshot()
        if snapshot is None:
            raise RatError(f"table {ref.fqn} has no snapshot {snapshot_id}" if snapshot_id else f"table {ref.fqn} is empty")
        arrow = table.scan(snapshot_id=snapshot.snapshot_id, limit=limit).to_arrow()
        rows = [[json_value(v) for v in record.values()] for record in arrow.to_pylist()]
        return TablePreview(snapshot.snapshot_id, arrow.column_names, rows)

    def diff_snapshots(self, pipeline: str, old: int | None, new: int, limit: int = 20,
                       key: list[str] | None = None) -> SnapshotDiff:
        """What changed from snapshot `old` to `new`, by key (review_commands.py's key_diff): `key` None is the
        table's unique key, [] every column. `old` None: before the table existed (every row is added).
        `added_rows` / `removed_rows` list the sample's whole rows added and removed."""
        return SnapshotDiff.of(self.review.key_diff(pipeline, old, new, key, sample_rows=limit))

    def diff_run(self, pipeline: str, run_id: str, limit: int = 20, key: list[str] | None = None) -> RunDiff:
        """A whole run: main before it (its base) against main after it (its head); for a run awaiting review,
        main as it began against its branch's head, what approving it would change."""
        ref, table = self._table(pipeline)
        entry = next((e for e in history(table) if e.kind == "run" and e.run_id == run_id), None)
        if entry is None:
            held = self.state.get_run(run_id)
            head = table.metadata.refs.get(held.branch) if held and held.status == "awaiting_review" \
                and held.pipeline == ref.fqn and held.branch else None
            if head is None:
                raise RatError(f"run {run_id} never reached main of {ref.fqn} (see `snapshots {ref.fqn}`)")
            base = held.review.get("base_snapshot")
            return RunDiff(run_id, base, head.snapshot_id,
                           self.diff_snapshots(pipeline, base, head.snapshot_id, limit, key),
                           note=f"run {run_id} awaits review: main is unchanged; this is what approving it changes")
        diff = self.diff_snapshots(pipeline, entry.base_snapshot_id, entry.snapshot_id, limit, key)
        return RunDiff(run_id, entry.base_snapshot_id, entry.snapshot_id, diff)

    def compact(self, pipeline: str) -> Compacted:
        """Rewrite small data files into target-sized ones, as a snapshot of its own."""
        ref, table = self._table(pipeline)
        before = table_stats(table)
        target = target_file_size(self.project.settings, ref.fqn)
        with self.spark.using() as spark:
            self.spark.ensure_catalog(ref.namespace)
            try:
                IcebergTable(spark, ref).rewrite_data_files(target)
            except Exception as exc:
                message, _ = summarise(exc)
                raise RatError(f"compacting {ref.fqn} failed: {message}") from None
        after = table_stats(load_table(self.project.table_dir(ref), ref.fqn))
        return Compacted(before["data_files"], after["data_files"], after["snapshot_id"], after["rows"])

    def stale_downstream(self, ref: PipelineRef, new_main: int) -> list[str]:
        """The tables a rollback of `ref` to `new_main` leaves stale (stale.py)."""
        return stale_downstream(self.project, self.state, self.graph_cache.graph(), ref, new_main)

    def clean_snapshot(self, ref: PipelineRef) -> int | None:
        return clean_snapshot(self.project, self.state, ref)

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
            return self.runs.submit(name, full_refresh=clean is None, trigger="selection")

        try:
            result = self.runs.run_in_order(self.runs.plan(names=names), False, False, submit)
        except RatError as exc:
            if isinstance(exc.result, SelectionResult):
                exc.result = replace(exc.result, rebuilt_from=started_from)
            else:  # it failed before the first run (the unit tests a build runs first)
                exc.result = {**reported_fields(exc.result), "rebuilt_from": started_from}
            raise
        return replace(result, rebuilt_from=started_from)
