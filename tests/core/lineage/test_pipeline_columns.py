"""Each SQL pipeline's column edges, with their kinds, found without Spark against the inputs' columns."""
from __future__ import annotations

import pytest

from .lineage_project import edges_of, lineage_service, write_project


@pytest.fixture
def lineage(tmp_path):
    return lineage_service(write_project(tmp_path)).pipelines()


def test_select_star_expands_to_the_zone_file_columns(lineage):
    raw = lineage["shop.bronze.raw_orders"]
    assert raw.columns == ("order_id", "customer_id", "amount", "status", "_source_file")
    assert edges_of(raw, "amount") == {("landing.orders.amount", "direct", "identity")}
    assert raw.problem is None


def test_a_cte_and_a_join(lineage):
    orders = lineage["shop.silver.orders"]
    join = {("bronze.raw_orders.customer_id", "indirect", "join"), ("bronze.raw_customers.id", "indirect", "join")}
    assert edges_of(orders, "amount") == {("bronze.raw_orders.amount", "direct", "transformation")} | join
    assert edges_of(orders, "customer") == {("bronze.raw_customers.name", "direct", "identity")} | join
    assert edges_of(orders, "order_id") == {("bronze.raw_orders.order_id", "direct", "transformation")} | join


def test_an_aggregation_and_its_group_by(lineage):
    daily = lineage["shop.gold.daily_revenue"]
    assert edges_of(daily, "total") == {("silver.orders.amount", "direct", "aggregation"),
                                        ("silver.orders.status", "indirect", "group by")}
    assert edges_of(daily, "status") == {("silver.orders.status", "direct", "identity"),
                                         ("silver.orders.status", "indirect", "group by")}


def test_a_filter_reaches_every_output_column(lineage):
    big = lineage["shop.gold.big_orders"]
    assert edges_of(big, "customer") == {("silver.orders.customer", "direct", "identity"),
                                         ("silver.orders.amount", "indirect", "filter")}
    assert edges_of(big, "order_id") == {("silver.orders.order_id", "direct", "identity"),
                                         ("silver.orders.amount", "indirect", "filter")}


def test_a_window_and_a_condition(lineage):
    ranked = lineage["shop.gold.ranked"]
    assert edges_of(ranked, "rank_in_customer") == {("silver.orders.customer", "indirect", "window"),
                                                    ("silver.orders.amount", "indirect", "window")}
    assert edges_of(ranked, "paid_amount") == {("silver.orders.amount", "direct", "transformation"),
                                               ("silver.orders.status", "indirect", "condition")}


def test_a_query_that_cannot_be_read_marks_its_columns_unknown_with_the_cause(tmp_path):
    project = write_project(tmp_path, {"bronze/raw_orders": "SELECT nope FROM {{ landing_zone('orders') }}"})
    raw = lineage_service(project).pipelines()["shop.bronze.raw_orders"]
    assert "shop/pipelines/bronze/raw_orders/pipeline.sql" in raw.problem
    assert "nope" in raw.problem


def test_select_star_over_files_that_renamed_a_column_has_every_file_s_columns(tmp_path):
    """Found by a new user: a later JSON file renamed `user` to `username`; the run's union holds both, but lineage
    took the zone's columns from its first file, and `validate` warned that the query dropped `username`."""
    project = write_project(tmp_path, {"bronze/raw_orders": "SELECT * FROM {{ landing_zone('orders') }}"})
    zone = tmp_path / "shop" / "landing" / "orders"
    (zone / "orders.csv").unlink()
    (zone / "mon.jsonl").write_text('{"id": 1, "user": "ada"}\n')
    (zone / "tue.jsonl").write_text('{"id": 2, "username": "bob", "score": 3}\n')
    raw = lineage_service(project).pipelines()["shop.bronze.raw_orders"]
    assert raw.columns == ("id", "user", "username", "score", "_source_file")
