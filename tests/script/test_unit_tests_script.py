"""`test [SELECTOR]` through the script face: the sample's unit tests pass, and a broken merge fails them."""
from __future__ import annotations

import pytest

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
    assert tests["types_and_cleans"]["status"] == "passed"  # output only: no merge involved
