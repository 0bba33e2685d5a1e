"""Filling a DataTable with query results (columns and JSON-scalar rows)."""
from __future__ import annotations

from textual.widgets import DataTable


def cell_text(value: object) -> str:
    """A JSON-scalar value as every grid shows it (a preview, a diff's rows): NULL for None."""
    return "NULL" if value is None else str(value)


def show_rows(table: DataTable, columns: list[str], rows: list[list]) -> None:
    table.clear(columns=True)
    table.add_columns(*columns)
    for row in rows:
        table.add_row(*[cell_text(value) for value in row])


def selected_key(table: DataTable) -> str | None:
    """The row key under the cursor, or None for an empty table."""
    if table.row_count == 0:
        return None
    return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)


def event_row_key(event: DataTable.RowHighlighted | DataTable.RowSelected) -> str | None:
    """The event's row key; None for a row of a table cleared meanwhile (fast keys: Textual then posts a key
    whose value is None, and reading on raised out of the handler)."""
    key = event.row_key
    return None if key is None or key.value is None else str(key.value)
