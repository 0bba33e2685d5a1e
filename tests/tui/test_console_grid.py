"""The console's results grid lays out plain values itself (scrolling speed): on the real grid in a
real app, every cell it draws must equal the library's own drawing, styles included."""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

import pyarrow as pa
from rich.style import Style
from textual.app import App
from textual_fastdatatable import ArrowBackend
from textual_fastdatatable.data_table import DataTable

from rat_tui.tui.components.console.results import NULL_MARKUP, ResultsGrid

TEXTS = ["a", "", "customer_12", "x" * 60, "[bold]not markup[/]", "emoji 😀 wide", "漢字テキスト" * 5, "tab\there",
         "two\nlines", None, "back\\", "  lead", "trail  ", "bell\x07", "cr\rx", "esc\x1b[31mred"]
N = len(TEXTS)
TABLE = pa.table({
    "text": TEXTS,
    "int": ([1, -2, None, 10**12] + list(range(N)))[:N],
    "float": ([1.5, None, 3.14159, 1e20, -0.0] + [float(i) for i in range(N)])[:N],
    "bool": ([True, False, None] * N)[:N],
    "day": [date(2024, 1, i + 1) for i in range(N)],
    "at": [datetime(2024, 1, 1, 12, i) for i in range(N)],
    "decimal": pa.array([Decimal("1.25")] * N, pa.decimal128(10, 2)),
    "list": [[1, 2]] * N,
})


def characters(lines) -> list:
    return [(ch, segment.style) for line in lines for segment in line for ch in segment.text]


class GridApp(App):
    def compose(self):
        yield ResultsGrid(backend=ArrowBackend(TABLE), null_rep=NULL_MARKUP, max_column_content_width=40)


async def test_the_grid_draws_cells_as_the_library_does():
    app = GridApp()
    async with app.run_test(size=(200, 30)) as pilot:
        await pilot.pause()
        grid = app.query_one(ResultsGrid)
        base = Style(color="white", bgcolor="black")
        for row in range(-1, grid.row_count):
            for column in range(len(grid.ordered_columns)):
                for width in (3, 8, 12, 42):
                    for cursor in (False, True):
                        grid._cell_render_cache.clear()
                        ours = grid._render_cell(row, column, base, width, cursor)
                        grid._cell_render_cache.clear()
                        theirs = DataTable._render_cell(grid, row, column, base, width, cursor)
                        assert characters(ours) == characters(theirs), (row, column, width, cursor)


async def test_plain_values_skip_the_librarys_layout(monkeypatch):
    laid_out = []
    library = DataTable._render_cell
    monkeypatch.setattr(DataTable, "_render_cell", lambda grid, row, column, *args, **kwargs: (
        laid_out.append((row, column)), library(grid, row, column, *args, **kwargs))[1])
    app = GridApp()
    async with app.run_test(size=(200, 30)) as pilot:
        await pilot.pause()
        grid = app.query_one(ResultsGrid)
        laid_out.clear()
        grid._cell_render_cache.clear()
        for column in range(TABLE.num_columns):
            grid._render_cell(0, column, Style(), 12)
        assert laid_out == [(0, TABLE.column_names.index("bool"))]  # True is bold: the library draws it


async def test_a_null_is_drawn_unlike_the_text_null():
    """A new user's `SELECT NULL, 'NULL'` showed two cells alike."""
    class Nulls(App):
        def compose(self):
            yield ResultsGrid(backend=ArrowBackend(pa.table({"a": [None], "b": ["NULL"]})), null_rep=NULL_MARKUP)

    app = Nulls()
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        grid = app.query_one(ResultsGrid)
        real, text = ([s for s in grid._render_cell(0, c, Style(), 8)[0] if s.text.strip()] for c in (0, 1))
        assert [s.text.strip() for s in real] == [s.text.strip() for s in text] == ["NULL"]
        assert real[0].style.dim and real[0].style.italic
        assert not text[0].style.dim and not text[0].style.italic
