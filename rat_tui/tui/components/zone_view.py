"""A landing zone: active files, samples and processed runs; preview of a file."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, ProgressBar, Static

from ...core.text import count
from .result_table import selected_key, show_rows


HINT = Text("Select a file and press Enter to preview it.", style="grey50")


class ZoneView(Vertical):
    def __init__(self, namespace: str, zone: str) -> None:
        super().__init__(id="zone-view")
        self.namespace, self.zone = namespace, zone

    def compose(self) -> ComposeResult:
        yield Static(Text(f"{self.namespace} / landing / {self.zone}", style="bold"), id="zone-title")
        yield DataTable(id="zone-files", cursor_type="row")
        yield ProgressBar(id="upload-progress", show_eta=False)
        yield Static(HINT, id="zone-hint")
        yield DataTable(id="zone-preview")

    def show_files(self, files: list[dict], readers: list[str], settings: dict) -> None:
        purge = "auto-purge" if settings["auto_purge"] else "manual purge"
        schema = f"  expected columns: {', '.join(settings['schema'])}" if settings.get("schema") else ""
        self.query_one("#zone-title", Static).update(Text.assemble(
            (f"{self.namespace} / landing / {self.zone}", "bold"),
            ("\nread by: " + (", ".join(readers) or "no pipeline"), "grey70"),
            (f"\nprocessed files kept {count(settings['processed_max_age_days'], 'day')} ({purge}){schema}"
             "   e edit · u upload", "grey50")))
        table = self.query_one("#zone-files", DataTable)
        table.clear(columns=True)
        table.add_columns("file", "kind", "size", "modified", "consumed")
        for f in files:
            consumed = "" if f["consumed"] is None else ("yes" if f["consumed"] else "not yet")
            kind = f"{f['kind']}, typed" if f.get("typed") else f["kind"]  # runs read its Parquet twin
            table.add_row(f["path"], kind, f"{f['bytes']:,}", f["modified"], consumed, key=f["path"])

    def show_progress(self, name: str, copied: int, total: int) -> None:
        bar = self.query_one("#upload-progress", ProgressBar)
        bar.display = True
        bar.update(total=max(total, 1), progress=copied)
        text = f"uploading {name}: {copied:,} of {total:,} bytes"
        if copied >= total and name.lower().endswith(".csv"):
            text = f"uploaded {name}; converting it to typed Parquet, which runs read faster than CSV…"
        self.query_one("#zone-hint", Static).update(Text(text, style="cyan"))

    def upload_ended(self) -> None:
        """The copy and the typed conversion are over (or failed): the bar and its sentence go."""
        self.query_one("#upload-progress", ProgressBar).display = False
        self.query_one("#zone-hint", Static).update(HINT)

    def selected_file(self) -> str | None:
        return selected_key(self.query_one("#zone-files", DataTable))

    def show_preview(self, result: dict) -> None:
        show_rows(self.query_one("#zone-preview", DataTable), result["columns"], result["rows"])
