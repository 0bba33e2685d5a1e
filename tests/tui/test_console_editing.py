"""The SQL console as a newcomer types into it: the run key every terminal sends, accepted completions
kept in the buffer store, names completed after `ns.` however the editor got there, and no stale grid
under a new statement. The command layer gives fixed answers (no Spark needed); test_console.py runs
real statements."""
from __future__ import annotations

import json
import threading
from pathlib import Path

import pyarrow as pa
import pytest
from textual import events
from textual._xterm_parser import XTermParser

from devkit.pilot import screen, until
from rat_tui.core.commands.console import ConsoleResult
from rat_tui.core.compose import open_project
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.console import ConsolePanel

SIZE = (120, 36)
CATALOG = {"ecommerce.bronze.raw_orders": [("order_id", "long"), ("status", "string")],
           "ecommerce.bronze.raw_events": [("event_id", "long")],
           "ecommerce.silver.clean_orders": [("order_id", "long")],
           "ecommerce.gold.daily_revenue": [("day", "date")]}
ROWS = pa.table({"order_id": [101, 102, 103]})
KEY_NAMES = {" ": "space", "*": "asterisk", ".": "full_stop", "(": "left_parenthesis", ")": "right_parenthesis"}


def terminal_key(sent: str) -> str:
    """The key name Textual gives what a terminal sends."""
    (event,) = XTermParser().feed(sent)
    return event.key


def console_app(project: Path, monkeypatch: pytest.MonkeyPatch, query=None) -> RatApp:
    wb = open_project(project)
    monkeypatch.setattr(wb.console, "completion_catalog", lambda: CATALOG)
    monkeypatch.setattr(wb.console, "console_query", query or (lambda sql, max_rows, group, on_waiting=None:
                                                        ConsoleResult(sql, ROWS, False, 12)))
    return RatApp(wb, watch=False, warm_spark=False)


async def open_console(pilot) -> ConsolePanel:
    await pilot.press("s")
    console = pilot.app.query_one(ConsolePanel)
    await until(pilot, lambda: console.loaded and console.editor.has_focus_within and console.editor.completions
                .catalog, 20, "the console")
    return console


async def type_text(pilot, text: str) -> None:
    await pilot.press(*[KEY_NAMES.get(ch, ch) for ch in text])


