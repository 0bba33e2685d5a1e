"""The runs service plans a selection (the TUI's run keys ask it, then run the plan): no Spark."""
from __future__ import annotations

from pathlib import Path

from rat_tui.core.compose import open_project

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
