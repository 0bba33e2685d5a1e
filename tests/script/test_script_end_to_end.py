"""The sample project driven through `rat-tui --script`, as CI users would."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import run_script_here

pytestmark = pytest.mark.spark

SCRIPT = """\
run ecommerce.bronze.raw_orders
run ecommerce.bronze.raw_products
run ecommerce.silver.clean_orders
run ecommerce.gold.daily_revenue
run ecommerce.gold.monthly_orders
query SELECT COUNT(*) AS n FROM ecommerce.bronze.raw_orders
query SELECT month, SUM(orders) FROM ecommerce.gold.monthly_orders GROUP BY month ORDER BY month
snapshots ecommerce.gold.daily_revenue
tables
runs --limit 2
"""


def test_sample_runs_end_to_end_from_script_with_events(sample_copy: Path):
    status, lines, stderr = run_script_here(sample_copy, SCRIPT, "--events")
    results = [line for line in lines if "cmd" in line]
    events = [line for line in lines if "event" in line]
    assert status == 0, (results, stderr)
    assert [r["cmd"] for r in results] == ["run"] * 5 + ["query", "query", "snapshots", "tables", "runs"]
    assert all(r["ok"] for r in results)
    assert results[5]["rows"] == [[300]]
    assert results[6]["rows"] == [["2024-01", 100], ["2024-02", 100], ["2024-03", 100]]
    snaps = results[7]
    assert len(snaps["snapshots"]) == 2  # the empty table's creation, then the run's write
    assert snaps["refs"] == {"main": results[3]["run"]["snapshot_id"]}
    assert snaps["snapshots"][-1]["run_id"] == results[3]["run"]["run_id"]
    assert {t["name"] for t in results[8]["tables"]} == {
        "ecommerce.bronze.raw_orders", "ecommerce.bronze.raw_products", "ecommerce.silver.clean_orders",
        "ecommerce.gold.daily_revenue", "ecommerce.gold.monthly_orders"}
    kinds = {e["event"] for e in events}
    assert {"RunQueued", "RunStarted", "PhaseStarted", "PhaseFinished", "QualityResultEvent",
            "RunFinished", "SessionStateChanged"} <= kinds
    phases = [e["phase"] for e in events if e["event"] == "PhaseFinished" and e["run_id"] == results[0]["run"]["run_id"]]
    assert phases == ["branch_creation", "config_loading", "build_result", "iceberg_write", "quality_tests", "branch_resolution"]
    assert "Traceback" not in stderr
