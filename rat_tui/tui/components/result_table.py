"""Filling a DataTable with query results (columns and JSON-scalar rows)."""
from __future__ import annotations

from textual.widgets import DataTable


def show_rows(table: DataTable, columns: list[str], rows: list[list]) -> None:
    table.clear(columns=True)
    table.add_columns(*columns)
    for row in rows:
        table.add_row(*["NULL" if value is None else str(value) for value in row])


def selected_key(table: DataTable) -> str | None:
    """The row key under the cursor, or None for an empty table."""
    if table.row_count == 0:
        return None
    return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
