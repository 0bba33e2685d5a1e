"""An Iceberg table: schema, snapshots, preview at the selected snapshot, diff with the previous one."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from ...core.text import count
from .result_table import selected_key, show_rows


class TableView(Vertical):
    def __init__(self, fqn: str) -> None:
        super().__init__(id="table-view")
        self.fqn = fqn
        self.snapshot_ids: list[int] = []

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

    def show_preview(self, result: dict) -> None:
        self.query_one("#table-detail", Static).update(
            Text(f"Preview at snapshot {result['snapshot_id']}", style="grey70"))
        show_rows(self.query_one("#snapshot-preview", DataTable), result["columns"], result["rows"])

    def show_diff(self, diff: dict, old: int, new: int) -> None:
        lines = [f"Diff {old} → {new}: +{count(diff['added'], 'row')}, -{count(diff['removed'], 'row')}"]
        for change in diff["schema_changes"]:
            lines.append(f"  column {change['column']}: {change['change']} {change.get('type', '')}{change.get('to', '')}")
        lines += [f"  + {row}" for row in diff["added_rows"][:5]] + [f"  - {row}" for row in diff["removed_rows"][:5]]
        self.query_one("#table-detail", Static).update(Text("\n".join(lines)))
