"""SVG snapshots of the graph panels: a pipeline's lineage, the project's lineage, a selection's progress.

As in test_snapshots.py: the real app on a copy of the sample; runs are recorded with fixed times and
a selection's run events are fed with fixed ids and times, so nothing on screen changes between runs.
"""
from __future__ import annotations

import time
from pathlib import Path

from devkit.pilot import select, until
from rat_tui.core.events import PhaseStarted, RunFinished, RunQueued, RunStarted
from tests.snapshothelpers import PHASES, T0, compare, make_app, record_run, settle

CLEAN = "ecommerce.silver.clean_orders"


def recorded_runs(app) -> None:
    wb = app.workbench
    record_run(wb, "0f1e2d3c", "ecommerce.bronze.raw_orders", T0, PHASES, 300)
    record_run(wb, "9a8b7c6d", CLEAN, T0 + 60, PHASES, 290)
    record_run(wb, "5e6f7a8b", "ecommerce.gold.monthly_orders", T0 + 120, PHASES, 12)
    wb.state.update_run("5e6f7a8b", status="failed", error="quality test positive_totals failed")


def test_lineage_of_a_pipeline(snap_compare, sample_copy: Path):
    app = make_app(sample_copy)
    recorded_runs(app)

    async def lineage(pilot) -> None:
        await select(pilot, "pipeline", CLEAN)
        await settle(pilot)
        await pilot.press("L")
        await until(pilot, lambda: "downstream" in pilot.app.screen_text(), 20, "the lineage panel")
        await settle(pilot)

    assert compare(snap_compare, app, lineage)


def test_lineage_of_the_project(snap_compare, sample_copy: Path):
    app = make_app(sample_copy)
    recorded_runs(app)

    async def lineage(pilot) -> None:
        await settle(pilot)
        await pilot.press("G")
        await until(pilot, lambda: "analytics" in pilot.app.screen_text() and "bronze" in pilot.app.screen_text(),
                    20, "the project lineage")
        await settle(pilot)

    assert compare(snap_compare, app, lineage)


def test_selection_progress(snap_compare, sample_copy: Path):
    names = ["ecommerce.bronze.raw_orders", "ecommerce.silver.clean_orders", "ecommerce.silver.dim_customers",
             "ecommerce.gold.daily_revenue", "ecommerce.gold.monthly_orders", "analytics.gold.customer_value"]

    async def progress(pilot) -> None:
        app = pilot.app
        await select(pilot, "pipeline", names[0])
        await settle(pilot)
        await app.show_selection(f"{names[0]}+", names)
        start = time.time()  # newer than the tree's data, so the tree's marks follow too
        publish = app.workbench.events.publish
        publish(RunQueued("r1", names[0], at=start))
        publish(RunStarted("r1", names[0], "draft", at=start + 0.1))
        publish(RunFinished("r1", names[0], "success", 300, None, 1, at=start + 1.4))
        for run_id, name, ok in (("r2", names[1], True), ("r3", names[2], False)):
            publish(RunQueued(run_id, name, at=start + 1.5))
            publish(RunStarted(run_id, name, "draft", at=start + 1.6))
            publish(PhaseStarted(run_id, "build_result", at=start + 1.7))
            if not ok:
                publish(RunFinished(run_id, name, "failed", 0, "quality test no_null_ids failed", None,
                                    at=start + 3.9))
        publish(PhaseStarted("r2", "iceberg_write", at=start + 2.2))
        publish(RunQueued("r4", names[5], at=start + 4.0))
        await until(pilot, lambda: "iceberg_write" in app.screen_text() and "no_null_ids" in app.screen_text(), 20,
                    "the live states")
        app.clear_notifications()  # toasts of runs outside a selection come and go with time
        await settle(pilot)

    assert compare(snap_compare, make_app(sample_copy), progress)
