"""`lineage --column`: a column's upstream or downstream columns with edge kinds, in-process (no JVM)."""
from __future__ import annotations

import pytest

from rat_tui.core.compose import open_project
from tests.core.lineage.lineage_project import write_project
from tests.helpers import script


@pytest.fixture
def wb(tmp_path):
    write_project(tmp_path)
    bench = open_project(tmp_path)
    yield bench
    bench.close()


def test_upstream_of_a_gold_column_reaches_the_zone_files(wb):
    status, [result] = script(wb, "lineage --column shop.gold.daily_revenue.total --up")
    assert status == 0 and result["ok"]
    found = {(c["table"], c["column"], c["kind"], c["via"], c["depth"]) for c in result["columns"]}
    assert ("shop.silver.orders", "amount", "direct", "aggregation", 1) in found
    assert ("shop.silver.orders", "status", "indirect", "group by", 1) in found
    assert ("shop.landing.orders", "amount", "direct", "aggregation", 3) in found
    assert ("shop.landing.customers", "id", "indirect", "group by", 3) in found


def test_downstream_with_a_depth(wb):
    status, [result] = script(wb, "lineage --column shop.silver.orders.amount --down --depth 1")
    found = {(c["table"], c["column"], c["kind"], c["via"]) for c in result["columns"]}
    assert found == {
        ("shop.gold.daily_revenue", "total", "direct", "aggregation"),
        ("shop.gold.big_orders", "order_id", "indirect", "filter"),
        ("shop.gold.big_orders", "customer", "indirect", "filter"),
        ("shop.gold.ranked", "rank_in_customer", "indirect", "window"),
        ("shop.gold.ranked", "paid_amount", "direct", "transformation"),
    }


def test_the_graph_form_stays_and_a_wrong_column_names_the_known_ones(wb):
    status, lines = script(wb, "lineage shop.gold.big_orders\nlineage --column shop.gold.big_orders.amount")
    assert lines[0]["ok"] and "shop.silver.orders" in {n["name"] for n in lines[0]["nodes"]}
    assert not lines[1]["ok"]
    assert lines[1]["error"] == ("no column shop.gold.big_orders.amount: shop.gold.big_orders has columns "
                                 "customer, order_id")


def test_a_column_by_its_name_and_its_pipeline_and_misuse_that_says_how(wb):
    """`lineage --column total shop.gold.daily_revenue` was refused as "takes no pipeline"; a bare column
    was "not a column of the form …", which did not say to name the pipeline."""
    lines = [script(wb, line)[1][0] for line in ("lineage --column total shop.gold.daily_revenue --depth 1",
                                                 "lineage --column total",
                                                 "lineage --column total --up --down shop.gold.daily_revenue")]
    assert lines[0]["ok"] and lines[0]["column"] == "shop.gold.daily_revenue.total"
    assert ("shop.silver.orders", "amount") in {(c["table"], c["column"]) for c in lines[0]["columns"]}
    assert lines[1]["error"] == ("lineage --column total: name its table too, as `lineage --column total PIPELINE` "
                                 "or `lineage --column namespace.layer.name.total`")
    assert lines[2]["error"].startswith("lineage --column: choose --up (the columns it reads, the default) or --down")
