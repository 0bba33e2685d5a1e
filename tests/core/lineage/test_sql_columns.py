"""The walk over one query's scopes: pure sqlglot, no project, no Spark."""
from __future__ import annotations

import pytest

from rat_tui.core.lineage.sql_columns import LineageError, query_lineage

SCHEMAS = {"s.silver.orders": {"id": "", "amount": "", "status": "", "day": ""},
           "s.silver.refunds": {"order_id": "", "amount": "", "day": ""}}


def edges(sql: str, column: str) -> set[tuple[str, str, str]]:
    lineage = query_lineage(sql, "s.gold.t", SCHEMAS)
    return {(e.source.name.removeprefix("s.silver."), e.kind, e.via) for e in lineage.edges_into(column)}


def test_a_union_takes_each_branch_by_position():
    sql = "SELECT amount AS value FROM s.silver.orders UNION ALL SELECT -amount FROM s.silver.refunds WHERE day > '2024'"
    assert edges(sql, "value") == {("orders.amount", "direct", "identity"),
                                   ("refunds.amount", "direct", "transformation"),
                                   ("refunds.day", "indirect", "filter")}


def test_a_subquery_in_a_filter_is_an_indirect_input():
    sql = "SELECT id FROM s.silver.orders WHERE id NOT IN (SELECT order_id FROM s.silver.refunds)"
    assert edges(sql, "id") == {("orders.id", "direct", "identity"), ("orders.id", "indirect", "filter"),
                                ("refunds.order_id", "indirect", "filter")}


def test_sorting_by_an_output_alias_follows_the_alias():
    sql = "SELECT id, amount * 2 AS doubled FROM s.silver.orders ORDER BY doubled"
    assert edges(sql, "id") == {("orders.id", "direct", "identity"), ("orders.amount", "indirect", "sort")}


def test_a_cte_filter_and_an_outer_aggregation_compose():
    sql = ("WITH paid AS (SELECT * FROM s.silver.orders WHERE status = 'paid') "
           "SELECT day, SUM(amount) AS total FROM paid GROUP BY day")
    assert edges(sql, "total") == {("orders.amount", "direct", "aggregation"), ("orders.status", "indirect", "filter"),
                                   ("orders.day", "indirect", "group by")}


def test_a_statement_that_is_no_query_is_refused():
    with pytest.raises(LineageError, match="not one query"):
        query_lineage("DELETE FROM s.silver.orders", "s.gold.t", SCHEMAS)
