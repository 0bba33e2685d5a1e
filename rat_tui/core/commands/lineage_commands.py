"""The project as a graph: its nodes and edges, with each pipeline's last run (`lineage`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..project.graph import GraphCache, ProjectGraph
from ..project.model import Project
from ..store.state import StateDB


@dataclass(frozen=True)
class LineageNode:
    """A pipeline or a landing zone (named `NS.landing.ZONE`), with a pipeline's last run: its outcome as the
    tree shows it (`nothing_new` too; None: never run) and when it ended (epoch seconds)."""

    name: str
    kind: str  # pipeline | zone
    layer: str
    last_status: str | None = None
    last_run_at: float | None = None


@dataclass(frozen=True)
class LineageGraph:
    """Nodes by name, and edges from what is read to what reads it, both sorted."""

    nodes: list[LineageNode]
    edges: list[tuple[str, str]]

    def as_dict(self) -> dict[str, Any]:
        return {"nodes": [{"name": n.name, "kind": n.kind, "layer": n.layer, "last_status": n.last_status,
                           "last_run_at": n.last_run_at} for n in self.nodes],
                "edges": [list(edge) for edge in self.edges]}


class Lineage:
    def __init__(self, project: Project, state: StateDB, graph_cache: GraphCache):
        self.project, self.state, self.graph_cache = project, state, graph_cache

    def graph(self) -> ProjectGraph:
        return self.graph_cache.graph()

    def lineage(self, pipeline: str | None = None) -> LineageGraph:
        """Nodes and edges of the project, or of one pipeline's upstream and downstream."""
        graph = self.graph()
        keep = set(graph.nodes)
        if pipeline:
            ref = self.project.find_pipeline(pipeline)
            keep = {ref.fqn} | graph.upstream_of(ref.fqn) | graph.downstream_of(ref.fqn)
        last: dict[str, tuple[str | None, float | None]] = {}
        for name in graph.pipelines():
            runs = self.state.runs(name, limit=1)
            # `nothing_new` as the tree shows it
            last[name] = (runs[0].outcome, runs[0].finished_at or runs[0].started_at or runs[0].queued_at) \
                if runs else (None, None)
        nodes = [LineageNode(n.name, n.kind, n.layer, *last.get(n.name, (None, None)))
                 for n in sorted(graph.nodes.values(), key=lambda n: n.name) if n.name in keep]
        edges = sorted((source, target) for target, sources in graph.upstream.items() if target in keep
                       for source in sources if source in keep)
        return LineageGraph(nodes, edges)
