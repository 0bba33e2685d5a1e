"""`I` shows a pipeline whose `partitions:` cannot be read with its problem (file, line, cause), not "no
intervals" (found by the new-user trial of issue 39); no Spark: intervals are read from state.db."""
from __future__ import annotations

from pathlib import Path

from devkit.pilot import screen, until
from rat_tui.core.compose import open_project
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.intervals_pane import IntervalsPane

SIZE = (200, 40)


async def test_the_intervals_view_names_a_bad_partitions_setting(sample_copy: Path):
    folder = sample_copy / "ecommerce" / "pipelines" / "silver" / "clean_orders"
    (folder / "config.yaml").write_text("partitions:\n  column: order_date\n  grain: week\n  start: 2024-01-01\n")
    workbench = open_project(sample_copy)
    strips, problems = workbench.intervals.interval_overview()
    assert strips == {}
    assert problems == {"ecommerce.silver.clean_orders": "ecommerce/pipelines/silver/clean_orders/config.yaml:3: "
                                                         "partitions grain must be one of day, hour, month, not 'week'"}
    app = RatApp(workbench, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("I")
        await until(pilot, lambda: app.screen.query(IntervalsPane) and "grain must be" in screen(app), 20,
                    "the problem in the intervals view")
        text = screen(app)
        assert "ecommerce.silver.clean_orders" in text and "No intervals" not in text
        assert "ecommerce/pipelines/silver/clean_orders/config.yaml:3: partitions grain must be one of" in text
        assert "day, hour, month, not 'week'" in text  # the sentence wraps in the dialog
