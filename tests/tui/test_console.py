"""The SQL console in the real app on the shared Spark session: open, type, run, see rows;
autocomplete of a named table's column; history and buffers across a restart; cancel; export;
profile; a table's name inserted from the tree."""
from __future__ import annotations

from dataclasses import replace

import duckdb
import pytest
from textual.coordinate import Coordinate
from textual.widgets import DataTable

from devkit.pilot import screen, select, until
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.console import ConsolePanel
from rat_tui.tui.components.console.profile import ProfileScreen
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark
SIZE = (140, 45)


def panel(app: RatApp) -> ConsolePanel:
    return app.query_one(ConsolePanel)


def table_of_numbers(scratch: Scratch, n: int = 50) -> str:
    fqn = scratch.pipeline("bronze", "nums", f"""
        SELECT id, CASE WHEN id % 5 = 0 THEN NULL ELSE id % 3 END AS bucket, concat('n', id) AS label
        FROM range(1, {n + 1})""")
    assert scratch.run(fqn)["status"] == "success"
    return fqn


async def open_console(pilot) -> ConsolePanel:
    await pilot.press("s")
    console = panel(pilot.app)
    await until(pilot, lambda: console.loaded and console.editor.has_focus_within, 20, "the console")
    return console


async def type_and_run(pilot, sql: str) -> None:
    console = panel(pilot.app)
    console.editor.text = ""
    await pilot.pause()
    await pilot.press(*[{" ": "space", "*": "asterisk", "(": "left_parenthesis", ")": "right_parenthesis",
                         ">": "greater_than_sign"}.get(ch, ch) for ch in sql])
    await pilot.press("ctrl+enter")  # runs even with a completion list open


async def test_type_a_query_run_it_and_see_the_rows(scratch: Scratch):
    fqn = table_of_numbers(scratch)
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        console = await open_console(pilot)
        assert "SQL console" in screen(app)
        await type_and_run(pilot, f"select label, id from {fqn} where id > 47 order by id")
        # The status line's count can be painted a frame before the grid's rows (seen once on a busy CI).
        await until(pilot, lambda: "3 rows" in screen(app) and "n48" in screen(app), 60, "the result")
        text = screen(app)
        assert "n48" in text and "n49" in text and "n50" in text and "n47" not in text
        assert console.results.grid.row_count == 3
        await pilot.press("escape")  # nothing runs: Esc closes the console
        await until(pilot, lambda: not console.has_class("shown"), 5, "the console to close")
        assert app.query_one("#project-tree").has_focus


async def test_limit_note_and_copy(scratch: Scratch, monkeypatch: pytest.MonkeyPatch):
    fqn = table_of_numbers(scratch, 30)
    app = RatApp(scratch.wb, watch=False)
    monkeypatch.setattr(scratch.wb.project, "settings", replace(scratch.wb.project.settings, console_max_rows=20))
    async with app.run_test(size=SIZE) as pilot:
        console = await open_console(pilot)
        await type_and_run(pilot, f"select id from {fqn} order by id")
        await until(pilot, lambda: "showing first 20 rows" in screen(app), 60, "the limit note")
        await pilot.press("f6", "down", "y")
        assert app.clipboard == "2"
        assert console.results.grid.row_count == 20


async def test_autocomplete_offers_a_column_of_the_table_named(scratch: Scratch):
    fqn = table_of_numbers(scratch, 3)
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        console = await open_console(pilot)
        await until(pilot, lambda: fqn in console.editor.completions.catalog, 20, "the catalog")
        console.editor.text = f"SELECT  FROM {fqn}"
        console.editor.selection = ((0, 7), (0, 7))
        await pilot.press("l", "a")
        await until(pilot, lambda: console.editor.completion_open, 10, "the completion list")
        await until(pilot, lambda: "label" in screen(app), 10, "the column offered")
        await pilot.press("tab")
        assert console.editor.text == f"SELECT label FROM {fqn}"
        console.editor.text = f"SELECT * FROM {scratch.ns}"
        console.editor.selection = ((0, len(console.editor.text)),) * 2
        await pilot.press("full_stop", "b")
        await until(pilot, lambda: console.editor.completion_open, 10, "the layer list")
        await pilot.press("tab")
        assert console.editor.text == f"SELECT * FROM {scratch.ns}.bronze"


