"""The TUI and the triggers (issue 38): it evaluates them itself when no `serve` holds the project, and only
shows them when one does; a pipeline's Automation tab, the status bar's next scheduled run, and `A`, the
project's every trigger. No Spark: no trigger is due."""
from __future__ import annotations

import os
import time
from pathlib import Path

from devkit.pilot import screen, select, until
from rat_tui.core.compose import Workbench, open_project
from rat_tui.core.store.locks import hold_now
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.pipeline_view import PipelineView
from rat_tui.tui.components.status_bar import StatusBar

FQN = "auto.bronze.daily"


def daily_pipeline(project: Path) -> None:
    folder = project / "auto" / "pipelines" / "bronze" / "daily"
    folder.mkdir(parents=True)
    (folder / "pipeline.sql").write_text("SELECT 1 AS x\n")
    (folder / "config.yaml").write_text('triggers:\n  - cron: "0 6 * * *"\n  - webhook: true\n')


def pipeline_with_missed_ticks(project: Path) -> str:
    """A pipeline whose daily schedule (12 hours from now, so never due during the test) started three days
    ago and was evaluated an hour ago: the missed times between are skipped (catch_up: skip)."""
    folder = project / "auto" / "pipelines" / "bronze" / "missed"
    folder.mkdir(parents=True)
    (folder / "pipeline.sql").write_text("SELECT 1 AS x\n")
    later = time.gmtime(time.time() + 12 * 3600)
    (folder / "config.yaml").write_text(f'triggers:\n  - cron: "{later.tm_min} {later.tm_hour} * * *"\n')
    rat_yaml = project / "rat.yaml"
    rat_yaml.write_text(rat_yaml.read_text() + "\nschedule: {catch_up: skip, timezone: UTC}\n")
    wb = open_project(project)
    try:
        now = time.time()
        assert wb.automation.tick(now - 3 * 86400).skipped == ()
        missed = wb.automation.tick(now - 3600)
        assert missed.fired == () and {s.reason for s in missed.skipped} == {
            "missed: nothing evaluated the schedule then; catch_up: skip runs no missed time"}
    finally:
        wb.close()
    return "auto.bronze.missed"


def started_triggers(wb: Workbench) -> list[str]:
    return [row[0] for row in wb.state.query("SELECT trigger FROM trigger_cursors WHERE pipeline = ?", (FQN,))]


async def test_the_app_runs_the_triggers_and_shows_them(sample_copy: Path):
    missed = pipeline_with_missed_ticks(sample_copy)
    daily_pipeline(sample_copy)  # after those ticks: its schedule starts when the app evaluates it
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=(140, 40)) as pilot:
        bar = app.query_one(StatusBar)
        await until(pilot, lambda: bar.next_run.startswith("next auto.bronze."), 20, "the next run in the status bar")
        assert "(in " in bar.next_run
        assert started_triggers(app.workbench) == ["cron:0 6 * * *"]  # evaluated: the schedule has started
        await select(pilot, "pipeline", FQN)
        await app.wait_for_idle_screen()
        app.query_one(PipelineView).show_tab("tab-automation")
        await until(pilot, lambda: "0 6 * * *" in screen(app), 10, "the Automation tab")
        text = screen(app)
        assert "Triggers are evaluated by this app" in text and "POST /hooks/auto.bronze.daily" in text
        assert "No ticks yet." in text
        await select(pilot, "pipeline", missed)
        await app.wait_for_idle_screen()
        app.query_one(PipelineView).show_tab("tab-automation")
        await until(pilot, lambda: "Last ticks" in screen(app), 10, "the missed ticks")
        assert "skipped" in screen(app) and "missed: nothing evaluated" in screen(app)
        await pilot.press("A")
        await until(pilot, lambda: "Automation: every trigger of the project" in screen(app), 10, "the project view")
        await until(pilot, lambda: FQN in screen(app) and "0 6 * * *" in screen(app), 10, "its triggers")


async def test_with_a_serve_holding_the_project_the_app_only_shows(sample_copy: Path):
    daily_pipeline(sample_copy)
    wb = open_project(sample_copy)
    held = hold_now(wb.project.state_dir, "scheduler", "rat-tui serve (pid 4242 on elsewhere)")
    assert held is not None
    try:
        app = RatApp(wb, watch=False, warm_spark=False)
        async with app.run_test(size=(140, 40)) as pilot:
            bar = app.query_one(StatusBar)
            await until(pilot, lambda: bar.next_run.startswith(f"next {FQN} "), 20, "the next run in the status bar")
            assert started_triggers(wb) == []  # the serve evaluates, not the app
            await select(pilot, "pipeline", FQN)
            await app.wait_for_idle_screen()
            app.query_one(PipelineView).show_tab("tab-automation")
            await until(pilot, lambda: "this app only shows them" in screen(app), 10, "the Automation tab")
            assert "Triggers run in rat-tui serve (pid 4242 on elsewhere)" in screen(app)
    finally:
        os.close(held)


async def test_the_automation_tab_shows_the_implicit_triggers_of_the_watch_settings(sample_copy: Path):
    rat_yaml = sample_copy / "rat.yaml"
    rat_yaml.write_text(rat_yaml.read_text().replace("watch:\n", "watch:\n  cascade: true\n  run_on_landing: true\n", 1))
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await select(pilot, "pipeline", "ecommerce.silver.clean_orders")
        await app.wait_for_idle_screen()
        app.query_one(PipelineView).show_tab("tab-automation")
        await until(pilot, lambda: "Triggers" in screen(app) and "after" in screen(app), 10, "the Automation tab")
        assert "any of ecommerce.bronze.raw_orders (watch.cascade)" in screen(app)
        await select(pilot, "pipeline", "ecommerce.bronze.raw_orders")
        await app.wait_for_idle_screen()
        app.query_one(PipelineView).show_tab("tab-automation")
        await until(pilot, lambda: "(watch.run_on_landing)" in screen(app), 10, "the landing trigger")
        assert "orders (watch.run_on_landing)" in screen(app)
