"""`test [SELECTOR]` through the script face: the sample's unit tests pass, and a broken merge fails them."""
from __future__ import annotations

import pytest
import yaml

from rat_tui.core.project.pipeline_config import MergeStrategy
from rat_tui.core.run import strategies
from tests.helpers import script

pytestmark = pytest.mark.spark


def test_the_samples_unit_tests_pass(lake):
    status, (result,) = script(lake, "test\n")
    assert status == 0 and result["ok"], result
    assert {(t["pipeline"], t["name"]) for t in result["tests"]} >= {
        ("ecommerce.silver.clean_orders", "types_and_cleans"),
        ("ecommerce.silver.clean_orders", "updates_in_place"),
        ("ecommerce.silver.dim_customers", "keeps_history"),
    }
    assert {t["status"] for t in result["tests"]} == {"passed"}


def test_a_broken_incremental_merge_fails_table_after(lake, monkeypatch):
    # Broken on purpose: appends the batch without replacing the rows of its keys.
    monkeypatch.setitem(strategies.WRITERS, MergeStrategy.INCREMENTAL, strategies.append_only)
    status, (result,) = script(lake, "test ecommerce.silver.clean_orders\n")
    assert status == 1 and not result["ok"]
    tests = {t["name"]: t for t in result["tests"]}
    broken = tests["updates_in_place"]
    assert broken["status"] == "failed"
    assert broken["missing"] == []
    assert broken["unexpected"] == [{"order_id": 1, "status": "paid", "updated_at": "2024-01-02T10:00:00"}]
    # the rows are the table's after the write, not the query's result: said so (they were once mixed unsaid)
    assert broken["failed_in"] == ["table_after"]
    assert broken["error"].endswith("0 expected row(s) missing, 1 unexpected row(s) (expect.table_after)")
    assert tests["types_and_cleans"]["status"] == "passed"  # output only: no merge involved


def test_test_fixture_writes_a_passing_unit_test_from_a_preview(scratch):
    scratch.landing("orders", "orders.csv", "order_id,amount\n1,5.50\n2,7.00\n3,1.25\n")
    fqn = scratch.pipeline("bronze", "orders", """\
        -- @merge_strategy: full_refresh
        SELECT CAST(order_id AS INT) AS order_id, CAST(amount AS DOUBLE) * 2 AS doubled
        FROM {{ landing_zone('orders') }}
    """)
    status, (written, tested) = script(scratch.wb, f"test-fixture {fqn} --rows 2\ntest {fqn}\n")
    assert status == 0 and written["ok"], written
    path = scratch.wb.project.root / written["path"]
    assert written["path"].endswith("/pipelines/bronze/orders/tests/unit/preview.yaml")
    assert written["inputs"] == {"landing_zone('orders')": 2} and written["output_rows"] == 2
    text = yaml.safe_load(path.read_text())
    doubled = sorted(row["doubled"] for row in text["expect"]["output"])
    assert doubled in ([11.0, 14.0], [2.5, 11.0], [2.5, 14.0])  # two of the three orders, each amount doubled
    assert [t["status"] for t in tested["tests"]] == ["passed"]

    status, (missing,) = script(scratch.wb, "test-fixture no_such_pipeline\n")
    assert status == 1 and not missing["ok"]
    assert "no_such_pipeline" in missing["error"]
