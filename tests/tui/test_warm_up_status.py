"""The status bar says the warm-up and its steps (`Spark warming 7/19`), and "ready" only once it is
over (issue 36.3): the first `r` after "ready" no longer pays Spark's first use."""
from __future__ import annotations

import re
import time

import pytest

from devkit.pilot import until, widget_text
from rat_tui.core.events import WarmUpProgress
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.status_bar import StatusBar
from tests.lakehelpers import Scratch


@pytest.mark.spark
async def test_the_status_bar_says_warming_while_the_warm_up_runs(scratch: Scratch):
    """On a session already started (as a real one is a few seconds after opening): "warming k/19" as
    the warm-up's steps go, never "ready" meanwhile (the steps' end and "ready": the test below and
    tests/core/commands/test_warm_up.py)."""
    progress: list[WarmUpProgress] = []
    unsubscribe = scratch.wb.events.subscribe(lambda e: isinstance(e, WarmUpProgress) and progress.append(e))
    app = RatApp(scratch.wb, watch=False, warm_spark=True)
    words: list[str] = []
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            def look() -> bool:
                words.append(re.match(r"Spark (\S+(?: \d+/\d+)?)", str(app.query_one(StatusBar).render())).group(1))
                return bool(progress) and re.fullmatch(r"warming \d+/19", words[-1]) is not None
            await until(pilot, look, 300, "warming k/19", every=0.02)
    finally:
        with scratch.wb.spark.using():  # as a run would: the warm-up stops (the shared session's next test)
            pass
        deadline = time.monotonic() + 60
        while progress and progress[-1].state == "warming" and time.monotonic() < deadline:
            time.sleep(0.05)
        unsubscribe()
    assert set(words) <= {"warming", *(f"warming {n}/19" for n in range(19))}, words


async def test_the_status_bar_shows_warm_up_steps_then_ready():
    from textual.app import App

    class Bar(App):
        def compose(self):
            yield StatusBar()

    app = Bar()
    async with app.run_test(size=(120, 3)):
        bar = app.query_one(StatusBar)
        bar.update_status(spark_state="ready", warm="warming", warm_done=7, warm_total=19)
        assert widget_text(bar).startswith("Spark warming 7/19  │  watch off")
        bar.update_status(warm="done", warm_done=19)
        assert widget_text(bar).startswith("Spark ready  │")
        bar.update_status(spark_state="busy", warm="stopped")
        assert widget_text(bar).startswith("Spark busy  │")


@pytest.mark.spark
async def test_the_daily_purge_waits_for_the_warm_up(scratch: Scratch, monkeypatch: pytest.MonkeyPatch):
    """The purge the app runs as it opens entered Spark at once, which stops the warm-up as a user's run
    does: it ran 0 of its 19 steps whenever the lake held anything to look at for purging."""
    order: list[str] = []
    unsubscribe = scratch.wb.events.subscribe(
        lambda e: isinstance(e, WarmUpProgress) and e.state != "warming" and order.append(f"warm-up {e.state}"))
    purge = scratch.wb.upkeep.auto_purge
    monkeypatch.setattr(scratch.wb.upkeep, "auto_purge", lambda *a, **k: (order.append("purge"), purge(*a, **k))[1])
    app = RatApp(scratch.wb, watch=False, warm_spark=True)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            await until(pilot, lambda: "purge" in order, 300, "the purge")
    finally:
        unsubscribe()
    assert order[:2] == ["warm-up done", "purge"], order


@pytest.mark.spark
async def test_the_trees_freshness_badges_wait_for_the_warm_up(scratch: Scratch, monkeypatch: pytest.MonkeyPatch):
    """A `column` freshness policy asks Spark for the newest value; the tree asked as the app opened, which
    stopped the warm-up as a user's run does (found in the full suite: the shared lake held such a pipeline)."""
    fqn = scratch.pipeline("silver", "events", "SELECT 1 AS id, TIMESTAMP '2025-03-02 10:30:00' AS updated_at",
                           config="freshness:\n  warn_after: 1h\n  column: updated_at\n")
    assert scratch.run(fqn)["status"] == "success"
    order: list[str] = []
    unsubscribe = scratch.wb.events.subscribe(
        lambda e: isinstance(e, WarmUpProgress) and e.state != "warming" and order.append(f"warm-up {e.state}"))
    newest = scratch.wb.freshness.newest_value
    monkeypatch.setattr(scratch.wb.freshness, "newest_value",
                        lambda ref, column: (order.append(f"newest {ref.fqn}"), newest(ref, column))[1])
    app = RatApp(scratch.wb, watch=False, warm_spark=True)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            await until(pilot, lambda: f"newest {fqn}" in order, 300, "the tree's freshness look")
    finally:
        unsubscribe()
    assert order[0] == "warm-up done", order
