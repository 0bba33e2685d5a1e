"""An Iceberg table: schema, its history by run (core.lake.history), preview at the selected entry, and
the diff of a whole run (`d`: main before it against main after it); Enter on a column of the preview
opens that column's lineage (column_lineage.py).

One row per run that reached main, per compaction, per rollback, and one for the creation: the raw
snapshots inside a run (a merge's delete before its append) were never main, so they are neither
shown nor offered to `t`. It loads the history, the preview at the highlighted entry and a diff in
thread workers and fills itself from their messages; once loaded, the cursor sits on main."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static

from ...core.commands.diff_results import SnapshotDiff
from ...core.commands.table_results import TableHistory, TablePreview
from ...core.failures import failure_sentence
from ...core.lake.history import HistoryEntry
from ...core.lineage.model import ColumnRef
from ...core.text import count
from ..messages import ActionDone, ActionFailed
from ..outcomes import diffed
from .column_lineage import ColumnLineageScreen
from .loading import app_closing, post_loaded
from .project_tree import NodeData
from .diff_view import changed_rows
from .result_table import event_row_key, selected_key, show_rows

if TYPE_CHECKING:
    from ...core.compose import Workbench


def what_it_was(entry: HistoryEntry) -> str:
    """A run's strategy (older runs did not record it), else the entry's kind: compaction, rollback, …"""
    return (entry.strategy or "run") if entry.kind == "run" else entry.kind


class TableView(Vertical):
    @dataclass
    class Loaded(Message, bubble=False):
        history: TableHistory
        schema: str

    @dataclass
    class PreviewLoaded(Message, bubble=False):
        result: TablePreview

    @dataclass
    class DiffLoaded(Message, bubble=False):
        diff: SnapshotDiff
        title: str

    def __init__(self, workbench: Workbench, node: NodeData) -> None:
        super().__init__(id="table-view")
        assert node.ref is not None
        self.workbench, self.node = workbench, node
        self.fqn = node.ref.fqn
        self.entries: list[HistoryEntry] = []  # the history, oldest first; a row's key is its index here

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="detail")
    def load(self) -> None:
        wb = self.workbench
        post_loaded(self, f"show table {self.node.name}", lambda: self.Loaded(wb.tables.history(self.fqn),
                                                                               wb.tables.table_schema(self.fqn)))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        if not app_closing(self.app):
            self.show_snapshots(message.history, message.schema)

    def compose(self) -> ComposeResult:
        yield Static(Text(self.fqn, style="bold"), id="table-title")
        yield DataTable(id="snapshots-table", cursor_type="row")
        yield Static(id="table-detail")
        yield DataTable(id="snapshot-preview")

    def show_snapshots(self, history: TableHistory, schema: str) -> None:
        self.query_one("#table-title", Static).update(Text.assemble((self.fqn, "bold"), ("  " + schema, "grey70")))
        table = self.query_one("#snapshots-table", DataTable)
        table.clear(columns=True)
        table.add_columns("", "run", "committed (UTC)", "what", "added", "updated", "deleted", "rows", "snapshot")
        self.entries = history.entries
        current = 0
        for row, index in enumerate(reversed(range(len(self.entries)))):
            entry = self.entries[index]
            current = row if entry.is_current else current
            style = "" if entry.on_main else "grey50"  # rolled back past: still there to roll forward to
            cells = ["▶" if entry.is_current else "", entry.run_id or "", entry.committed_at[:19], what_it_was(entry),
                     f"{entry.added_rows:,}", f"{entry.updated_rows:,}", f"{entry.deleted_rows:,}",
                     f"{entry.total_rows:,}", str(entry.snapshot_id)]
            table.add_row(*(Text(cell, style=style) for cell in cells), key=str(index))
        if self.entries:
            table.move_cursor(row=current)  # the preview shows main, also after a rollback

    def selected_entry(self) -> HistoryEntry | None:
        key = selected_key(self.query_one("#snapshots-table", DataTable))
        return self.entries[int(key)] if key is not None else None

    def selected_snapshot(self) -> int | None:
        """The selected entry's head: main after it."""
        entry = self.selected_entry()
        return entry.snapshot_id if entry is not None else None

    @on(DataTable.RowHighlighted, "#snapshots-table")
    def _snapshot_highlighted(self, event: DataTable.RowHighlighted) -> None:
        entry = event_row_key(event)
        if entry is not None:
            self.load_preview(self.entries[int(entry)].snapshot_id)

    @work(thread=True, group="actions")
    def load_preview(self, snapshot_id: int) -> None:
        try:
            result = self.workbench.tables.table_preview(self.fqn, snapshot_id)
        except Exception as exc:
            self.post_message(ActionFailed("table preview", failure_sentence("table preview", exc)))
            return
        self.post_message(self.PreviewLoaded(result))

    @on(PreviewLoaded)
    def _preview_loaded(self, message: PreviewLoaded) -> None:
        if app_closing(self.app):
            return
        result = message.result
        self.query_one("#table-detail", Static).update(Text(f"Preview at snapshot {result.snapshot_id}", style="grey70"))
        show_rows(self.query_one("#snapshot-preview", DataTable), result.columns, result.rows)

    @on(DataTable.CellSelected, "#snapshot-preview")
    def _column_chosen(self, event: DataTable.CellSelected) -> None:
        column = event.data_table.ordered_columns[event.coordinate.column].label.plain
        self.app.push_screen(ColumnLineageScreen(self.workbench, ColumnRef(self.fqn, column)))

    @work(thread=True, group="actions")
    def diff(self, entry: HistoryEntry) -> None:
        """`d`: main before the entry (its base) against main after it (its head)."""
        old, new = entry.base_snapshot_id, entry.snapshot_id
        what = f"run {entry.run_id}" if entry.kind == "run" else entry.kind  # run abc123 / compaction
        try:
            diff = self.workbench.tables.diff_snapshots(self.fqn, old, new)
        except Exception as exc:
            self.post_message(ActionFailed("diff", failure_sentence("diff", exc)))
            return
        self.post_message(self.DiffLoaded(diff, f"{what} ({old or 'no table'} → {new})"))
        self.post_message(ActionDone("diff", diffed(self.fqn, diff.diff, what, old, new), toast=False))

    @on(DiffLoaded)
    def _diff_loaded(self, message: DiffLoaded) -> None:
        if app_closing(self.app):
            return
        diff = message.diff.diff
        by = ", ".join(diff.key) or "every column"
        lines = [f"Diff of {message.title} by {by}: +{count(diff.added, 'row')}, -{count(diff.removed, 'row')}, "
                 f"~{count(diff.changed, 'row')} changed"]
        for change in diff.schema_changes:
            lines.append(f"  column {change['column']}: {change['change']} {change.get('type', '')}{change.get('to', '')}")
        shown = [s for change in ("changed", "added", "removed") for s in diff.sample if s["change"] == change][:15]
        text = Text("\n".join(lines))
        self.query_one("#table-detail", Static).update(Group(text, changed_rows(shown)) if shown else text)
