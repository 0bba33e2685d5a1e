"""Keys that move the focus and what the right side shows (issue 36.7)."""
from __future__ import annotations

from pathlib import Path

from devkit.pilot import press_now, screen, select, until
from rat_tui.core.compose import open_project
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.help_screen import HelpScreen
from rat_tui.tui.components.lineage_view import LineageView
from rat_tui.tui.components.pipeline_view import PipelineView
from rat_tui.tui.components.project_tree import ProjectTree
from rat_tui.tui.components.selection_view import SelectionView

SIZE = (160, 48)
PIPELINE = "ecommerce.silver.clean_orders"


async def test_f2_focuses_the_detail_panel_and_f1_the_tree(sample_copy: Path):
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", PIPELINE)
        await app.wait_for_idle_screen()
        await pilot.press("f2")
        assert app.focused is not None and app.detail in app.focused.ancestors
        await pilot.press("f1")
        assert isinstance(app.focused, ProjectTree)


async def test_esc_from_the_console_shows_the_node_under_the_cursor(sample_copy: Path):
    """A finished selection's progress (a rebuild) was shown again when the console closed, instead of
    the pipeline under the tree's cursor."""
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", PIPELINE)
        await app.show_selection("rebuild", [PIPELINE])
        assert app.detail.current(SelectionView) is not None
        await pilot.press("s")
        await pilot.press("escape")
        await app.wait_for_idle_screen()
        view = app.detail.current(PipelineView)
        assert view is not None and view.fqn == PIPELINE and app.detail.current(SelectionView) is None
        assert isinstance(app.focused, ProjectTree)


async def test_after_lineage_the_panel_has_the_keys_and_esc_gives_them_back(sample_copy: Path):
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", PIPELINE)
        await pilot.press("L")
        await until(pilot, lambda: app.detail.current(LineageView) is not None
                    and app.detail.current(LineageView).drawn, 20, "the lineage")
        await app.wait_for_idle_screen()
        assert app.focused.id == "lineage-tree"  # ↓ moves in the lineage, as the help says
        await pilot.press("escape")
        assert isinstance(app.focused, ProjectTree)
        await pilot.press("down")
        await app.wait_for_idle_screen()
        assert app.selected.name != "clean_orders"
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        help_text = " ".join(screen(app).split())
        assert "the lineage panel has the focus: ↑ / ↓ move in it" in help_text
        assert "F2 Focus detail" in help_text


async def test_a_long_confirmation_question_wraps_whole(sample_copy: Path):
    """The `t` confirmation was cut: `Point main of … at snapshot 5563610973342222881 (main after ru` (36.6)."""
    from rat_tui.tui.components.modals import Confirm

    question = ("Point main of ecommerce.silver.clean_orders at snapshot 5563610973342222881 "
                "(main after run 4f9c2a1b-long-run-id-of-a-pipeline)?")
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(Confirm(question, "Later runs stay in history until purged, so this can be undone."))
        await pilot.pause()
        inside = [line.split("█")[1].strip() for line in screen(app).splitlines() if line.count("█") >= 2]
        assert question in " ".join(part for part in inside if part)


async def test_a_tab_key_right_after_an_arrow_key_applies_to_the_view_that_comes(sample_copy: Path):
    """`]` sent with the arrow key before it (fast hands) reached the app while the next pipeline's view
    replaced the last: it was dropped with a warning that no panel had tabs."""
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", "ecommerce.bronze.raw_events")
        await app.wait_for_idle_screen()
        press_now(app, "down")
        press_now(app, "right_square_bracket")
        await until(pilot, lambda: (view := app.detail.current(PipelineView)) is not None
                    and view.fqn == "ecommerce.bronze.raw_orders", 20, "raw_orders' view")
        await app.wait_for_idle_screen()
        assert app.detail.current(PipelineView).query_one("TabbedContent").active == "tab-run"
        assert "Only a pipeline's panel has tabs" not in screen(app)


async def test_a_tab_shown_while_the_view_still_mounts_its_tabs_is_shown_once_they_are(sample_copy: Path):
    """`No Tab with id '--content-tab-tab-runs'` on a loaded machine: a running pipeline's view was told to
    show its Run tab before its tabs were mounted."""
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", PIPELINE)
        await app.wait_for_idle_screen()
        view = PipelineView(app.workbench, app.selected, app.live_runs)
        await app.detail.remove_children()
        app.detail.mount(view)
        view.show_tab("tab-runs")  # at once: the mount is not awaited
        await until(pilot, lambda: view.is_mounted and view.query("TabbedContent")
                    and view.query_one("TabbedContent").active == "tab-runs", 10, "the Runs tab")
        await pilot.pause(0.3)
        assert view.query_one("TabbedContent").active == "tab-runs"


async def test_the_upload_dialogs_path_completion_takes_the_first_match_and_marks_a_folder(tmp_path):
    """It runs on the UI thread at each key: it reads names only, and stats the one it offers."""
    from rat_tui.tui.components.modals import PathSuggester

    for name in ("orders_2.csv", "orders_1.csv", "other.txt"):
        (tmp_path / name).write_text("id\n1\n")
    (tmp_path / "ordersdir").mkdir()
    suggest = PathSuggester().get_suggestion
    assert await suggest(f"{tmp_path}/ord") == f"{tmp_path}/orders_1.csv"
    assert await suggest(f"{tmp_path}/ordersd") == f"{tmp_path}/ordersdir/"
    assert await suggest(f"a.csv {tmp_path}/oth") == f"a.csv {tmp_path}/other.txt"
    assert await suggest(f"{tmp_path}/nothing") is None


async def test_r_on_a_pipeline_never_published_warns_and_starts_nothing(sample_copy: Path):
    """Found by a new user: `R` showed a "run failed" toast although no run had started."""
    from devkit.pilot import notifications

    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", PIPELINE)
        await pilot.press("R")
        said = f"{PIPELINE} has no published version yet; P publishes the working copy."
        await until(pilot, lambda: said in [str(n.message) for n in notifications(app)], 10, "the warning")
        assert [n.severity for n in notifications(app) if str(n.message) == said] == ["warning"]
        assert not any("failed" in (n.title or "") for n in notifications(app))
        assert app.workbench.state.runs(PIPELINE) == []
