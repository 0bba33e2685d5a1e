"""At 160×48 the key bar cut its last hint where it ended (`c Ca`, `q ▏`): every hint it shows is
whole, one that does not fit is left out (issue 36.6)."""
from __future__ import annotations

from textual.widgets._footer import FooterKey

from devkit.pilot import screen, select
from rat_tui.core.compose import open_project
from rat_tui.tui.app import RatApp

SIZE = (160, 48)


async def test_every_hint_in_the_key_bar_is_whole(sample_copy):
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", "ecommerce.silver.clean_orders")
        await app.wait_for_idle_screen()
        await pilot.pause(0.3)
        bar = screen(app).splitlines()[-1]
        shown = [key for key in app.screen.query(FooterKey) if key.display]
        assert len(shown) >= 8, bar
        for key in shown:
            assert f"{key.key_display} {key.description}".strip() in bar, bar
        assert "c Cancel run" in bar and "^p palette" in bar
        hidden = [key.description for key in app.screen.query(FooterKey) if not key.display]
        assert all(description not in bar for description in hidden), bar


async def test_a_small_terminal_keeps_the_help_hint(sample_copy):
    """A new user at 80x24 saw `r Run … P Publish` and no `? Help`: the bar dropped hints from its end,
    and help came last. Help stays, as the palette's key does; the run keys fill what is left."""
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, "pipeline", "ecommerce.silver.clean_orders")
        await app.wait_for_idle_screen()
        await pilot.pause(0.3)
        bar = screen(app).splitlines()[-1]
        assert "? Help" in bar and "^p palette" in bar and "r Run" in bar, bar
        shown = [key for key in app.screen.query(FooterKey) if key.display]
        for key in shown:
            assert f"{key.key_display} {key.description}".strip() in bar, bar
        # and the tree leaves the detail most of the width (it kept 38 of 80 columns)
        assert app.query_one("#project-tree").region.width <= 28, app.query_one("#project-tree").region
