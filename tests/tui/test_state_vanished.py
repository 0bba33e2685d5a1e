"""State deleted under the running app (issue 27, item 4): the app notices, says so in one sentence,
recreates its state, reloads the tree, and the next run completes. Nothing hangs: every wait is bounded."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from devkit.pilot import notifications, screen, select, until
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.run_view import RunView
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark
SIZE = (140, 45)


def remove_tree(path: Path) -> None:
    """`rm -rf` as a user runs it: the app may write a file into the folder meanwhile (its log, the
    state it recreates), which makes one pass fail with "Directory not empty"; a user runs it again."""
    for _ in range(5):
        try:
            shutil.rmtree(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            continue
    shutil.rmtree(path)


def notices(app: RatApp) -> list[str]:
    return [str(n.message) for n in notifications(app)]


def shown_run(app: RatApp):
    return app.query_one(RunView).state if app.query(RunView) else None


async def run_and_finish(pilot, app: RatApp) -> None:
    """Press `r` and wait for *that* run: the run shown before the key may already read "success"."""
    before = shown_run(app)
    await pilot.press("r")
    await until(pilot, lambda: (state := shown_run(app)) is not None and state.status == "success"
                and (before is None or state.run_id != before.run_id), 90, "the run to succeed")
    await until(pilot, lambda: not app.workbench.runner.active, 20, "no run left queued or running")


async def test_state_folder_deleted_under_the_app_then_r_runs(scratch: Scratch):
    fqn = scratch.pipeline("silver", "kept", "SELECT 7 AS id")
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        await run_and_finish(pilot, app)
        remove_tree(scratch.wb.project.state_dir)
        await until(pilot, lambda: any("state" in n and "recreated" in n for n in notices(app)), 10,
                    "the app to say its state was recreated")
        await run_and_finish(pilot, app)
        assert "running 0" in screen(app) or "running" not in screen(app)
        runs = scratch.wb.browse.runs(fqn).as_dict()["runs"]
        assert [r["status"] for r in runs] == ["success"]  # the new state holds the run made after the reset
    assert (scratch.wb.project.state_dir / "state.db").is_file()
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[7]]


async def test_state_folder_deleted_while_a_run_is_live(scratch: Scratch, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch):
    fqn = scratch.pipeline("silver", "live", "SELECT 8 AS id")
    paused, resume = tmp_path / "paused", tmp_path / "resume"
    # held after its build: a warm run of one row ends in ~0.6 s, sooner than a look for it could find it live
    for name, value in (("RAT_TEST_PAUSE_AT", "after:build_result"), ("RAT_TEST_PAUSE_FILE", str(paused)),
                        ("RAT_TEST_RESUME_FILE", str(resume))):
        monkeypatch.setenv(name, value)
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        await pilot.press("r")
        await until(pilot, paused.exists, 60, "the run to be live")
        remove_tree(scratch.wb.project.state_dir)
        resume.touch()
        monkeypatch.delenv("RAT_TEST_PAUSE_AT")  # the next run goes through
        await until(pilot, lambda: not scratch.wb.runner.active, 90, "the run to end")
        await run_and_finish(pilot, app)
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[8]]


async def test_warehouse_deleted_under_the_app_then_r_rebuilds(scratch: Scratch):
    scratch.landing("drops", "a.csv", "id\n1\n2\n")
    fqn = scratch.pipeline("bronze", "loaded", "SELECT * FROM {{ landing_zone('drops') }}")
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        await run_and_finish(pilot, app)
        remove_tree(scratch.root / "warehouse")
        await until(pilot, lambda: any("warehouse" in n for n in notices(app)), 10,
                    "the app to say the warehouse vanished")
        await until(pilot, lambda: "loaded @" not in screen(app), 10, "the tree to drop the table")
        await run_and_finish(pilot, app)
    assert scratch.rows(f"SELECT id FROM {fqn} ORDER BY id") == [[1], [2]]


async def test_a_tree_refresh_that_meets_a_disk_error_is_a_notice_and_the_app_stays(scratch: Scratch, monkeypatch):
    """The disk is outside the app: a refresh that fails on it says so; the app closed on it before."""
    import sqlite3

    fqn = scratch.pipeline("silver", "still", "SELECT 9 AS id")
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        real = scratch.wb.browse.overview
        def disk_error():
            raise sqlite3.OperationalError("disk I/O error")

        monkeypatch.setattr(scratch.wb.browse, "overview", disk_error)
        await pilot.press("f5")
        await until(pilot, lambda: any("disk I/O error" in n for n in notices(app)), 10, "the refresh's notice")
        monkeypatch.setattr(scratch.wb.browse, "overview", real)
        await pilot.press("f5")
        await pilot.pause(0.5)
        assert app.is_running and fqn.rsplit(".", 1)[1] in screen(app)
