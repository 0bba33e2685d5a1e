"""Runs a table rollback went past, kept per pipeline in a table of (pipeline, run_id): the load history's and
the interval record's, each of which must not count what such a run did while `main` holds none of it."""
from __future__ import annotations

from .state import StateDB


def mark_rolled_back(state: StateDB, table: str, pipeline: str, on_main: dict[str, bool]) -> None:
    """After main of the pipeline's table moved: `on_main` says, for each run in the table's history,
    whether its rows are on main. A run whose snapshots expired is not in it and keeps its mark."""
    with state.transaction() as db:
        db.executemany(f"INSERT OR IGNORE INTO {table} VALUES (?, ?)",
                       [(pipeline, run_id) for run_id, there in on_main.items() if not there])
        db.executemany(f"DELETE FROM {table} WHERE pipeline = ? AND run_id = ?",
                       [(pipeline, run_id) for run_id, there in on_main.items() if there])
