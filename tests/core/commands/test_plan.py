"""The runs service plans a selection (the TUI's run keys ask it, then run the plan): no Spark."""
from __future__ import annotations

from pathlib import Path

import pytest

from rat_tui.core.compose import open_project
from rat_tui.core.errors import RatError

ORDERS, CLEAN, CUSTOMERS = "ecommerce.bronze.raw_orders", "ecommerce.silver.clean_orders", "ecommerce.silver.dim_customers"
VALUE, REVENUE, MONTHLY = "analytics.gold.customer_value", "ecommerce.gold.daily_revenue", "ecommerce.gold.monthly_orders"


def test_the_runs_service_plans_a_selector_a_list_and_a_build_in_dependency_order(sample_copy: Path):
    wb = open_project(sample_copy)
    try:
        assert wb.runs.plan(f"{ORDERS}+") == [ORDERS, CLEAN, CUSTOMERS, VALUE, REVENUE, MONTHLY]
        assert wb.runs.plan(f"+{VALUE}") == [ORDERS, CLEAN, VALUE]
        assert wb.runs.plan(names=[REVENUE, ORDERS, CLEAN]) == [ORDERS, CLEAN, REVENUE]
        assert wb.runs.plan() == ["ecommerce.bronze.raw_events", ORDERS, "ecommerce.bronze.raw_products", CLEAN,
                                  CUSTOMERS, VALUE, REVENUE, MONTHLY]
    finally:
        wb.close()


def test_a_build_given_a_selector_says_to_run_it(sample_copy: Path):
    """`build 'x+'` said only `no pipelines in namespace x+`: build takes namespaces, a selector goes to run."""
    wb = open_project(sample_copy)
    try:
        with pytest.raises(RatError) as caught:
            wb.runs.build([f"{ORDERS}+"])
        assert caught.value.sentence() == (
            f"no pipelines in namespace {ORDERS}+ (namespaces: analytics, ecommerce); build takes namespaces: run a "
            f"selector with run '{ORDERS}+'")
    finally:
        wb.close()
