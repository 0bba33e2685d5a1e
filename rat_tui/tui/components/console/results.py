"""The console's results: a status line (rows, time, "showing first N") over a fast grid
(textual-fastdatatable renders only the rows on screen from the Arrow table, so 10,000 rows
scroll as smoothly as 10)."""
from __future__ import annotations

from rich.align import Align
from rich.console import Console, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Static
from textual_fastdatatable import ArrowBackend
from textual_fastdatatable.column import CELL_X_PADDING
from textual_fastdatatable.data_table import DataTable

from ....core.text import count
from ...keymap import CONSOLE_KEYMAP, console_key_label

CACHED_ROWS = 200  # drawn rows the grid keeps: a few screens' worth
NULL_MARKUP = "[dim italic]NULL[/]"


class ResultsGrid(DataTable):
    """The grid with the console's result keys (copy, profile); the panel does the work."""

    BINDINGS = [Binding(k.key, f"console_grid('{k.action}')", k.description, id=k.id)
                for k in CONSOLE_KEYMAP if k.needs == "result"]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # The library keeps 1,000 rows and 10,000 cells drawn, tens of thousands of objects that every
        # full garbage collection walks (60-100 ms pauses while scrolling); a few screens are enough.
        for cache, size in ((self._row_render_cache, CACHED_ROWS), (self._line_cache, CACHED_ROWS),
                            (self._cell_render_cache, CACHED_ROWS * 10)):
            cache.maxsize = size

    def action_console_grid(self, action: str) -> None:
        self.post_message(GridAction(self, action))

    def _render_cell(self, row_index: int, column_index: int, base_style: Style, width: int,
                     cursor: bool = False, hover: bool = False, in_range: bool = False) -> list[list[Segment]]:
        """A page of new rows is most of a scrolling frame, and rich's layout of one value (padding,
        alignment, cropping) is most of each cell: a one-line value is laid out here directly, to the
        same segments; headers and anything else take the library's way."""
        key = (row_index, column_index, base_style, cursor, hover, in_range, self._show_hover_cursor,
               self._update_count, self._pseudo_class_state)  # the library's own cache key
        body = row_index >= self.fixed_rows and column_index >= self.fixed_columns  # not a header, label or fixed
        lines = self._cell_render_cache.get(key) if body else None
        if lines is None and body:
            inner = width - CELL_X_PADDING
            segments = plain_segments(self.app.console, self._get_cell_renderable(row_index, column_index, inner),
                                      inner)
            if segments is not None:
                component_style, post_style = self._get_styles_to_render_cell(
                    False, False, False, hover, cursor, in_range, self.show_cursor, self._show_hover_cursor,
                    self.cursor_type == "range", self.cursor_foreground_priority == "css",
                    self.cursor_background_priority == "css")
                pre_style = base_style + Style.from_meta({"row": row_index, "column": column_index}) + component_style
                lines = [list(Segment.apply_style(segments, pre_style, post_style))]
                self._cell_render_cache[key] = lines
        return lines if lines is not None else super()._render_cell(row_index, column_index, base_style, width,
                                                                    cursor, hover, in_range)


def plain_segments(console: Console, cell: RenderableType, width: int) -> list[Segment] | None:
    """A one-line text value (or one aligned by `Align`) padded to `width` plus the cell's margins,
    cut with an ellipsis when longer, as rich lays it out; None for anything else."""
    justify = "left"
    if isinstance(cell, Align):
        if cell.style or cell.vertical or cell.width is not None or not cell.pad:
            return None
        justify, cell = cell.align, cell.renderable
    if isinstance(cell, str):
        text = console.render_str(cell)
    elif isinstance(cell, Text):
        text = cell.copy()
    else:
        return None
    if "\n" in text.plain or "\t" in text.plain or text.justify not in (None, "default") or width < 1:
        return None
    text.truncate(width, overflow="ellipsis")
    space = width - text.cell_len
    left = space if justify == "right" else space // 2 if justify == "center" else 0
    return [Segment(" " * (1 + left)), *text.render(console), Segment(" " * (1 + space - left))]


class GridAction(Message):
    def __init__(self, grid: ResultsGrid, action: str) -> None:
        super().__init__()
        self.grid, self.action = grid, action


class ResultsView(Vertical):
    DEFAULT_CSS = """
    ResultsView { height: 1fr; }
    ResultsView #console-status-scroll { height: auto; max-height: 8; }
    ResultsView #console-status { height: auto; color: $text-muted; }
    ResultsView #console-status.error { color: $error; }
    ResultsView ResultsGrid { height: 1fr; }
    """

    def compose(self) -> ComposeResult:
        # `?` would type into the editor: help is reached from the palette there. A long error wraps and
        # scrolls (Tab to it), never cut.
        with VerticalScroll(id="console-status-scroll"):
            yield Static(f"{console_key_label('console_run')} runs the statement at the cursor · F8 history · "
                         "Ctrl+P help", id="console-status")

    @property
    def grid(self) -> ResultsGrid | None:
        found = self.query(ResultsGrid)
        return found.first() if found else None

    def say(self, text: str, error: bool = False) -> None:
        status = self.query_one("#console-status", Static)
        status.update(Text(text))  # an error's `[…]` is its text, never markup
        status.set_class(error, "error")
        self.query_one("#console-status-scroll").scroll_home(animate=False)

    async def clear(self) -> None:
        if (grid := self.grid) is not None:
            await grid.remove()

    async def show(self, result) -> None:
        """A new grid for a new result (the Arrow table is handed over, not copied)."""
        await self.clear()
        table = result.table
        shown = f"showing first {count(table.num_rows, 'row')}; " if result.truncated else ""
        self.say(f"{count(table.num_rows, 'row')}{'+' if result.truncated else ''} · {result.elapsed_ms:,} ms"
                 + (f" · {shown}console.max_rows in rat.yaml sets the limit; Ctrl+E exports all" if shown else ""))
        # a real NULL dim and slanted: the text 'NULL' in a cell looked the same
        grid = ResultsGrid(backend=ArrowBackend(table), null_rep=NULL_MARKUP, max_column_content_width=40,
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
