"""Counts on screen agree with their noun: "1 file" in the tree, "1 row written" in the toast and
the log panel, and the plural stays as it was for every other count."""
from __future__ import annotations

import time
from pathlib import Path

from devkit.pilot import notifications, screen, until
from rat_tui.core.compose import open_project
from rat_tui.core.events import RunFinished, RunQueued, RunStarted
from rat_tui.tui.app import RatApp

RAW_ORDERS = "ecommerce.bronze.raw_orders"


async def test_one_row_and_one_file_are_singular(sample_copy: Path):
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: "events  1 file" in screen(app), 20, "the zones in the tree")
        assert "events  1 files" not in screen(app) and "orders  3 files" in screen(app)
        publish, at = app.workbench.events.publish, time.time()
        publish(RunQueued("a1b2c3d4", RAW_ORDERS, at=at))
        publish(RunStarted("a1b2c3d4", RAW_ORDERS, "draft", at=at))
        publish(RunFinished("a1b2c3d4", RAW_ORDERS, "success", 1, None, 42, at=at + 1))
        toasts = lambda: [str(n.message) for n in notifications(app)]  # noqa: E731
        await until(pilot, lambda: "1 row written" in toasts(), 10, "the run's toast")
        await pilot.press("l")
        await until(pilot, lambda: "run success, 1 row written" in screen(app), 10, "the log panel")
