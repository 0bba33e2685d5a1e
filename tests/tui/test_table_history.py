"""The table view lists a table's history by run (issue 27, item 3): one row per run that reached main,
`d` diffs a whole run, and after `t` the preview shows the new main."""
from __future__ import annotations

import re

import pytest

from devkit.pilot import screen, select, until
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.table_view import TableView
from tests.lakehelpers import Scratch, merge_batches

pytestmark = pytest.mark.spark
SIZE = (160, 45)


def view(app: RatApp) -> TableView:
    return app.query_one(TableView)


def preview_names(app: RatApp) -> list[str]:
    table = app.query_one("#snapshot-preview")
    return sorted(str(table.get_row_at(i)[1]) for i in range(table.row_count))


async def test_table_view_lists_runs_diffs_one_and_previews_main_after_a_rollback(scratch: Scratch):
    fqn, run_ids = merge_batches(scratch)
    heads = {e["run_id"]: e["snapshot_id"] for e in scratch.wb.tables.history(fqn).as_dict()["snapshots"] if e["run_id"]}
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "table", fqn)
        await until(pilot, lambda: len(app.query(TableView)) and view(app).selected_snapshot(), 20, "the history")
        table = app.query_one("#snapshots-table")
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
        # newest first: three runs and the creation, never a merge's delete on its own
        assert [row[1] for row in rows] == [*reversed(run_ids), ""]
        assert [row[3] for row in rows] == ["incremental"] * 3 + ["create"]
        assert [row[4:8] for row in rows[:3]] == [["2", "1", "0", "6"], ["1", "1", "0", "4"], ["3", "0", "0", "3"]]
        table.focus()
        await pilot.press("down")  # the second run: key 2 updated, key 4 added
        await until(pilot, lambda: view(app).selected_snapshot() == heads[run_ids[1]], 10, "the cursor")
        await pilot.press("d")
        await until(pilot, lambda: f"Diff of run {run_ids[1]}" in screen(app), 60, "the run's diff")
        # the whole run by the table's key (not the append alone, +2, -0): key 4 added, key 2 changed
        assert "by id: +1 row, -0 rows, ~1 row changed" in screen(app)
        # the rows under their column names, as the preview shows them (not Python lists)
        assert any(re.search(r"changed\s+2\s+b → B", line) for line in screen(app).splitlines()), screen(app)
        assert any(re.search(r"added\s+4\s+d", line) for line in screen(app).splitlines())
        assert "[2, 'b']" not in screen(app)
        await pilot.press("t")
        await until(pilot, lambda: "Yes (y)" in screen(app), 10, "the confirmation")
        await pilot.press("y")
        await until(pilot, lambda: scratch.refs(fqn)["main"] == heads[run_ids[1]], 60, "main to move")
        await until(pilot, lambda: f"Preview at snapshot {heads[run_ids[1]]}" in screen(app), 30, "main's preview")
        await until(pilot, lambda: preview_names(app) == ["B", "a", "c", "d"], 10, "main's rows")
        assert view(app).selected_entry().kind == "rollback"  # the newest row, and main's
    assert sorted(r[0] for r in scratch.rows(f"SELECT name FROM {fqn}")) == ["B", "a", "c", "d"]


async def test_a_diffs_rows_print_null_as_the_preview_does(scratch: Scratch):
    """Diff rows printed `None` and Python lists (`+ [1, None]`), issue 36.6."""
    fqn = scratch.pipeline("silver", "nulls", "SELECT id, CAST(NULL AS STRING) AS note FROM range(2) AS r(id)")
    assert scratch.run(fqn)["status"] == "success"
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "table", fqn)
        await until(pilot, lambda: len(app.query(TableView)) and view(app).selected_snapshot(), 20, "the history")
        app.query_one("#snapshots-table").focus()
        await pilot.press("d")
        await until(pilot, lambda: "Diff of run" in screen(app), 60, "the run's diff")
        rows = [line for line in screen(app).splitlines() if re.search(r"added\s+[01]\s", line)]
        assert len(rows) == 2 and all("NULL" in line for line in rows), screen(app)
        assert "None" not in screen(app) and "+ [" not in screen(app)
