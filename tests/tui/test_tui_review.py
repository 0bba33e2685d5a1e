"""Review mode in the real app: v runs for review, the run view shows the diff, a approves, x rejects."""
from __future__ import annotations

import pytest

from devkit.pilot import notifications, screen, select, until
from rat_tui.tui.app import RatApp
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark
SIZE = (140, 45)
KEYED = """-- @merge_strategy: incremental
-- @unique_key: id
SELECT * FROM VALUES {rows} AS v(id, name)"""


async def review_in_app(pilot, app: RatApp, fqn: str, shown: str) -> None:
    """Select the pipeline, press v, and wait until its run awaits review with `shown` on the screen."""
    await select(pilot, "pipeline", fqn)
    await until(pilot, lambda: "Effective config" in screen(app), 20, "the pipeline source")
    await pilot.press("v")
    await until(pilot, lambda: "AWAITING_REVIEW" in screen(app) and shown in screen(app), 120,
                f"the run awaiting review with {shown!r}")


async def test_review_a_run_in_the_tui_then_approve_it_and_reject_the_next(scratch: Scratch):
    fqn = scratch.pipeline("silver", "people", KEYED.format(rows="(1, 'a'), (2, 'b')"))
    scratch.run(fqn)
    scratch.pipeline("silver", "people", KEYED.format(rows="(2, 'B'), (3, 'c')"))
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await review_in_app(pilot, app, fqn, "Diff against main")
        # The changed rows' sample comes in after the counts (a busy CI once read the screen between the two).
        await until(pilot, lambda: "b → B" in screen(app), 30, "the changed row's old and new value")
        text = screen(app)
        assert "+1 added" in text and "−0 removed" in text and "~1 changed" in text
        assert "rows changed" in text
        assert "◆ people" in text  # the tree marks the pipeline
        assert scratch.rows(f"SELECT * FROM {fqn} ORDER BY id") == [[1, "a"], [2, "b"]]
        await pilot.press("a")
        await until(pilot, lambda: scratch.wb.state.runs(fqn, limit=1)[0].status == "success", 60, "the approve")
        assert scratch.rows(f"SELECT * FROM {fqn} ORDER BY id") == [[1, "a"], [2, "B"], [3, "c"]]
        scratch.pipeline("silver", "people", KEYED.format(rows="(1, 'gone')"))
        await pilot.press("v")
        await until(pilot, lambda: scratch.wb.state.held_runs(fqn), 120, "the second run awaiting review")
        await pilot.press("x")
        await until(pilot, lambda: "Reject run" in screen(app), 20, "the reject question")
        await pilot.press("y")
        await until(pilot, lambda: scratch.wb.state.runs(fqn, limit=1)[0].status == "rejected", 60, "the reject")
    assert scratch.rows(f"SELECT * FROM {fqn} ORDER BY id") == [[1, "a"], [2, "B"], [3, "c"]]
    assert list(scratch.refs(fqn)) == ["main"]


async def test_the_review_panel_says_what_the_held_runs_change_breaks_downstream(scratch: Scratch):
    totals = scratch.pipeline("silver", "totals", "SELECT 1 AS id, 5 AS total")
    big = scratch.pipeline("gold", "big", "SELECT id FROM {{ ref('silver.totals') }} WHERE total > 1")
    for fqn in (totals, big):
        assert scratch.run(fqn)["status"] == "success"
    scratch.pipeline("silver", "totals", "SELECT 1 AS id")
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        # "breaks" alone is in the run's null_column note too, which can show before the review's own line
        await review_in_app(pilot, app, totals, "⚠ dropping")
        assert "⚠ dropping `total` breaks the filter of `gold.big` (indirect)" in screen(app)
    [held] = scratch.wb.state.held_runs(totals)
    scratch.wb.review.reject(held.run_id)


async def test_approve_on_a_pipeline_with_nothing_to_review_says_so(scratch: Scratch):
    fqn = scratch.pipeline("silver", "calm", "SELECT 1 AS id")
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        await pilot.press("a")
        said = f"No run of {fqn} is awaiting review."
        await until(pilot, lambda: said in [str(n.message) for n in notifications(app)], 20, "the notice")


async def test_v_with_shift_reviews_a_selection_and_a_approves_it_all(scratch: Scratch):
    up = scratch.pipeline("silver", "up", KEYED.format(rows="(1, 'a')"))
    down = scratch.pipeline("gold", "down", "SELECT id, upper(name) AS name FROM {{ ref('silver.up') }}")
    scratch.wb.runs.run(f"{up}+")
    scratch.pipeline("silver", "up", KEYED.format(rows="(1, 'a'), (2, 'b')"))
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", up)
        await pilot.press("V")
        await until(pilot, lambda: len(scratch.wb.state.held_runs()) >= 2
                    and {r.pipeline for r in scratch.wb.state.held_runs()} >= {up, down}, 180, "both runs held")
        assert scratch.rows(f"SELECT count(*) FROM {down}") == [[1]]
        await select(pilot, "pipeline", down)
        await pilot.press("a")
        await until(pilot, lambda: not scratch.wb.state.held_runs(down), 60, "the approve")
    assert scratch.rows(f"SELECT * FROM {down} ORDER BY id") == [[1, "A"], [2, "B"]]
    assert scratch.rows(f"SELECT count(*) FROM {up}") == [[2]]
