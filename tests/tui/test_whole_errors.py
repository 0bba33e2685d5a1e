"""Real errors on the real app: what the console, the run panel, the Runs tab, the build view, the
log panel and `runs.jsonl` show is the whole sentence the core raised, wrapped, never cut."""
from __future__ import annotations

import pytest

from devkit.pilot import holds_whole, screen, select, until, widget_text
from rat_tui.core.errors import RatError
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.console import ConsolePanel
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark
SIZE = (120, 36)
APPEND = "-- @merge_strategy: append_only\n"
# A date spine stepped by 1 instead of INTERVAL 1 DAY: Spark's rules come after its first line
WRONG_STEP = "SELECT explode(sequence(DATE'2024-01-01', DATE'2024-01-31', 1)) AS day"


async def test_the_console_shows_an_unresolved_columns_suggestions(scratch: Scratch):
    columns = ", ".join(f"{i} AS customer_status_{i}" for i in range(6))
    fqn = scratch.pipeline("bronze", "wide", f"SELECT {columns}")
    assert scratch.run(fqn)["status"] == "success"
    sql = f"SELECT stauts FROM {fqn}"
    with pytest.raises(RatError) as raised:
        scratch.wb.console.console_query(sql, 10, "raised-by-the-core")
    sentence = str(raised.value)
    assert "Did you mean one of the following? [" in sentence and len(sentence) > 2 * SIZE[0] // 1.5
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("s")
        console = app.query_one(ConsolePanel)
        await until(pilot, lambda: console.loaded and console.editor.has_focus_within, 20, "the console")
        console.editor.text = sql
        await pilot.press("ctrl+j")
        await until(pilot, lambda: "Did you mean" in screen(app), 60, "the error")
        shown = widget_text(app.query_one("#console-status"))
        assert holds_whole(shown, sentence) and len(shown.splitlines()) > 1
        assert all(line.strip() in screen(app) for line in shown.splitlines())  # all in view, none scrolled away


async def test_a_failed_run_is_whole_in_the_run_tab_runs_tab_log_and_runs_jsonl(scratch: Scratch):
    fqn = scratch.pipeline("silver", "days", APPEND + WRONG_STEP)
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("l")  # the log panel
        await select(pilot, "pipeline", fqn)
        await app.wait_for_idle_screen()
        await pilot.press("r")
        await until(pilot, lambda: "FAILED" in screen(app), 90, "the run to fail")
        run = scratch.wb.browse.runs(fqn).as_dict()["runs"][0]
        error = run["error"]
        assert error.endswith('3. Otherwise, if start and stop expressions resolve to the "INTEGRAL" type, then the '
                              "step expression must resolve to the same type")
        logged = [e for e in scratch.wb.run_log.read(run["run_id"]) if e["event"] == "RunFinished"]
        assert [e["error"] for e in logged] == [error]
        await until(pilot, lambda: holds_whole(widget_text(app.query_one("#run-view")), error), 10, "the run view")
        await until(pilot, lambda: holds_whole(widget_text(app.query_one("#log-panel")), error), 10, "the log line")
        await pilot.press("]")  # Run → Runs
        await until(pilot, lambda: holds_whole(widget_text(app.query_one("#run-error")), error), 20,
                    "the error under the Runs table")


async def test_the_build_view_shows_a_long_landing_error_whole(scratch: Scratch):
    scratch.landing("arrivals_from_the_partner_portal", "deliveries_of_the_first_week_of_march.csv",
                    "id,name\n1,a\n2\n3,c,extra\n")
    fqn = scratch.pipeline("bronze", "deliveries_from_the_partner", "SELECT * FROM {{ landing_zone('arrivals_from_the_partner_portal') }}")
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        await app.wait_for_idle_screen()
        await pilot.press("greater_than_sign")  # the pipeline and its downstream: the selection view
        await until(pilot, lambda: "1 failed" in screen(app), 90, "the selection to fail")
        error = scratch.wb.browse.runs(fqn).as_dict()["runs"][0]["error"]
        assert "deliveries_of_the_first_week_of_march.csv line 3" in error and len(error) > 150
        assert holds_whole(widget_text(app.query_one("#selection-view")), error)
