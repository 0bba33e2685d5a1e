"""The project tree: namespaces → layers → pipelines, landing zones, tables."""
from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from ...core.project.model import PipelineRef
from ...core.project.names import LAYERS

STATUS_MARK = {"success": ("●", "green"), "failed": ("●", "red"), "cancelled": ("●", "yellow"),
               "running": ("◐", "cyan"), "queued": ("○", "cyan"), None: ("○", "grey50")}


# A newer version of the pipeline's files is in the bucket (g pulls it).
REMOTE_MARK = {"changed": (" ⇣", "cyan"), "new": (" ⇣", "cyan"), "conflict": (" ⇣!", "bold red")}


@dataclass(frozen=True)
class NodeData:
    kind: str  # namespace | pipeline | zone | table
    namespace: str
    name: str = ""
    ref: PipelineRef | None = None


class ProjectTree(Tree[NodeData]):
    BORDER_TITLE = "Project"

    def __init__(self) -> None:
        super().__init__("project", id="project-tree")
        self.show_root = False
        self.guide_depth = 2

    def load(self, overview: dict, selected: NodeData | None) -> None:
        """Rebuild from a Workbench.overview(), keeping the selected node when it still exists."""
        self.clear()
        target: TreeNode | None = None
        for ns in overview["namespaces"]:
            ns_node = self.root.add(Text(ns["name"], style="bold"), NodeData("namespace", ns["name"]), expand=True)
            for layer in LAYERS:
                layer_pipes = [p for p in ns["pipelines"] if p["ref"].layer == layer]
                if not layer_pipes:
                    continue
                layer_node = ns_node.add(Text(layer, style="italic"), expand=True)
                for pipe in layer_pipes:
                    ref: PipelineRef = pipe["ref"]
                    mark, colour = STATUS_MARK.get(pipe["last_status"], STATUS_MARK[None])
                    label = Text.assemble((f"{mark} ", colour), ref.name)
                    if pipe["drift"]:
                        label.append(" *", style="yellow")
                    if pipe.get("remote"):
                        label.append(*REMOTE_MARK[pipe["remote"]])
                    node = layer_node.add_leaf(label, NodeData("pipeline", ref.namespace, ref.name, ref))
                    if selected == node.data:
                        target = node
            if ns["zones"]:
                zones = ns_node.add(Text("landing", style="italic"), expand=True)
                for zone in ns["zones"]:
                    node = zones.add_leaf(Text.assemble(zone["name"], (f"  {zone['files']} files", "grey50")),
                                          NodeData("zone", ns["name"], zone["name"]))
                    if selected == node.data:
                        target = node
            if ns["tables"]:
                tables = ns_node.add(Text("tables", style="italic"), expand=False)
                for table in ns["tables"]:
                    ref = table["ref"]
                    snap = str(table["snapshot_id"])[-6:] if table["snapshot_id"] else "empty"
                    node = tables.add_leaf(Text.assemble(f"{ref.layer}.{ref.name}", (f"  @{snap}", "grey50")),
                                           NodeData("table", ref.namespace, ref.name, ref))
                    if selected == node.data:
                        target = node
        if target is not None:
            self.call_after_refresh(self.move_cursor, target)
