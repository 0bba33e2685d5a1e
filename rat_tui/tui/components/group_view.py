"""The right side for a node that is not a pipeline, zone or table (a namespace, a layer, the
landing or tables group): what is in it and where the keys work, so the detail always shows
what the cursor is on."""
from __future__ import annotations

from rich.text import Text
from textual.widgets import Static
from textual.widgets.tree import TreeNode

from ...core.text import count
from .project_tree import NodeData

WHAT = {"layer": ("pipeline", "pipelines"), "landing": ("landing zone", "landing zones"),
        "tables": ("Iceberg table", "Iceberg tables"), "namespace": ("item", "items")}
HINT = {"layer": "Move the cursor to a pipeline: r runs it, p previews it, P publishes it.",
        "landing": "Move the cursor to a zone: u uploads files into it, e edits its settings.",
        "tables": "Move the cursor to a table: its snapshots, a preview, t rolls back, d diffs.",
        "namespace": "Open a layer, the landing zones or the tables below it."}


class GroupView(Static):
    def __init__(self, node: TreeNode[NodeData]) -> None:
        data = node.data
        assert data is not None
        self.data = data
        super().__init__(self.describe(node), id="group-view")

    @staticmethod
    def describe(node: TreeNode[NodeData]) -> Text:
        data = node.data
        assert data is not None
        kind = data.name if data.kind == "group" else data.kind
        one, many = WHAT[kind]
        title = data.namespace if kind == "namespace" else f"{data.namespace} / {data.name}"
        names = ", ".join(_name(child) for child in node.children)
        if kind == "namespace":
            contents = ", ".join(f"{count(len(c.children), *WHAT.get(c.data.name, WHAT['layer']))}"
                              f"{' in ' + c.data.name if c.data.kind == 'layer' else ''}" for c in node.children)
        else:
            contents = count(len(node.children), one, many)
        return Text.assemble((title, "bold"), "\n", contents, (f": {names}" if kind != "namespace" else "", "grey70"),
                             "\n\n", (HINT[kind], "grey50"))


def _name(node: TreeNode[NodeData]) -> str:
    data = node.data
    if data is None:
        return str(node.label)
    return f"{data.ref.layer}.{data.name}" if data.kind == "table" and data.ref else data.name
