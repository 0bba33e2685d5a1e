"""Small things a newcomer met: the Runs tab's start times and whole errors, the zone-settings dialog
that keeps what was typed, toasts that wait while the help is open."""
from __future__ import annotations

from pathlib import Path

from devkit.pilot import holds_whole, notifications, screen, select, until, widget_text
from rat_tui.core.compose import open_project
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.help_screen import HelpScreen
from rat_tui.tui.components.modals import ZoneSettingsForm
from tests.snapshothelpers import PHASES, QUERY_REFUSED, T0, record_failed_run, record_run

FQN = "ecommerce.silver.clean_orders"
LONG_ERROR = QUERY_REFUSED


async def test_the_runs_tab_shows_when_each_run_started_and_a_failed_runs_whole_error(sample_copy: Path):
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    record_run(app.workbench, "0f1e2d3c", FQN, T0, PHASES, 300)
    record_failed_run(app.workbench, "9a8b7c6d", FQN, T0 + 3600 + 5, LONG_ERROR)
    async with app.run_test(size=(120, 36)) as pilot:
        await select(pilot, "pipeline", FQN)
        await app.wait_for_idle_screen()
        await pilot.press("]", "]")  # Source → Run → Runs
        await until(pilot, lambda: "started (UTC)" in screen(app), 10, "the Runs tab")
        text = screen(app)
        assert "2024-06-01 00:00:00" in text and "2024-06-01 01:00:05" in text
        error = app.query_one("#run-error")
        assert holds_whole(widget_text(error), LONG_ERROR)  # the newest run is highlighted first
        assert "INTEGRAL" in screen(app)  # the end of it, in view
        app.query_one("#runs-table").focus()
        await pilot.press("down")  # the older, successful run: no error under the table
        await until(pilot, lambda: not error.display, 5, "the error to go")


async def test_the_run_tab_shows_a_failed_runs_whole_error(sample_copy: Path):
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    record_failed_run(app.workbench, "9a8b7c6d", FQN, T0, LONG_ERROR)
    async with app.run_test(size=(120, 36)) as pilot:
        await select(pilot, "pipeline", FQN)
        await app.wait_for_idle_screen()
        await pilot.press("]")
        await until(pilot, lambda: "FAILED" in screen(app), 10, "the Run tab")
        shown = widget_text(app.query_one("#run-view"))
        assert holds_whole(shown, LONG_ERROR)
        phase_row = shown[shown.index("build_result"):]
        assert holds_whole(phase_row, LONG_ERROR)  # the failed phase's note too, wrapped under it


async def test_a_refused_zone_setting_keeps_the_dialog_open_with_the_error_under_the_field(sample_copy: Path):
    settings_before = (sample_copy / "rat.yaml").read_text()
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await select(pilot, "zone", "ecommerce.orders")
        await until(pilot, lambda: "kept 14 days (manual purge)" in screen(app), 10, "the zone settings")
        await pilot.press("e")
        await until(pilot, lambda: "Keep processed files" in screen(app), 10, "the form")
        field = app.screen.query_one("#max-age")
        field.value = ""
        await pilot.press("0", "ctrl+s")
        await pilot.pause(0.2)
        assert isinstance(app.screen, ZoneSettingsForm) and field.value == "0"
        lines = screen(app).splitlines()
        said = [i for i, line in enumerate(lines) if "processed_max_age_days must be a positive number of days" in line]
        typed = [i for i, line in enumerate(lines) if "Keep processed files for (days)" in line]
        assert said and typed and said[0] > typed[0] + 1  # under the field, which sits under its label
        assert (sample_copy / "rat.yaml").read_text() == settings_before
        field.value = ""
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "'' is not a number of days" in screen(app), 5, "the second refusal")
        assert "must be a positive number" not in screen(app)
        await pilot.press("7", "ctrl+s")
        await until(pilot, lambda: "kept 7 days (manual purge)" in screen(app), 10, "the saved settings")
    assert "processed_max_age_days: 7\n" in (sample_copy / "rat.yaml").read_text()


async def test_toasts_wait_while_the_help_is_open(sample_copy: Path):
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await app.wait_for_idle_screen()
        app.notify("an early toast", timeout=30)
        await until(pilot, lambda: "an early toast" in screen(app), 5, "the first toast")
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen) and "Marks in the tree" in screen(app), 5,
                    "the help")
        await pilot.pause(0.2)
        assert "an early toast" not in screen(app)
        app.notify("raised while the help is open", timeout=30)
        await pilot.pause(0.3)
        assert "raised while the help is open" not in screen(app)
        await pilot.press("escape")
        await until(pilot, lambda: "raised while the help is open" in screen(app), 5, "the held toast")
        assert "an early toast" in screen(app)


async def test_a_long_error_toast_says_where_the_whole_is(sample_copy: Path):
    from rat_tui.core.events import RunFinished

    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await app.wait_for_idle_screen()
        await pilot.press("l")
        app.workbench.events.publish(RunFinished("9a8b7c6d", FQN, "failed", 0, LONG_ERROR, None))
        await until(pilot, lambda: "Run tab and the log (l))" in screen(app), 5, "the toast")
        toast = next(n.message for n in notifications(app))
        assert len(toast) < len(LONG_ERROR) and LONG_ERROR.startswith(toast.split("…")[0])
        assert toast.endswith("… (the whole in the Run tab and the log (l))")
        assert holds_whole(widget_text(app.query_one("#log-panel")), LONG_ERROR)


async def test_a_builds_long_errors_are_whole_and_the_panel_scrolls_to_them(sample_copy: Path):
    from rat_tui.core.events import RunFinished, RunQueued

    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    names = [f"ecommerce.silver.p{i}" for i in range(8)]
    async with app.run_test(size=(120, 36)) as pilot:
        await app.wait_for_idle_screen()
        await app.show_selection("build", names)
        for i, name in enumerate(names):
            app.workbench.events.publish(RunQueued(f"run{i}", name))
            app.workbench.events.publish(RunFinished(f"run{i}", name, "failed", 0, f"{LONG_ERROR} ({i})", None))
        await until(pilot, lambda: "8 failed" in screen(app), 10, "the build's end")
        shown = widget_text(app.query_one("#selection-view"))
        assert all(holds_whole(shown, f"{LONG_ERROR} ({i})") for i in range(8))
        detail = app.query_one("#detail")
        assert detail.max_scroll_y > 0
        detail.scroll_end(animate=False)
        await pilot.pause(0.2)
        assert "(7)" in screen(app)
