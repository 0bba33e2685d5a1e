"""SVG snapshot of the run view of a run awaiting review (its diff recorded in state.db, no Spark)."""
from __future__ import annotations

from pathlib import Path

from devkit.pilot import select
from tests.snapshothelpers import PHASES, T0, compare, make_app, record_run, settle

DIFF = {"added": 1, "removed": 1, "changed": 2, "columns": {"status": 2, "amount": 1}, "key": ["order_id"],
        "schema_changes": [{"column": "channel", "change": "added", "type": "string"}], "old_rows": 300,
        "read": "changed files", "sample": [
            {"change": "changed", "old": {"order_id": 17, "status": "placed", "amount": "12.50"},
             "new": {"order_id": 17, "status": "shipped", "amount": "12.50"}},
            {"change": "changed", "old": {"order_id": 42, "status": "placed", "amount": "3.00"},
             "new": {"order_id": 42, "status": "returned", "amount": "-3.00"}},
            {"change": "removed", "old": {"order_id": 99, "status": "placed", "amount": "8.00"}, "new": None},
            {"change": "added", "old": None, "new": {"order_id": 301, "status": "placed", "amount": "20.00"}}]}


def test_run_view_awaiting_review(snap_compare, sample_copy: Path):
    app = make_app(sample_copy)
    fqn = "ecommerce.silver.clean_orders"
    record_run(app.workbench, "5c4b3a29", fqn, T0, PHASES, 4)
    app.workbench.state.update_run("5c4b3a29", status="awaiting_review", snapshot_id=None,
                                   review={"diff": DIFF, "base_snapshot": 1, "branch": "run_5c4b3a29"})

    async def held(pilot) -> None:
        await select(pilot, "pipeline", fqn)
        await settle(pilot)
        await pilot.press("]")  # Source → Run
        await settle(pilot)

    assert compare(snap_compare, app, held)
