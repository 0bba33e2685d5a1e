"""A landing zone: active files, samples and processed runs; preview of a file.

It loads its files and a file's preview in thread workers and fills itself from their messages; the
app feeds it an upload's progress."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, ProgressBar, Static

from ...core.text import count
from ...core.commands.browse_results import FileSample
from ...core.commands.details import zone_files
from ...core.commands.landing_results import ZoneFile
from ...core.project.pipeline_source import zone_readers
from ...core.project.settings import ZoneSettings
from ...core.failures import failure_sentence
from ..messages import ActionDone, ActionFailed
from ..outcomes import rows_shown
from .loading import app_closing, post_loaded
from .project_tree import NodeData
from .result_table import event_row_key, selected_key, show_rows

if TYPE_CHECKING:
    from ...core.compose import Workbench

HINT = Text("Select a file and press Enter to preview it.", style="grey50")


class ZoneView(Vertical):
    @dataclass
    class Loaded(Message, bubble=False):
        files: list[ZoneFile]
        readers: list[str]
        settings: ZoneSettings

    @dataclass
    class FilePreviewed(Message, bubble=False):
        result: FileSample

    def __init__(self, workbench: Workbench, node: NodeData) -> None:
        super().__init__(id="zone-view")
        self.workbench, self.node = workbench, node
        self.namespace, self.zone = node.namespace, node.name
        self.files: list[ZoneFile] = []

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="detail")
    def load(self) -> None:
        wb, namespace, zone = self.workbench, self.namespace, self.zone
        post_loaded(self, f"show zone {zone}", lambda: self.Loaded(
            zone_files(wb.project, wb.state, namespace, zone), zone_readers(wb.project, namespace, zone), wb.landing.zone_settings(namespace, zone)))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        if not app_closing(self.app):
            self.show_files(message.files, message.readers, message.settings)

    def compose(self) -> ComposeResult:
        yield Static(Text(f"{self.namespace} / landing / {self.zone}", style="bold"), id="zone-title")
        yield DataTable(id="zone-files", cursor_type="row")
        yield ProgressBar(id="upload-progress", show_eta=False)
        yield Static(HINT, id="zone-hint")
        yield DataTable(id="zone-preview")

    def show_files(self, files: list[ZoneFile], readers: list[str], settings: ZoneSettings) -> None:
        purge = "auto-purge" if settings.auto_purge else "manual purge"
        schema = f"  expected columns: {', '.join(settings.schema)}" if settings.schema else ""
        self.query_one("#zone-title", Static).update(Text.assemble(
            (f"{self.namespace} / landing / {self.zone}", "bold"),
            ("\nread by: " + (", ".join(readers) or "no pipeline"), "grey70"),
            (f"\nprocessed files kept {count(settings.processed_max_age_days, 'day')} ({purge}){schema}"
             "\ne edit · E pin the detected dialect · u upload", "grey50")))
        self.files = files
        table = self.query_one("#zone-files", DataTable)
        table.clear(columns=True)
        table.add_columns("file", "kind", "read as", "size", "modified", "consumed")
        for f in files:
            consumed = "" if f.consumed is None else ("yes" if f.consumed else "not yet")
            kind = f"{f.kind}, typed" if f.typed else f.kind  # runs read its Parquet twin
            read_as = Text(f.problem, style="red") if f.problem else f.dialect or ""
            table.add_row(f.path, kind, read_as, f"{f.bytes:,}", f.modified, consumed, key=f.path)

    def dialect_file(self) -> str | None:
        """The file whose detected dialect `E` pins: the one under the cursor, else the first that has one."""
        detected = [f.path for f in self.files if f.dialect]
        selected = self.selected_file()
        return selected if selected in detected else next(iter(detected), None)

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

    @on(DataTable.RowSelected, "#zone-files")
    def _file_selected(self, event: DataTable.RowSelected) -> None:
        name = event_row_key(event)
        if name is not None:
            self.preview_file(name)

    @work(thread=True, group="actions")
    def preview_file(self, name: str) -> None:
        try:
            result = self.workbench.landing.sample(self.namespace, self.zone, name)
        except Exception as exc:
            self.post_message(ActionFailed("preview file", failure_sentence("preview file", exc)))
            return
        self.post_message(self.FilePreviewed(result))
        self.post_message(ActionDone("preview file", rows_shown(f"{self.namespace}/{self.zone}/{name}", result),
                                     toast=False))

    @on(FilePreviewed)
    def _file_previewed(self, message: FilePreviewed) -> None:
        if not app_closing(self.app):
            result = message.result
            show_rows(self.query_one("#zone-preview", DataTable), result.columns, result.rows)
