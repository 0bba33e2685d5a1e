"""An Iceberg table: schema, snapshots, preview at the selected snapshot, diff with the previous one.

It loads its snapshots, the preview at the highlighted snapshot and a diff (`d`) in thread workers and
fills itself from their messages."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static

from ...core.text import count
from ...core.commands.failures import failure_sentence
from ..messages import ActionDone, ActionFailed
from ..outcomes import diffed
from .loading import app_closing, post_loaded
from .project_tree import NodeData
from .result_table import selected_key, show_rows

if TYPE_CHECKING:
    from ...core.commands.workbench import Workbench


class TableView(Vertical):
    @dataclass
    class Loaded(Message, bubble=False):
        snapshots: dict
        schema: str

    @dataclass
    class PreviewLoaded(Message, bubble=False):
        result: dict

    @dataclass
    class DiffLoaded(Message, bubble=False):
        diff: dict
        old: int
        new: int

    def __init__(self, workbench: Workbench, node: NodeData) -> None:
        super().__init__(id="table-view")
        assert node.ref is not None
        self.workbench, self.node = workbench, node
        self.fqn = node.ref.fqn
        self.snapshot_ids: list[int] = []

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="detail")
    def load(self) -> None:
        wb = self.workbench
        post_loaded(self, f"show table {self.node.name}", lambda: self.Loaded(wb.snapshots(self.fqn),
                                                                               wb.table_schema(self.fqn)))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        if not app_closing(self.app):
            self.show_snapshots(message.snapshots, message.schema)

    def compose(self) -> ComposeResult:
        yield Static(Text(self.fqn, style="bold"), id="table-title")
        yield DataTable(id="snapshots-table", cursor_type="row")
        yield Static(id="table-detail")
        yield DataTable(id="snapshot-preview")

    def show_snapshots(self, data: dict, schema: str) -> None:
        self.query_one("#table-title", Static).update(Text.assemble((self.fqn, "bold"), ("  " + schema, "grey70")))
        table = self.query_one("#snapshots-table", DataTable)
        table.clear(columns=True)
        table.add_columns("", "snapshot", "committed (UTC)", "operation", "added", "total", "run")
        self.snapshot_ids = []
        for snap in reversed(data["snapshots"]):
            self.snapshot_ids.append(snap["snapshot_id"])
            table.add_row("▶" if snap["is_current"] else "", str(snap["snapshot_id"]), snap["committed_at"][:19],
                          snap["operation"], f"{snap['added_rows']:,}", f"{snap['total_rows']:,}", snap["run_id"] or "",
                          key=str(snap["snapshot_id"]))

    def selected_snapshot(self) -> int | None:
        key = selected_key(self.query_one("#snapshots-table", DataTable))
        return int(key) if key is not None else None

    def previous_of(self, snapshot_id: int) -> int | None:
        ordered = list(reversed(self.snapshot_ids))
        index = ordered.index(snapshot_id)
        return ordered[index - 1] if index > 0 else None

    @on(DataTable.RowHighlighted, "#snapshots-table")
    def _snapshot_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value:
            self.load_preview(int(event.row_key.value))

    @work(thread=True, group="actions")
    def load_preview(self, snapshot_id: int) -> None:
        try:
            result = self.workbench.table_preview(self.fqn, snapshot_id)
        except Exception as exc:
            self.post_message(ActionFailed("table preview", failure_sentence("table preview", exc)))
            return
        self.post_message(self.PreviewLoaded(result))

    @on(PreviewLoaded)
    def _preview_loaded(self, message: PreviewLoaded) -> None:
        if app_closing(self.app):
            return
        result = message.result
        self.query_one("#table-detail", Static).update(
            Text(f"Preview at snapshot {result['snapshot_id']}", style="grey70"))
        show_rows(self.query_one("#snapshot-preview", DataTable), result["columns"], result["rows"])

    @work(thread=True, group="actions")
    def diff(self, old: int, new: int) -> None:
        """`d`: the selected snapshot against the one before it."""
        try:
            diff = self.workbench.diff_snapshots(self.fqn, old, new)
        except Exception as exc:
            self.post_message(ActionFailed("diff", failure_sentence("diff", exc)))
            return
        self.post_message(self.DiffLoaded(diff, old, new))
        self.post_message(ActionDone("diff", diffed(self.fqn, diff, old, new), toast=False))

    @on(DiffLoaded)
    def _diff_loaded(self, message: DiffLoaded) -> None:
        if app_closing(self.app):
            return
        diff, old, new = message.diff, message.old, message.new
        lines = [f"Diff {old} → {new}: +{count(diff['added'], 'row')}, -{count(diff['removed'], 'row')}"]
        for change in diff["schema_changes"]:
            lines.append(f"  column {change['column']}: {change['change']} {change.get('type', '')}{change.get('to', '')}")
        lines += [f"  + {row}" for row in diff["added_rows"][:5]] + [f"  - {row}" for row in diff["removed_rows"][:5]]
        self.query_one("#table-detail", Static).update(Text("\n".join(lines)))
