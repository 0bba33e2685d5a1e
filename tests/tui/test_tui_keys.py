"""What a newcomer trips over, through Pilot on the real app (Spark only to type an upload): keys act on
the tree's cursor, help explains the marks, the palette shows the app's actions, actions report sentences."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from devkit.pilot import holds_whole, notifications, screen, select, until
from rat_tui.core.compose import open_project
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.project_tree import ProjectTree

SIZE = (140, 45)


def make_app(project: Path) -> RatApp:
    return RatApp(open_project(project), watch=False, warm_spark=False)


def node_labelled(app: RatApp, namespace: str, label: str):
    tree = app.query_one(ProjectTree)
    ns = next(n for n in tree.root.children if str(n.label) == namespace)
    return next(n for n in ns.children if str(n.label) == label)


def notices(app: RatApp) -> list[str]:
    return [str(n.message) for n in notifications(app)]


def log_lines(app: RatApp) -> list[str]:
    return [strip.text for strip in app.query_one("#log-panel").lines]


async def cursor_to(pilot, node) -> None:
    pilot.app.query_one(ProjectTree).move_cursor(node)
    await pilot.pause(0.2)
    await pilot.app.wait_for_idle_screen()


async def test_keys_act_on_the_cursor_and_say_when_they_make_no_sense(sample_copy: Path):
    app = make_app(sample_copy)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", "ecommerce.silver.clean_orders")
        await until(pilot, lambda: "Effective config" in screen(app), 20, "the pipeline")
        await cursor_to(pilot, node_labelled(app, "ecommerce", "bronze"))
        await pilot.press("r")
        await until(pilot, lambda: any("bronze layer" in m for m in notices(app)), 10, "the notice")
        assert notices(app) == ["r (Run) needs a pipeline under the cursor; it is on the bronze layer of ecommerce."]
        app.clear_notifications()
        assert "3 pipelines" in screen(app) and "Effective config" not in screen(app)  # the right side follows
        await pilot.press("P")
        await pilot.pause(0.3)
        assert len(app.screen_stack) == 1  # no publish prompt for a layer
        assert notices(app) == ["P (Publish) needs a pipeline under the cursor; it is on the bronze layer of ecommerce."]
        await pilot.app.workers.wait_for_complete()
    assert app.workbench.browse.runs("ecommerce.silver.clean_orders").as_dict()["runs"] == []
    assert app.workbench.versions.list_versions("ecommerce.silver.clean_orders").as_dict()["current"] is None


async def test_refresh_keeps_collapsed_nodes_and_the_cursor(sample_copy: Path):
    app = make_app(sample_copy)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "zone", "ecommerce.orders")
        bronze = node_labelled(app, "ecommerce", "bronze")
        bronze.collapse()
        await pilot.pause()
        cursor_line = app.query_one(ProjectTree).cursor_line
        await pilot.press("f5")
        await pilot.pause(0.3)
        await app.wait_for_idle_screen()
        await pilot.pause(0.3)
        tree = app.query_one(ProjectTree)
        assert not node_labelled(app, "ecommerce", "bronze").is_expanded
        assert tree.cursor_node.data == app.selected and app.selected.name == "orders"
        assert tree.cursor_line == cursor_line


async def test_help_explains_marks_and_tabs_switch_from_anywhere(sample_copy: Path):
    app = make_app(sample_copy)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", "ecommerce.silver.clean_orders")
        await until(pilot, lambda: "Effective config" in screen(app), 20, "the pipeline")
        tabs = app.query_one("PipelineView TabbedContent")
        assert app.focused is app.query_one(ProjectTree)
        await pilot.press("]")
        assert tabs.active == "tab-run"
        await pilot.press("]", "]", "]", "]", "]", "]")
        assert tabs.active == "tab-source"  # wraps around
        await pilot.press("[")
        assert tabs.active == "tab-tests"
        await pilot.press("question_mark")
        await pilot.pause()
        text = screen(app)
        for words in ("○  never run", "◐  running", "●  last run succeeded", "*  the working copy differs",
                      "@123456", "[ / ]", "previous / next tab", "Tab to the tab bar, then ← / →"):
            assert words in text, words


async def test_palette_opens_with_the_apps_actions_grouped_with_their_keys(sample_copy: Path):
    app = make_app(sample_copy)
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_for_idle_screen()
        await pilot.press("ctrl+p")
        await pilot.pause(0.6)
        from textual.command import CommandList

        options = app.screen.query_one(CommandList)
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert prompts[0].startswith("Run: Run the selected pipeline") and "key r" in prompts[0]
        assert any(p.startswith("Tables: Roll back the table") and "key t" in p for p in prompts)
        ours = [i for i, p in enumerate(prompts) if "\nkey " in p]
        theirs = [i for i, p in enumerate(prompts) if p.startswith(("Keys", "Theme", "Quit"))]
        assert len(ours) == len(app.keymap) and theirs and max(ours) < min(theirs)  # Textual's own come last


@pytest.mark.spark  # the upload types its twin with Spark
async def test_actions_report_sentences_toasts_and_log_lines(sample_copy: Path, tmp_path: Path):
    upload = tmp_path / "orders_2024_09.csv"
    upload.write_text("order_id,customer_id,amount,status,updated_at\n1,2,3.5,new,2024-09-01 00:00:00\n")
    app = make_app(sample_copy)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", "ecommerce.gold.monthly_orders")
        await pilot.press("P", *"first", "enter")
        await until(pilot, lambda: any("published version 1" in m for m in notices(app)), 20, "publish")
        await select(pilot, "zone", "ecommerce.orders")
        await pilot.press("u", *str(upload), "enter")
        await until(pilot, lambda: any(m.startswith("Uploaded") for m in notices(app)), 20, "upload")
        await pilot.press("D")
        await until(pilot, lambda: any("no inconsistencies" in m for m in notices(app)), 20, "doctor")
        await pilot.press("x")
        await until(pilot, lambda: any("nothing to purge" in m for m in notices(app)), 20, "purge")
        assert len(app.screen_stack) == 1  # no "Purge all of this?" over zeros
        await pilot.press("l")
        await pilot.pause()
        logged = "\n".join(log_lines(app))
        assert "ecommerce.gold.monthly_orders: published version 1 (first)" in logged
        assert "Uploaded orders_2024_09.csv (78 bytes) into ecommerce/orders." in logged
        assert "as Parquet for faster runs." in logged  # the upload typed the zone's CSV files
        assert "Doctor: no inconsistencies found" in logged
        assert "Purge: nothing to purge" in logged
        doctor = next(n for n in notifications(app) if "no inconsistencies" in str(n.message))
        assert doctor.timeout >= 10
        for message in notices(app) + log_lines(app):
            assert "{" not in message and "[{" not in message, message


async def test_purge_lists_only_what_applies(sample_copy: Path):
    old = sample_copy / "ecommerce" / "landing" / "orders" / "_processed" / "r1" / "orders_2023.csv"
    old.parent.mkdir(parents=True)
    old.write_text("order_id\n1\n")
    month_ago = time.time() - 60 * 86400
    os.utime(old, (month_ago, month_ago))
    app = make_app(sample_copy)
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_for_idle_screen()
        await pilot.press("x")
        await until(pilot, lambda: "Purge 1 item?" in screen(app), 20, "the purge plan")
        text = screen(app)
        assert "processed landing files: 1" in text and "orders_2023.csv" in text
        for absent in ("bucket", "snapshots to expire", "orphan", "stuck runs", "old file versions"):
            assert absent not in text, absent
        await pilot.press("y")
        await until(pilot, lambda: any("Purged 1 processed landing file" in m for m in notices(app)), 20, "purge")
    assert not old.exists()


async def test_the_review_with_downstream_palette_entry_is_whole_at_160x48(sample_copy: Path):
    """It ended `…later ones reading their upstream's`, which reads as cut: it names what they read."""
    app = make_app(sample_copy)
    async with app.run_test(size=(160, 48)) as pilot:
        await app.wait_for_idle_screen()
        await pilot.press("ctrl+p")
        await pilot.press(*"downstream for review")
        await until(pilot, lambda: "NAME+" in screen(app), 10, "the entry")
        assert holds_whole(screen(app), "Graph: Run the selected pipeline and its downstream for review (NAME+): "
                                        "each on its branch, later ones reading their upstream's branch"), screen(app)