async def test_ctrl_j_runs_the_statement_and_footer_and_help_say_so(sample_copy: Path,
                                                                     monkeypatch: pytest.MonkeyPatch):
    # Under tmux's defaults (extended-keys off) Ctrl+Enter reaches the app as a plain Enter; Ctrl+J
    # is a line feed in every terminal.
    assert terminal_key("\r") == "enter"
    key = terminal_key("\n")
    app = console_app(sample_copy, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        console = await open_console(pilot)
        assert "^⏎/^j Run" in screen(app)
        assert "Ctrl+Enter / Ctrl+J runs the statement at the cursor · F8 history · Ctrl+P help" in screen(app)
        await type_text(pilot, "SELECT order_id FROM ecommerce.bronze.raw_orders")
        await pilot.press(key)
        await until(pilot, lambda: console.results.grid is not None and console.results.grid.row_count == 3, 10,
                    "the rows")
        assert "102" in screen(app) and console.editor.text == "SELECT order_id FROM ecommerce.bronze.raw_orders"
        app.keys.view.help()
        await until(pilot, lambda: "Marks in the tree" in screen(app), 10, "the help screen")
        await pilot.press("end")  # the console's keys come last, below the fold of a 40-line screen
        await until(pilot, lambda: "In the SQL console" in screen(app), 10, "the help's console section")
        assert "Ctrl+Enter / Ctrl+J run" in screen(app)


async def test_an_accepted_completion_stays_in_its_buffer(sample_copy: Path, monkeypatch: pytest.MonkeyPatch):
    app = console_app(sample_copy, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        console = await open_console(pilot)
        await pilot.press("ctrl+n")
        await type_text(pilot, "SELECT * FROM ecommerce.bronze.raw_o")
        await until(pilot, lambda: console.editor.completion_open, 10, "the completion list")
        await pilot.press("tab")
        assert console.editor.text == "SELECT * FROM ecommerce.bronze.raw_orders"
        await pilot.press("ctrl+k")
        await until(pilot, lambda: console.editor.text == "", 5, "the first buffer")
        await pilot.press("ctrl+k")
        await until(pilot, lambda: console.editor.text != "", 5, "the second buffer")
        assert console.editor.text == "SELECT * FROM ecommerce.bronze.raw_orders"
        assert "ecommerce.bronze.raw_orders" in screen(app)
        store = sample_copy / ".rat" / "console" / "buffers.json"
        await until(pilot, lambda: store.exists() and "raw_orders" in store.read_text(), 5, "the buffers saved")
        assert json.loads(store.read_text())["buffers"] == ["", "SELECT * FROM ecommerce.bronze.raw_orders"]


def type_now(app: RatApp, text: str) -> None:
    """Keys as a paste or a fast typist sends them: all queued at once, none waiting for the one before
    to be handled (Pilot's `press` waits, which hides the races burst typing hits)."""
    for ch in text:
        name = {"\t": "tab", "\r": "enter"}.get(ch) or KEY_NAMES.get(ch, ch)
        event = events.Key(name, ch)
        event.set_sender(app)
        app._driver.send_message(event)


async def test_burst_typed_tab_and_enter_accept_the_completion(sample_copy: Path, monkeypatch: pytest.MonkeyPatch):
    """A Tab right behind the prefix, before the list could be shown, accepted nothing and later the
    list opened over text it no longer matched; a list left from a word that was typed on stayed."""
    app = console_app(sample_copy, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        console = await open_console(pilot)
        type_now(app, "SELECT * FROM ecommerce.bronze.raw_o\t")
        await until(pilot, lambda: console.editor.text.endswith("raw_orders"), 10, "the completion accepted")
        await app.wait_for_idle_screen()
        await pilot.pause(0.3)
        assert console.editor.text == "SELECT * FROM ecommerce.bronze.raw_orders"
        assert not console.editor.completion_open and "raw_orders table" not in screen(app)
        type_now(app, " WHERE sta\r")
        await until(pilot, lambda: console.editor.text.endswith("status"), 10, "the column accepted")
        await app.wait_for_idle_screen()
        await pilot.pause(0.3)
        assert console.editor.text == "SELECT * FROM ecommerce.bronze.raw_orders WHERE status"
        assert not console.editor.completion_open
        type_now(app, " AND sel ")  # `sel` offers SELECT; the space leaves it behind
        await app.wait_for_idle_screen()
        await pilot.pause(0.3)
        assert console.editor.text.endswith("AND sel ") and not console.editor.completion_open


async def test_a_layer_completes_after_the_list_was_closed(sample_copy: Path, monkeypatch: pytest.MonkeyPatch):
    app = console_app(sample_copy, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        console = await open_console(pilot)
        await type_text(pilot, "SELECT * FROM ecommerce.")
        await until(pilot, lambda: console.editor.completion_open, 10, "the layers")
        assert all(f"{layer} layer" in screen(app) for layer in ("bronze", "silver", "gold"))
        await pilot.press("escape")  # closes the list: the editor leaves its member mode
        assert not console.editor.completion_open and console.has_class("shown")
        await type_text(pilot, "sil")
        await until(pilot, lambda: console.editor.completion_open, 10, "the layer offered")
        assert "silver layer" in screen(app) and "keyword" not in screen(app)
        await pilot.press("tab")
        assert console.editor.text == "SELECT * FROM ecommerce.silver"


async def test_a_new_statement_clears_the_last_grid(sample_copy: Path, monkeypatch: pytest.MonkeyPatch):
    release = threading.Event()

    def query(sql, max_rows, group, on_waiting=None):
        if "broken" in sql:
            release.wait(10)
            raise ValueError("[UNRESOLVED_COLUMN] `stauts` cannot be resolved.")
        return ConsoleResult(sql, ROWS, False, 12)

    app = console_app(sample_copy, monkeypatch, query)
    async with app.run_test(size=SIZE) as pilot:
        console = await open_console(pilot)
        await type_text(pilot, "SELECT order_id FROM ecommerce.bronze.raw_orders")
        await pilot.press("ctrl+j")
        await until(pilot, lambda: "102" in screen(app), 10, "the first result")
        console.editor.text = "SELECT broken FROM ecommerce.bronze.raw_orders"
        await pilot.press("ctrl+j")
        await until(pilot, lambda: "Running…" in screen(app), 5, "the statement running")
        assert console.results.grid is None and "102" not in screen(app)
        release.set()
        await until(pilot, lambda: "stauts" in screen(app), 10, "the error")
        assert console.results.grid is None and "102" not in screen(app)


async def test_running_a_statement_closes_the_completion_list(sample_copy: Path, monkeypatch: pytest.MonkeyPatch):
    """The list stayed open over the result after the run key, and took the next arrow keys."""
    app = console_app(sample_copy, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        console = await open_console(pilot)
        await type_text(pilot, "SELECT order_id FROM ecommerce.bronze.raw_orders WHERE sta")
        await until(pilot, lambda: console.editor.completion_open, 10, "the completion list")
        await pilot.press("ctrl+j")
        await until(pilot, lambda: "102" in screen(app), 10, "the result")
        await pilot.pause(0.3)
        assert not console.editor.completion_open
