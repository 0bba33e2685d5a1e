"""Which downstream tables a table rollback leaves stale, and the snapshot each can go back to for its rebuild."""
from __future__ import annotations

from ..errors import RatError
from ..lake.history import same_rows_as
from ..lake.metadata import ancestry, load_table, run_ends, snapshot_run_id
from ..project.graph import ProjectGraph
from ..project.model import PipelineRef, Project
from ..store.state import StateDB


def stale_downstream(project: Project, state: StateDB, graph: ProjectGraph, ref: PipelineRef, new_main: int
                     ) -> list[str]:
    """Downstream pipelines whose table's current snapshot was built from a snapshot of `ref`
    that main no longer contains, and everything built on them. A snapshot whose rows main still
    has (a run that changed no row, on what main kept) leaves its readers as they were."""
    upstream = load_table(project.table_dir(ref), ref.fqn)
    kept = same_rows_as(upstream, ancestry(upstream, new_main))
    stale: set[str] = set()
    for name in sorted(graph.downstream.get(ref.fqn, ())):
        if graph.nodes[name].kind != "pipeline" or name in stale:
            continue
        target = PipelineRef.parse(name)
        try:
            table = load_table(project.table_dir(target), name)
        except RatError:  # never built
            continue
        run_id = snapshot_run_id(table, table.metadata.current_snapshot_id)
        record = state.get_run(run_id) if run_id else None
        read = record.inputs.get(ref.fqn) if record is not None else None
        if read is not None and read not in kept:
            stale |= {name} | {n for n in graph.downstream_of(name) if graph.nodes[n].kind == "pipeline"}
    return sorted(stale)


def clean_snapshot(project: Project, state: StateDB, ref: PipelineRef) -> int | None:
    """The newest run's snapshot on `ref`'s main whose recorded inputs are all still on their tables'
    main (an empty upstream counts as still there); None if none is."""
    kept: dict[str, set[int]] = {}

    def still_there(fqn: str, snapshot_id: int | None) -> bool:
        if snapshot_id is None:
            return True
        if fqn not in kept:
            try:
                upstream = load_table(project.table_dir(PipelineRef.parse(fqn)), fqn)
                kept[fqn] = ancestry(upstream, upstream.metadata.current_snapshot_id)
            except RatError:  # the table is gone
                kept[fqn] = set()
        return snapshot_id in kept[fqn]

    try:
        table = load_table(project.table_dir(ref), ref.fqn)
    except RatError:  # never built: nothing to go back to
        return None
    for snapshot_id, run_id in run_ends(table):
        record = state.get_run(run_id)
        if record is not None and record.inputs and all(still_there(f, s) for f, s in record.inputs.items()):
            return snapshot_id
    return None
