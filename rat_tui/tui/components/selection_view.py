"""One progress view for a run of several pipelines (`NAME+`, `+NAME`, a build, a rebuild): each
pipeline's state — queued, running (with its phase), success, failed, skipped — from the run events.

No clock and no run id is printed (a finished run shows how long it took, from its events), so the
view reads the same in a snapshot as it did live."""
from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from ...core.events import Event, PhaseStarted, RunFinished, RunQueued, RunStarted
from ...core.text import count
from .project_tree import STATUS_MARK, NodeData

FINAL = ("success", "awaiting_review", "failed", "skipped", "cancelled")
STATE_STYLE = {"success": "green", "awaiting_review": "magenta", "failed": "red", "cancelled": "yellow", "skipped": "grey50"}


@dataclass
class Row:
    name: str
    state: str = "queued"  # queued (waiting for upstream, or submitted) | running | success | failed | skipped | cancelled
    run_id: str | None = None
    phase: str = ""
    started: float | None = None
    finished: float | None = None
    rows: int | None = None
    error: str = ""


class SelectionProgress:
    """The states of one selection, fed by run events. A pipeline's first run queued after the plan is
    the selection's (a run of it already under way when the selection began is not)."""

    def __init__(self, title: str, names: list[str]) -> None:
        self.title = title
        self.rows = {name: Row(name) for name in names}
        self._by_run: dict[str, Row] = {}

    def apply(self, event: Event) -> bool:
        """True when the event changed a row."""
        if isinstance(event, RunQueued):
            row = self.rows.get(event.pipeline)
            if row is None or row.run_id is not None:
                return False
            row.run_id = event.run_id
            self._by_run[event.run_id] = row
            return True
        row = self._by_run.get(getattr(event, "run_id", ""))
        if row is None:
            return False
        if isinstance(event, RunStarted):
            row.state, row.started = "running", event.at
        elif isinstance(event, PhaseStarted):
            row.phase = event.phase
        elif isinstance(event, RunFinished):
            row.state, row.finished, row.rows = event.status, event.at, event.rows_written
            row.error = (event.error or "").removeprefix("skipped: ")
        else:
            return False
        return True

    def owns(self, run_id: str) -> bool:
        return run_id in self._by_run

    @property
    def done(self) -> bool:
        return all(row.state in FINAL for row in self.rows.values())

    def counts(self) -> str:
        order = ("success", "awaiting_review", "failed", "skipped", "cancelled", "running", "queued")
        found = {state: sum(r.state == state for r in self.rows.values()) for state in order}
        return ", ".join(f"{n} {state}" for state, n in found.items() if n)


class SelectionView(Static):
    def __init__(self, progress: SelectionProgress, opened_on: NodeData | None) -> None:
        super().__init__(id="selection-view")
        self.progress, self.opened_on = progress, opened_on

    def on_mount(self) -> None:
        self.refresh_view()

    def refresh_view(self) -> None:
        p = self.progress
        head = Text.assemble(("Selection ", "bold"), (p.title, "bold"), f"  {count(len(p.rows), 'pipeline')}: {p.counts()}",
                             ("" if p.done else "  (c on a running pipeline cancels the selection)", "grey50"))
        table = Table(box=None, pad_edge=False, header_style="bold")
        table.add_column("")
        table.add_column("pipeline", no_wrap=True)  # names stay whole; the detail column folds
        table.add_column("state", no_wrap=True)
        table.add_column("", overflow="fold")
        for row in p.rows.values():
            mark, colour = STATUS_MARK.get(row.state, STATUS_MARK[None])
            state = f"running · {row.phase}" if row.state == "running" and row.phase else row.state
            table.add_row(Text(mark, style=colour), row.name, Text(state, style=STATE_STYLE.get(row.state, "cyan")),
                          self._timing(row))
        self.update(Group(head, Text(""), table, *self._errors()))

    @staticmethod
    def _timing(row: Row) -> Text:
        if row.state == "success" and row.started and row.finished:
            return Text(f"{row.finished - row.started:.1f} s · {count(row.rows or 0, 'row')}", style="grey70")
        return Text("")

    def _errors(self) -> list[Text]:
        """Each failed or skipped pipeline's sentence under the table, at the view's full width: in a
        table column beside a long pipeline name it would fold into a strip a few characters wide."""
        shown: list[Text] = []
        for row in self.progress.rows.values():
            if row.error:
                shown += [Text(""), Text.assemble((f"{row.name} {row.state}: ", "bold"),
                                                  (row.error, "red" if row.state == "failed" else "grey50"))]
        return shown
