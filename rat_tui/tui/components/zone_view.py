"""A landing zone: active files, samples and processed runs; preview of a file."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static


class ZoneView(Vertical):
    def __init__(self, namespace: str, zone: str) -> None:
        super().__init__(id="zone-view")
        self.namespace, self.zone = namespace, zone

    def compose(self) -> ComposeResult:
        yield Static(Text(f"{self.namespace} / landing / {self.zone}", style="bold"), id="zone-title")
        yield DataTable(id="zone-files", cursor_type="row")
        yield Static(Text("Select a file and press Enter to preview it.", style="grey50"), id="zone-hint")
        yield DataTable(id="zone-preview")

    def show_files(self, files: list[dict], readers: list[str]) -> None:
        self.query_one("#zone-title", Static).update(Text.assemble(
            (f"{self.namespace} / landing / {self.zone}", "bold"),
            ("   read by: " + (", ".join(readers) or "no pipeline"), "grey70")))
        table = self.query_one("#zone-files", DataTable)
        table.clear(columns=True)
        table.add_columns("file", "kind", "size", "modified")
        for f in files:
            table.add_row(f["path"], f["kind"], f"{f['bytes']:,}", f["modified"], key=f["path"])

    def selected_file(self) -> str | None:
        table = self.query_one("#zone-files", DataTable)
        if table.row_count == 0:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    def show_preview(self, result: dict) -> None:
        table = self.query_one("#zone-preview", DataTable)
        table.clear(columns=True)
        table.add_columns(*result["columns"])
        for row in result["rows"]:
            table.add_row(*["NULL" if v is None else str(v) for v in row])
