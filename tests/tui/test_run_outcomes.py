"""What a cancelled run and a run held for review say (issue 36.4 and 36.5), in the real app."""
from __future__ import annotations

import logging
import re

import pytest

from devkit.pilot import notifications, screen, select, until, widget_text
from rat_tui.core.store.logs import setup_logging
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.log_panel import LogPanel
from rat_tui.tui.components.run_view import RunView
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark
SIZE = (160, 48)
SLOW = "SELECT SUM(hash(a.id, b.id)) AS id FROM range(400000) a CROSS JOIN range(40000) b"


async def test_a_cancel_says_one_line_and_marks_its_phase_cancelled(scratch: Scratch):
    """`c` during a Spark job: the log panel said `iceberg_write FAILED in 851 ms: An error occurred while
    calling o2096.collectToPython … Job 74 cancelled` and ~15 Scala frames, and the Run tab marked the
    phase ✔. Now one line, `cancelled during <phase> after N ms`, the phase ■ cancelled; the stack in app.log."""
    fqn = scratch.pipeline("bronze", "slow", SLOW)
    log = setup_logging(scratch.wb.project.state_dir)
    logged_before = log.stat().st_size
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        await pilot.press("r")
        view = app.query_one(RunView)
        running = lambda: view.state is not None and any(  # noqa: E731
            p.status == "running" and p.tasks for p in view.state.phases.values())
        await until(pilot, running, 300, "a phase's Spark job")
        phase = next(name for name, p in view.state.phases.items() if p.status == "running")
        await pilot.press("c")
        await until(pilot, lambda: not app.workbench.runner.active, 300, "the run to stop")
        await until(pilot, lambda: "CANCELLED" in screen(app).upper() and "■" in screen(app), 30, "the phase marked")
        await pilot.press("l")  # the log panel: a hidden RichLog renders nothing
        await app.wait_for_idle_screen()
        lines = widget_text(app.query_one(LogPanel)).splitlines()
        assert [line for line in lines if "cancelled during" in line] == [
            next(line for line in lines if re.search(rf"\] cancelled during {phase} after \d+ ms$", line))]
        assert not [line for line in lines if "FAILED" in line or "Exception" in line or "\tat " in line
                    or re.match(r"\s+at ", line)], lines
        assert re.search(rf"■\s+{phase}\s+\d+ ms", screen(app)), screen(app)
        assert not re.search(rf"✔\s+{phase}", screen(app))
    logging.getLogger().handlers[-1].flush()
    logged = log.read_text()[logged_before:]
    assert f"{phase} cancelled" in logged and "Traceback" in logged  # the stack: here only


async def test_a_run_held_for_review_says_its_rows_are_held(scratch: Scratch):
    fqn = scratch.pipeline("bronze", "held", "SELECT id FROM range(8) AS r(id)")
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        await pilot.press("v")
        await until(pilot, lambda: any(n.message == "8 rows held for review" for n in notifications(app)), 300,
                    "the review toast")
        assert not any("written" in n.message for n in notifications(app))
        await pilot.press("l")
        await app.wait_for_idle_screen()
        logged = " ".join(widget_text(app.query_one(LogPanel)).split())  # unwrapped
        assert "held: run awaiting_review, 8 rows held for review" in logged
        # found by a new user: every run added "Spark busy" and "Spark ready"; the status bar says that
        assert "Spark busy" not in logged and "Spark ready" not in logged, logged
