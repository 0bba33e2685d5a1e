"""One column's lineage in a dialog: what it is made from (upstream, to the landing zones' file columns)
and what is made from it (downstream, to the gold tables), as two trees, each edge with its kind:
direct (identity, transformation, aggregation) or indirect (join, filter, group by, sort, window,
condition). Opened by Enter on a column of the table view's preview; loads in a thread worker."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, Tree
from textual.widgets.tree import TreeNode

from ...core.lineage.chains import Branch
from ...core.lineage.model import ColumnRef
from ...core.lineage.service import ColumnTree
from .loading import post_loaded

if TYPE_CHECKING:
    from ...core.compose import Workbench

KIND_STYLE = {"direct": "green", "indirect": "yellow", "unknown": "red"}


def branch_label(branch: Branch, namespace: str) -> Text:
    """`layer.name.column` within the asked column's namespace, `ns.layer.name.column` across."""
    name = branch.column.name.removeprefix(f"{namespace}.")
    return Text.assemble((name, "bold"), "  ", (f"{branch.kind} · {branch.via}", KIND_STYLE.get(branch.kind, "")))


class ColumnLineageScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "close", "Close")]

    @dataclass
    class Loaded(Message, bubble=False):
        tree: ColumnTree

    def __init__(self, workbench: Workbench, column: ColumnRef) -> None:
        super().__init__(id="column-lineage")
        self.workbench, self.column = workbench, column

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text.assemble(("Column lineage of ", ""), (self.column.name, "bold")))
            tree: Tree[str] = Tree("lineage", id="column-lineage-tree")
            tree.show_root = False
            yield tree
            yield Label(Text("direct: the value is made from it · indirect: it picks the rows · Escape to close",
                             style="grey50"))

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="column-lineage")
    def load(self) -> None:
        post_loaded(self, "column lineage", lambda: self.Loaded(self.workbench.column_lineage.column_tree(self.column)))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        tree = self.query_one("#column-lineage-tree", Tree)
        tree.clear()
        for title, branches, note in (("upstream: made from", message.tree.upstream, message.tree.note),
                                      ("downstream: read by", message.tree.downstream, "")):
            section = tree.root.add(Text(f"{title} ({len(branches)})", style="bold"), expand=True)
            self._add(section, branches)
            if not branches:
                section.add_leaf(Text(note, style="yellow") if note else Text("nothing", style="grey50"))
        tree.focus()

    def _add(self, parent: TreeNode, branches: tuple[Branch, ...]) -> None:
        namespace = self.column.table.split(".")[0]
        for branch in branches:
            if branch.children:
                self._add(parent.add(branch_label(branch, namespace), expand=True), branch.children)
            else:
                parent.add_leaf(branch_label(branch, namespace))

    def action_close(self) -> None:
        self.dismiss(None)
