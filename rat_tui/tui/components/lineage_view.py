"""Lineage as a tree: what one pipeline or zone reads (upstream) and what reads it (downstream), or the
whole project by namespace and layer with each node's inputs. Pipelines carry their last-run mark
and time; Enter on a node asks the app to put the project tree's cursor there. It loads the graph in a
thread worker and draws itself from the message it posts."""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static, Tree
from textual.widgets.tree import TreeNode

from ...core.commands.lineage_commands import LineageGraph, LineageNode
from ...core.project.graph import ProjectGraph
from ...core.text import count
from .loading import app_closing, post_loaded
from .project_tree import STATUS_MARK, NodeData

if TYPE_CHECKING:
    from ...core.compose import Workbench

LAYER_ORDER = ("landing", "bronze", "silver", "gold")
ZONE_MARK = ("◇", "magenta")


def when(at: float | None) -> str:
    # UTC, as the versions panel prints times, so a screen reads the same on every machine
    return datetime.fromtimestamp(at, timezone.utc).strftime("%Y-%m-%d %H:%M") if at else "never run"


class LineageView(Vertical):
    """`center` is a graph node name (`ns.layer.name` / `ns.landing.zone`), or None for the whole project.
    `opened_on` is the tree node the panel was opened on: reloads for that node refresh this panel."""

    # The panel takes the focus once drawn (↑ / ↓ move in it, Enter shows the node in the tree); Esc, like
    # F1, gives it back to the project tree (the help says so).
    BINDINGS = [Binding("escape", "app.key('tree')", "Back to the tree", show=False)]

    class Jump(Message):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    @dataclass
    class Loaded(Message, bubble=False):
        lineage: LineageGraph

    def __init__(self, workbench: Workbench, center: str | None, opened_on: NodeData | None) -> None:
        super().__init__(id="lineage-view")
        self.workbench = workbench
        self.center, self.opened_on = center, opened_on
        self.nodes: dict[str, LineageNode] = {}
        self.graph = ProjectGraph()
        self.drawn = False

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="lineage")
    def load(self) -> None:
        post_loaded(self, "lineage", lambda: self.Loaded(self.workbench.lineage.lineage()))  # fails on a cyclic ref being edited

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        if app_closing(self.app):
            return
        self.show(message.lineage)
        if not self.drawn:
            self.drawn = True
            self.tree.focus()  # Enter jumps from here; keys still act on the project tree's cursor

    def compose(self) -> ComposeResult:
        yield Static(Text("loading…", style="grey50"), id="lineage-title")
        tree: Tree[str] = Tree("lineage", id="lineage-tree")
        tree.show_root = False
        tree.guide_depth = 2
        yield tree

    @property
    def tree(self) -> Tree[str]:
        return self.query_one("#lineage-tree", Tree)

    def show(self, lineage: LineageGraph) -> None:
        """Draw from `lineage.lineage()` (the whole project); the cursor stays on its line."""
        self.nodes = {n.name: n for n in lineage.nodes}
        self.graph = ProjectGraph()
        for source, target in lineage.edges:
            self.graph.add_edge(source, target)
        tree = self.tree
        line = tree.cursor_line
        tree.clear()
        if self.center is None:
            self._project(tree.root)
        else:
            self._around(tree.root, self.center)
        tree.root.expand_all()
        if line >= 0:
            tree.call_after_refresh(tree.move_cursor_to_line, min(line, tree.last_line))
        self.query_one("#lineage-title", Static).update(self._title())

    def set_status(self, name: str, status: str, at: float) -> None:
        """A run event: redraw that pipeline's mark at once."""
        if name not in self.nodes:
            return
        self.nodes[name] = replace(self.nodes[name], last_status=status, last_run_at=at)
        for node in self._walk(self.tree.root):
            if node.data == name:
                node.set_label(self._label(name, short=self.center is None, inputs=self.center is None))

    def node_named(self, name: str) -> TreeNode[str] | None:
        return next((node for node in self._walk(self.tree.root) if node.data == name), None)

    def _title(self) -> Text:
        legend = Text.assemble(("○ never run  ◐ running  ● last run  ", "grey50"), (ZONE_MARK[0], ZONE_MARK[1]),
                               (" landing zone  ·  Enter: show it in the project tree", "grey50"))
        if self.center is None:
            namespaces = sorted({name.split(".", 1)[0] for name in self.nodes})
            pipelines = sum(n.kind == "pipeline" for n in self.nodes.values())
            head = Text.assemble(("Lineage of the project", "bold"),
                                 f"  {count(len(namespaces), 'namespace')}, {count(pipelines, 'pipeline')}")
        else:
            head = Text.assemble(("Lineage of ", "bold"), (self.center, "bold"),
                                 f"  {len(self.graph.upstream_of(self.center))} upstream, "
                                 f"{len(self.graph.downstream_of(self.center))} downstream")
        return Text.assemble(head, "\n", legend)

    def _label(self, name: str, short: bool = False, inputs: bool = False, center: bool = False) -> Text:
        node = self.nodes.get(name) or LineageNode(name, "pipeline", "")
        shown = name.split(".", 2)[2] if short else name
        if node.kind == "zone":
            label = Text.assemble(ZONE_MARK, " ", (shown, "bold" if center else ""), ("  landing zone", "grey50"))
        else:
            mark, colour = STATUS_MARK.get(node.last_status, STATUS_MARK[None])
            label = Text.assemble((f"{mark} ", colour), (shown, "bold" if center else ""),
                                  (f"  {when(node.last_run_at)}", "grey50"))
        if inputs and self.graph.upstream.get(name):
            own = name.split(".", 1)[0]
            reads = [s.split(".", 1)[1] if s.split(".", 1)[0] == own else s for s in sorted(self.graph.upstream[name])]
            label.append(f"  ← {', '.join(reads)}", style="grey70")
        return label

    def _around(self, root: TreeNode[str], center: str) -> None:
        up = root.add(Text("upstream (what it reads)", style="italic"), None)
        self._branch(up, center, self.graph.upstream, {center})
        if not up.children:
            up.add_leaf(Text("nothing", style="grey50"), None)
        root.add_leaf(self._label(center, center=True), center)
        down = root.add(Text("downstream (what reads it)", style="italic"), None)
        self._branch(down, center, self.graph.downstream, {center})
        if not down.children:
            down.add_leaf(Text("nothing", style="grey50"), None)

    def _branch(self, parent: TreeNode[str], name: str, edges: dict[str, set[str]], path: set[str]) -> None:
        """Each neighbour, then its own neighbours below it (a node reached twice is drawn twice; a cycle
        is cut where it closes)."""
        for nxt in sorted(edges.get(name, ()), key=self._order):
            if nxt in path:
                continue
            node = parent.add(self._label(nxt), nxt) if edges.get(nxt) else parent.add_leaf(self._label(nxt), nxt)
            self._branch(node, nxt, edges, path | {nxt})

    def _project(self, root: TreeNode[str]) -> None:
        by_namespace: dict[str, list[str]] = {}
        for name in self.nodes:
            by_namespace.setdefault(name.split(".", 1)[0], []).append(name)
        for namespace in sorted(by_namespace):
            ns = root.add(Text(namespace, style="bold"), None)
            for layer in LAYER_ORDER:
                names = sorted(n for n in by_namespace[namespace] if self.nodes[n].layer == layer)
                if names:
                    group = ns.add(Text(layer, style="italic"), None)
                    for name in names:
                        group.add_leaf(self._label(name, short=True, inputs=True), name)

    def _order(self, name: str) -> tuple:
        layer = node.layer if (node := self.nodes.get(name)) else ""
        return (LAYER_ORDER.index(layer) if layer in LAYER_ORDER else len(LAYER_ORDER), name)

    def _walk(self, node: TreeNode[str]):
        for child in node.children:
            yield child
            yield from self._walk(child)

    @on(Tree.NodeSelected, "#lineage-tree")
    def _selected(self, event: Tree.NodeSelected) -> None:
        event.stop()
        if event.node.data is not None:
            self.post_message(self.Jump(event.node.data))
