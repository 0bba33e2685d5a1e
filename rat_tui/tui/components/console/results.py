"""The console's results: a status line (rows, time, "showing first N") over a fast grid
(textual-fastdatatable renders only the rows on screen from the Arrow table, so 10,000 rows
scroll as smoothly as 10)."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static
from textual_fastdatatable import ArrowBackend
from textual_fastdatatable.data_table import DataTable

from ...keymap import CONSOLE_KEYMAP


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


class ResultsGrid(DataTable):
    """The grid with the console's result keys (copy, profile); the panel does the work."""

    BINDINGS = [Binding(k.key, f"console_grid('{k.action}')", k.description, id=k.id)
                for k in CONSOLE_KEYMAP if k.needs == "result"]

    def action_console_grid(self, action: str) -> None:
        self.post_message(GridAction(self, action))


class GridAction(Message):
    def __init__(self, grid: ResultsGrid, action: str) -> None:
        super().__init__()
        self.grid, self.action = grid, action


class ResultsView(Vertical):
    DEFAULT_CSS = """
    ResultsView { height: 1fr; }
    ResultsView #console-status { height: 1; color: $text-muted; }
    ResultsView #console-status.error { color: $error; }
    ResultsView ResultsGrid { height: 1fr; }
    """

    def compose(self) -> ComposeResult:
        yield Static("Ctrl+Enter runs the statement under the cursor · F8 history · ? help", id="console-status")

    @property
    def grid(self) -> ResultsGrid | None:
        found = self.query(ResultsGrid)
        return found.first() if found else None

    def say(self, text: str, error: bool = False) -> None:
        status = self.query_one("#console-status", Static)
        status.update(text)
        status.set_class(error, "error")

    async def show(self, result) -> None:
        """A new grid for a new result (the Arrow table is handed over, not copied)."""
        old = self.grid
        if old is not None:
            await old.remove()
        table = result.table
        shown = f"showing first {_count(table.num_rows, 'row')}; " if result.truncated else ""
        self.say(f"{_count(table.num_rows, 'row')}{'+' if result.truncated else ''} · {result.elapsed_ms:,} ms"
                 + (f" · {shown}console.max_rows in rat.yaml sets the limit; Ctrl+E exports all" if shown else ""))
        grid = ResultsGrid(backend=ArrowBackend(table), null_rep="NULL", max_column_content_width=40,
                           id="console-results")
        await self.mount(grid)

    def copy_text(self, action: str) -> str | None:
        grid = self.grid
        if grid is None or grid.row_count == 0:
            return None
        if action == "copy_row":
            return "\t".join("NULL" if v is None else str(v) for v in grid.get_row_at(grid.cursor_row))
        value = grid.get_cell_at(grid.cursor_coordinate)
        return "NULL" if value is None else str(value)
