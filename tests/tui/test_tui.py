"""The TUI through Textual's Pilot, on the real app."""
from pathlib import Path

from devkit.pilot import notifications
from rat_tui.core.compose import open_project
from rat_tui.tui.app import RatApp


async def test_tree_shows_namespaces_layers_pipelines_and_zones(sample_copy: Path):
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        tree = app.query_one("#project-tree")
        labels = [str(node.label) for node in tree.root.children]
        assert labels == ["analytics", "ecommerce"]
        ecommerce = tree.root.children[1]
        assert [str(n.label) for n in ecommerce.children] == ["bronze", "silver", "gold", "landing"]
        silver = [str(n.label) for n in ecommerce.children[1].children]
        assert silver == ["○ clean_orders", "○ dim_customers"]
        zones = [str(n.label) for n in ecommerce.children[3].children]
        assert zones == ["events  1 file", "orders  3 files", "products  1 file"]


async def test_rat_yaml_remaps_keys_and_help_lists_them(sample_copy: Path):
    (sample_copy / "rat.yaml").write_text("keymap:\n  run: g\n")
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=(140, 50)) as pilot:  # the help's last keys (Ctrl+P) show without scrolling
        await app.wait_for_idle_screen()
        await pilot.pause()
        actions = {key: b.binding.action for key, b in app.active_bindings.items()}
        assert actions.get("g") == "key('run')" and "r" not in actions
        await pilot.press("question_mark")
        await pilot.pause()
        text = app.screen_text()
        assert "Roll back table" in text and "Purge" in text and "Ctrl+P" in text
        help_rows = [line for line in text.splitlines() if "run_published" in line or " run " in line]
        assert any(line.strip().startswith("│ g") or " g " in line for line in help_rows)


async def test_errors_become_notifications_not_tracebacks(sample_copy: Path):
    (sample_copy / "ecommerce" / "pipelines" / "gold" / "daily_revenue" / "pipeline.sql").write_text(
        "-- @merge_strategy: incremental\nSELECT 1")
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=(140, 40)) as pilot:
        from devkit.pilot import select

        await select(pilot, "pipeline", "ecommerce.gold.daily_revenue")
        await app.wait_for_idle_screen()
        await pilot.press("P", "x", "enter")
        await pilot.pause(0.5)
        for _ in range(20):
            if any("cannot publish" in str(n.message) for n in notifications(app)):
                break
            await pilot.pause(0.1)
        messages = [str(n.message) for n in notifications(app)]
        assert any("cannot publish ecommerce.gold.daily_revenue" in m and "needs a unique_key" in m for m in messages)
        assert "Traceback" not in app.screen_text()


async def test_zone_settings_are_edited_from_the_panel_keeping_comments(sample_copy: Path):
    from devkit.pilot import select, until

    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await select(pilot, "zone", "ecommerce.orders")
        await until(pilot, lambda: "kept 14 days (manual purge)" in app.screen_text(), 10, "the zone settings")
        await pilot.press("e")
        await until(pilot, lambda: "Keep processed files" in app.screen_text(), 10, "the form")
        app.screen.query_one("#max-age").value = "5"
        app.screen.query_one("#auto-purge").value = True
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "kept 5 days (auto-purge)" in app.screen_text(), 10, "the saved settings")
    text = (sample_copy / "rat.yaml").read_text()
    assert text.startswith("# Project settings.")
    assert "ecommerce/orders:\n    processed_max_age_days: 5\n    auto_purge: true" in text
