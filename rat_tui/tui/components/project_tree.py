"""The project tree: namespaces → layers → pipelines, landing zones, tables.

A refresh updates the tree in place (labels changed, nodes added or removed) instead of
rebuilding it, so expanded and collapsed nodes and the cursor stay where the user left them.
Run marks follow run events at once; a refresh whose data was read before the event keeps them. A run's
end redraws only the nodes it touched (its pipeline, its table, the zones it read), not the whole tree.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from ...core.commands.browse_results import NamespaceOverview, Overview, PipelineOverview
from ...core.project.graph import ZONE_LAYER, zone_node
from ...core.project.model import PipelineRef, active_landing_files
from ...core.project.names import LAYERS
from ...core.text import count

if TYPE_CHECKING:
    from ...core.compose import Workbench

STATUS_MARK = {"success": ("●", "green"), "failed": ("●", "red"), "cancelled": ("●", "yellow"),
               "skipped": ("●", "grey50"), "running": ("◐", "cyan"), "queued": ("○", "cyan"), None: ("○", "grey50"),
               "nothing_new": ("◌", "green"),  # a success whose zones held nothing new: it wrote nothing
               "noted": ("◉", "green"),  # a success with notes on what it did to the data (its Run tab lists them)
               "awaiting_review": ("◆", "magenta"), "rejected": ("●", "grey50")}


# The table is late by its freshness policy (the f view lists how late).
FRESHNESS_BADGE = {"warn": (" ◷", "yellow"), "error": (" ◷", "bold red")}

# A table turns late while nothing else happens: its badge follows within this time.
FRESHNESS_SECONDS = 60.0

# A newer version of the pipeline's files is in the bucket (g pulls it).
REMOTE_MARK = {"changed": (" ⇣", "cyan"), "new": (" ⇣", "cyan"), "conflict": (" ⇣!", "bold red")}


@dataclass(frozen=True)
class NodeData:
    kind: str  # namespace | layer | group (landing, tables) | pipeline | zone | table
    namespace: str
    name: str = ""
    ref: PipelineRef | None = None

    def describe(self) -> str:
        """Where the cursor is, for a notice ("the cursor is on …")."""
        return {"namespace": f"the namespace {self.namespace}", "layer": f"the {self.name} layer of {self.namespace}",
                "group": f"the {'landing zones' if self.name == 'landing' else 'tables'} of {self.namespace}",
                "zone": f"the landing zone {self.namespace}/{self.name}",
                "pipeline": f"the pipeline {self.ref.fqn if self.ref else self.name}",
                "table": f"the table {self.ref.fqn if self.ref else self.name}"}.get(self.kind, self.kind)


@dataclass
class Spec:
    """One node as the overview wants it; `children` None for a leaf."""

    data: NodeData
    label: Text
    children: list[Spec] | None = None
    expand: bool = True


def pipeline_label(ref: PipelineRef, status: str | None, drift: bool, remote: str | None,
                   freshness: str | None = None) -> Text:
    mark, colour = STATUS_MARK.get(status, STATUS_MARK[None])
    label = Text.assemble((f"{mark} ", colour), ref.name)
    if freshness in FRESHNESS_BADGE:
        label.append(*FRESHNESS_BADGE[freshness])
    if drift:
        label.append(" *", style="yellow")
    if remote:
        label.append(*REMOTE_MARK[remote])
    return label


def table_label(ref: PipelineRef, snapshot_id: int | None) -> Text:
    return Text.assemble(f"{ref.layer}.{ref.name}", (f"  @{str(snapshot_id)[-6:] if snapshot_id else 'empty'}", "grey50"))


def zone_label(name: str, files: int) -> Text:
    return Text.assemble(name, (f"  {count(files, 'file')}", "grey50"))


def zones_read(wb: Workbench, fqn: str) -> dict[tuple[str, str], int]:
    """The landing zones pipeline `fqn` reads, (namespace, zone) -> active files now (a run archives those it read)."""
    zones = [name.split(".", 2) for name in wb.lineage.graph().upstream.get(fqn, ())]
    return {(ns, zone): len(active_landing_files(wb.project.zone_dir(ns, zone))) for ns, layer, zone in zones
            if layer == ZONE_LAYER}


class ProjectTree(Tree[NodeData]):
    BORDER_TITLE = "Project"

    def __init__(self, until_warm: Callable[[], bool] = lambda: True) -> None:
        """`until_warm`: waits out Spark's warm-up (False: the app closes), which a badge's query would stop."""
        super().__init__("project", id="project-tree")
        self.until_warm = until_warm
        self.show_root = False
        self.guide_depth = 2
        self.live: dict[str, tuple[str, float]] = {}  # fqn -> (status, event time) from run events
        self._pipes: dict[str, PipelineOverview] = {}  # fqn -> the overview's entry, to redraw a label on an event
        self._read_at = 0.0  # when the overview shown was read
        self.freshness: dict[str, str] = {}  # fqn -> fresh | warn | error | never, from its own worker

    def on_mount(self) -> None:
        self.set_interval(FRESHNESS_SECONDS, self.load_freshness)

    @property
    def cursor_data(self) -> NodeData | None:
        node = self.cursor_node
        return node.data if node is not None else None

    def load(self, overview: Overview, read_at: float) -> None:
        """Bring the tree in line with a `browse.overview()` read at `read_at` (time.time()). An overview
        read before the one shown (a slow refresh overtaken by a newer one) would bring back old marks."""
        if read_at < self._read_at:
            return
        self._read_at = read_at
        for fqn, (_, at) in list(self.live.items()):
            if at < read_at:  # the state the overview read already holds this event's status
                del self.live[fqn]
        self._pipes = {p.ref.fqn: p for ns in overview.namespaces for p in ns.pipelines}
        self._reconcile(self.root, [self._namespace(ns) for ns in overview.namespaces])
        self.load_freshness()

    @work(thread=True, exclusive=True, group="tree-freshness")
    def load_freshness(self) -> None:
        """The badges of late tables, after each refresh: in a thread, as a `column` policy asks Spark. A
        table whose column cannot be read has no badge; the f view says why."""
        if not self.until_warm():
            return
        try:
            found, _ = self.app.workbench.freshness.survey()
        except Exception:  # the project changed under it: the next refresh tries again
            return
        self.app.call_from_thread(self.set_freshness, {f.pipeline: f.status for f in found})

    def set_freshness(self, statuses: dict[str, str]) -> None:
        if statuses == self.freshness:
            return
        self.freshness = statuses
        for node in self._walk(self.root):
            if node.data is not None and node.data.kind == "pipeline" and node.data.ref is not None:
                node.set_label(self._pipeline_label(node.data.ref))

    def set_run_status(self, fqn: str, status: str, at: float) -> None:
        """A run event: redraw the pipeline's mark now, without waiting for a refresh."""
        self.live[fqn] = (status, at)
        for node in self._walk(self.root):
            if node.data is not None and node.data.kind == "pipeline" and node.data.ref.fqn == fqn:
                node.set_label(self._pipeline_label(node.data.ref))

    def run_ended(self, fqn: str, snapshot_id: int | None) -> bool:
        """A run of `fqn` ended with main at `snapshot_id` (None: main as it was): its table's node shows it,
        and the zones it read show their files, read in a worker. False when the table has no node (the run
        may have made it): the tree must be refreshed to add it."""
        self.load_zones(fqn)
        self.load_freshness()
        ref = PipelineRef.parse(fqn)
        node = self._find(NodeData("table", ref.namespace, ref.name, ref))
        if node is not None and snapshot_id is not None:
            node.set_label(table_label(ref, snapshot_id))
        return node is not None

    @work(thread=True, group="tree-zones")
    def load_zones(self, fqn: str) -> None:
        try:
            files = zones_read(self.app.workbench, fqn)
        except Exception:  # the project changed under it: the next refresh shows the zones
            return
        self.app.call_from_thread(self.set_zone_files, files)

    def set_zone_files(self, files: dict[tuple[str, str], int]) -> None:
        for (namespace, zone), count_ in files.items():
            node = self._find(NodeData("zone", namespace, zone))
            if node is not None:
                node.set_label(zone_label(zone, count_))

    def _find(self, data: NodeData) -> TreeNode[NodeData] | None:
        return next((node for node in self._walk(self.root) if node.data == data), None)

    def reveal(self, graph_name: str) -> bool:
        """Put the cursor on a pipeline (`ns.layer.name`) or zone (`ns.landing.zone`) of the graph, opening
        its parents; False when the tree does not hold it."""
        for node in self._walk(self.root):
            data = node.data
            if data is not None and graph_name == (data.ref.fqn if data.kind == "pipeline" and data.ref else
                                                   zone_node(data.namespace, data.name) if data.kind == "zone" else None):
                parent = node.parent
                while parent is not None:
                    parent.expand()
                    parent = parent.parent
                _ = self.last_line  # expanding invalidated the line numbers; reading this rebuilds them
                self.move_cursor(node)
                return True
        return False

    def _pipeline_label(self, ref: PipelineRef) -> Text:
        pipe = self._pipes.get(ref.fqn)
        status = self.live[ref.fqn][0] if ref.fqn in self.live else pipe.last_status if pipe else None
        return pipeline_label(ref, status, bool(pipe and pipe.drift), pipe.remote if pipe else None,
                              self.freshness.get(ref.fqn))

    def _namespace(self, ns: NamespaceOverview) -> Spec:
        name = ns.name
        children = []
        for layer in LAYERS:
            pipes = [p.ref for p in ns.pipelines if p.ref.layer == layer]
            if pipes:
                children.append(Spec(NodeData("layer", name, layer), Text(layer, style="italic"), [
                    Spec(NodeData("pipeline", ref.namespace, ref.name, ref), self._pipeline_label(ref)) for ref in pipes]))
        if ns.zones:
            children.append(Spec(NodeData("group", name, "landing"), Text("landing", style="italic"), [
                Spec(NodeData("zone", name, z.name), zone_label(z.name, z.files)) for z in ns.zones]))
        if ns.tables:
            children.append(Spec(NodeData("group", name, "tables"), Text("tables", style="italic"), [
                Spec(NodeData("table", t.ref.namespace, t.ref.name, t.ref), table_label(t.ref, t.snapshot_id))
                for t in ns.tables], expand=False))
        return Spec(NodeData("namespace", name), Text(name, style="bold"), children)

    def _reconcile(self, parent: TreeNode[NodeData], specs: list[Spec]) -> None:
        wanted = {spec.data for spec in specs}
        for child in list(parent.children):
            if child.data not in wanted:
                child.remove()
        existing = {child.data: child for child in parent.children}
        for index, spec in enumerate(specs):
            node = existing.get(spec.data)
            if node is None:
                before = index if index < len(parent.children) else None
                node = parent.add(spec.label, spec.data, before=before, expand=spec.expand,
                                  allow_expand=spec.children is not None)
            elif node.label != spec.label:
                node.set_label(spec.label)
            if spec.children is not None:
                self._reconcile(node, spec.children)

    def _walk(self, node: TreeNode[NodeData]):
        for child in node.children:
            yield child
            yield from self._walk(child)
