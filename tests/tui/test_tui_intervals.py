"""The Intervals tab (issue 39): a partitioned pipeline's strip and ranges, and `f` backfilling the missing range
under the cursor as one run; `I` shows every partitioned pipeline; the help lists the key."""
from __future__ import annotations

from datetime import timedelta

import pytest
from textual.widgets import DataTable

from devkit.pilot import notifications, screen, select, until
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.intervals_pane import IntervalsPane
from rat_tui.tui.components.pipeline_view import PipelineView
from tests.lakehelpers import Scratch
from tests.intervalhelpers import last_three_days

pytestmark = pytest.mark.spark
SIZE = (140, 45)


async def test_the_intervals_tab_backfills_the_missing_range_under_the_cursor(scratch: Scratch):
    start, fqn = last_three_days(scratch)
    done = scratch.wb.intervals.backfill(fqn, str(start), str(start + timedelta(days=1))).as_dict()
    assert done["run"]["status"] == "success"
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        await until(pilot, lambda: app.query("#tab-intervals"), 20, "the Intervals tab of a partitioned pipeline")
        app.query_one(PipelineView).show_tab("tab-intervals")
        pane = app.query_one(IntervalsPane)
        await until(pilot, lambda: len(pane.ranges) == 2, 20, "the intervals")
        await until(pilot, lambda: "1 done, 2 missing" in screen(app), 20, "the strip on screen")
        assert "f: backfill the range under the cursor" in screen(app)
        assert [(r.status, r.start[:10], r.count) for r in pane.ranges] == [
            ("done", str(start), 1), ("missing", str(start + timedelta(days=1)), 2)]
        table = pane.query_one(DataTable)
        await pilot.press("f2")  # the user's way in: the tab's table, not the tab bar (where f was freshness)
        assert app.focused is table
        table.move_cursor(row=0)
        await pilot.press("f")
        await until(pilot, lambda: any("nothing to backfill" in str(n.message) for n in notifications(app)), 10,
                    "the refusal on a done range")
        main = scratch.refs(fqn)["main"]
        table.move_cursor(row=1)
        await pilot.press("f")
        await until(pilot, lambda: len(pane.ranges) == 1 and pane.ranges[0].status == "done", 240, "the backfill")
        assert scratch.rows(f"SELECT count(*) FROM {fqn}") == [[30]]  # today's rows wait for today to end
        history = [e for e in scratch.wb.tables.history(fqn).as_dict()["snapshots"] if e["kind"] == "run"]
        assert [e["base_snapshot_id"] for e in history][-1] == main  # main moved once more, for every interval
        await pilot.press("escape", "I")
        await until(pilot, lambda: "Intervals: every partitioned pipeline" in screen(app) and fqn in screen(app), 20,
                    "the project's intervals")
        await pilot.press("escape", "question_mark")
        await until(pilot, lambda: "Intervals" in screen(app) and "Keys act on" in screen(app), 10, "the help")
        app.screen.query_one("#help").scroll_end(animate=False)
        await until(pilot, lambda: "In the Intervals tab" in screen(app), 10, "the help's last rows")
        assert "backfill the missing or failed intervals of the range under the cursor" in screen(app)
