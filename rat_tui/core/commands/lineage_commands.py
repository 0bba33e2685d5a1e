"""The project as a graph: its nodes and edges, with each pipeline's last run (`lineage`)."""
from __future__ import annotations

from ..project.graph import GraphCache, ProjectGraph
from ..project.model import Project
from ..store.state import StateDB


class Lineage:
    def __init__(self, project: Project, state: StateDB, graph_cache: GraphCache):
        self.project, self.state, self.graph_cache = project, state, graph_cache

    def graph(self) -> ProjectGraph:
        return self.graph_cache.graph()

    def lineage(self, pipeline: str | None = None) -> dict:
        """Nodes and edges of the project, or of one pipeline's upstream and downstream."""
        graph = self.graph()
        only = None
        if pipeline:
            ref = self.project.find_pipeline(pipeline)
            only = {ref.fqn} | graph.upstream_of(ref.fqn) | graph.downstream_of(ref.fqn)
        last, at = {}, {}
        for name in graph.pipelines():
            runs = self.state.runs(name, limit=1)
            last[name] = runs[0].outcome if runs else None  # `nothing_new` as the tree shows it
            at[name] = (runs[0].finished_at or runs[0].started_at or runs[0].queued_at) if runs else None
        return graph.as_dict(only, last, at)