async def test_history_and_buffers_survive_a_restart(scratch: Scratch):
    fqn = table_of_numbers(scratch, 5)
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        console = await open_console(pilot)
        await type_and_run(pilot, f"select count(*) as total from {fqn}")
        await until(pilot, lambda: "1 row" in screen(app), 60, "the result")
        await pilot.press("ctrl+n")
        await pilot.press(*"kept")
    assert "kept" in (scratch.wb.project.state_dir / "console" / "buffers.json").read_text()
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        console = await open_console(pilot)
        assert console.texts[-1] == "kept" and len(console.texts) >= 2
        await pilot.press("f8")
        await until(pilot, lambda: "Query history" in screen(app), 10, "the history")
        await pilot.press(*"total")
        await until(pilot, lambda: "select count(*) as total" in screen(app), 10, "the statement found")
        await pilot.press("enter")
        await until(pilot, lambda: console.editor.text.startswith("select count(*) as total"), 10, "it in the editor")


@pytest.mark.parametrize("key", ["escape", "ctrl+c"])
async def test_a_key_cancels_a_long_query(scratch: Scratch, key: str):
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        console = await open_console(pilot)
        console.editor.text = "SELECT count(*) FROM range(0, 100000000000)"
        await pilot.press("ctrl+enter")
        await until(pilot, lambda: console.running is not None and scratch.wb.console.console_groups.running, 60, "the job")
        group = console.running
        tracker = scratch.wb.spark.session().sparkContext.statusTracker()
        await until(pilot, lambda: set(tracker.getJobIdsForGroup(group)) & set(tracker.getActiveJobsIds()), 30,
                    "the query's Spark job")
        await pilot.press(key)
        # Generous limits: the test is that the cancel lands, not how fast it does on a loaded CI machine.
        await until(pilot, lambda: "Cancelled." in screen(app), 20, "the cancel")
        await until(pilot, lambda: not set(tracker.getJobIdsForGroup(group)) & set(tracker.getActiveJobsIds()), 20,
                    "no job of the statement left in Spark")
        assert console.running is None and console.has_class("shown")
        console.editor.selection = ((0, 0), (0, 6))
        await pilot.press("ctrl+c")  # nothing runs: the key copies again
        assert app.clipboard == "SELECT" and console.has_class("shown")


async def test_export_and_profile_from_the_console(scratch: Scratch):
    fqn = table_of_numbers(scratch, 50)
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        console = await open_console(pilot)
        console.editor.text = f"SELECT id, bucket FROM {fqn}"
        await pilot.press("ctrl+enter")
        await until(pilot, lambda: "50 rows" in screen(app), 60, "the result")
        await pilot.press("ctrl+e")
        await until(pilot, lambda: "Export the full result" in screen(app), 10, "the export prompt")
        field = app.screen.query_one("Input")
        field.value = f"exports/{scratch.ns}.parquet"
        await pilot.press("enter")
        await until(pilot, lambda: "Exported 50 rows" in screen(app), 60, "the export")
        path = scratch.wb.project.root / "exports" / f"{scratch.ns}.parquet"
        assert duckdb.sql(f"SELECT count(*) FROM read_parquet('{path}')").fetchall() == [(50,)]
        await pilot.press("f6", "right", "f7")
        await until(pilot, lambda: isinstance(app.screen, ProfileScreen), 60, "the profile")
        profile = app.screen.profile
        assert (profile.column, profile.rows, profile.nulls, profile.distinct) == ("bucket", 50, 10, 3)
        # The screen is pushed before its first frame is drawn: wait for the drawing, not just the screen.
        await until(pilot, lambda: "top values" in screen(app), 20, "the profile drawn")
        assert "nulls" in screen(app)


async def test_insert_a_table_or_column_name_from_the_tree(scratch: Scratch):
    fqn = table_of_numbers(scratch, 2)
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "table", fqn)
        await pilot.press("i")
        console = panel(app)
        await until(pilot, lambda: console.loaded and fqn in console.editor.text, 10, "the name inserted")
        await pilot.press("escape")
        preview = app.query_one("#snapshot-preview", DataTable)
        await until(pilot, lambda: preview.row_count > 0, 30, "the table's preview")
        console.editor.text = f"SELECT  FROM {fqn}"
        console.editor.selection = ((0, 7), (0, 7))
        preview.focus()
        preview.cursor_coordinate = Coordinate(0, 2)
        await pilot.press("i")
        await until(pilot, lambda: console.has_class("shown") and console.editor.text == f"SELECT label FROM {fqn}",
                    10, "the column's name inserted at the cursor")
        assert console.editor.has_focus_within
