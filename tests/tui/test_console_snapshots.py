"""SVG snapshots of the SQL console: with results, with the autocomplete list open, and a column
profile. The command layer gives fixed answers (times and data that would change from run to
run); what it computes on real tables is tested in test_console.py and test_console_core.py."""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from devkit.pilot import until
from rat_tui.core.commands.console import ColumnProfile, ConsoleResult
from rat_tui.core.errors import RatError
from tests.snapshothelpers import compare, make_app, settle

ORDERS = "ecommerce.silver.clean_orders"
CATALOG = {ORDERS: [("order_id", "long"), ("customer_id", "long"), ("amount", "decimal(10, 2)"),
                    ("status", "string"), ("ordered_at", "timestamptz")],
           "ecommerce.bronze.raw_orders": [("order_id", "long")]}
RESULT = pa.table({"order_id": list(range(1, 41)), "customer_id": [i % 7 + 1 for i in range(40)],
                   "amount": [f"{(i * 37) % 200 + 0.5:.2f}" for i in range(40)],
                   "status": [("shipped", "new", "returned", None)[i % 4] for i in range(40)]})
PROFILE = ColumnProfile("customer_id", "bigint", 1000, 12, 7, 1, 7,
                        [(3, 160), (1, 150), (5, 146), (2, 141), (7, 139), (4, 130), (6, 122)],
                        [(1 + i * 0.6, 1.6 + i * 0.6, n) for i, n in enumerate([150, 0, 141, 160, 0, 130, 146, 0,
                                                                                 122, 139])])


def fixed_console(wb, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wb.console, "completion_catalog", lambda: CATALOG)
    monkeypatch.setattr(wb.console, "console_query", lambda sql, max_rows, group, on_waiting=None:
                        ConsoleResult(sql, RESULT.slice(0, 30), True, 142))
    monkeypatch.setattr(wb.console, "profile_column", lambda sql, index, group: PROFILE)


async def open_with(pilot, text: str) -> None:
    await settle(pilot)
    await pilot.press("s")
    console = pilot.app.query_one("#console")
    await until(pilot, lambda: console.loaded and ORDERS in console.editor.completions.catalog, 20, "the console")
    console.editor.text = text
    console.editor.selection = ((0, len(text.split("\n")[0])),) * 2


async def with_results(pilot) -> None:
    await open_with(pilot, f"SELECT order_id, customer_id, amount, status\nFROM {ORDERS}\nORDER BY order_id")
    await pilot.press("ctrl+enter")
    await until(pilot, lambda: "showing first 30 rows" in pilot.app.screen_text(), 20, "the result")
    await settle(pilot)


def test_console_with_results(snap_compare, sample_copy: Path, monkeypatch: pytest.MonkeyPatch):
    app = make_app(sample_copy)
    fixed_console(app.workbench, monkeypatch)
    assert compare(snap_compare, app, with_results)


def test_console_autocomplete(snap_compare, sample_copy: Path, monkeypatch: pytest.MonkeyPatch):
    app = make_app(sample_copy)
    fixed_console(app.workbench, monkeypatch)

    async def complete(pilot) -> None:
        await open_with(pilot, f"SELECT \nFROM {ORDERS}")
        console = pilot.app.query_one("#console")
        console.editor.selection = ((0, 7), (0, 7))
        await pilot.press("s", "t")
        await until(pilot, lambda: console.editor.completion_open, 10, "the completion list")
        await settle(pilot)

    assert compare(snap_compare, app, complete)


def test_console_profile(snap_compare, sample_copy: Path, monkeypatch: pytest.MonkeyPatch):
    app = make_app(sample_copy)
    fixed_console(app.workbench, monkeypatch)

    async def profile(pilot) -> None:
        await with_results(pilot)
        await pilot.press("f6", "right", "f7")
        await until(pilot, lambda: "Profile of customer_id" in pilot.app.screen_text(), 20, "the profile")
        await settle(pilot)

    assert compare(snap_compare, app, profile)


def test_console_with_a_long_error(snap_compare, sample_copy: Path, monkeypatch: pytest.MonkeyPatch):
    """The whole sentence, wrapped (Spark's own words for a typo in a column name)."""
    app = make_app(sample_copy)
    fixed_console(app.workbench, monkeypatch)

    def unresolved(sql, max_rows, group, on_waiting=None):
        raise RatError("SQL error on line 1: A column or function parameter with name `stauts` cannot be resolved. "
                       "Did you mean one of the following? [`status`, `customer_id`, `order_id`, `amount`, "
                       "`ordered_at`]")

    monkeypatch.setattr(app.workbench.console, "console_query", unresolved)

    async def failed(pilot) -> None:
        await open_with(pilot, f"SELECT stauts\nFROM {ORDERS}")
        await pilot.press("ctrl+enter")
        await until(pilot, lambda: "`ordered_at`]" in pilot.app.screen_text(), 20, "the error")
        await settle(pilot)

    assert compare(snap_compare, app, failed)
