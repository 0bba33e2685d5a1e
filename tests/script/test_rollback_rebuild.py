"""A table rolled back with `--rebuild`: every table downstream of it equals, row for row, a fresh
build from the rolled-back table (issue 27, item 2). Driven through `rat-tui --script`, as a user
scripts it: the sample is built, more orders land (new ones, an order updated, a customer who
moved), the build runs again, and the bronze table goes back to its first snapshot."""
from __future__ import annotations

from pathlib import Path

import pytest

from devkit.sample import copy_sample
from tests.helpers import run_script_here

pytestmark = pytest.mark.spark

RAW = "ecommerce.bronze.raw_orders"
HEADER = "order_id,customer_id,customer_name,customer_city,product_id,quantity,amount,status,order_date,updated_at\n"
# 50 new orders, order 5 updated (a return), and customer 7 moving to Oslo: every strategy downstream
# (incremental merge, scd2, snapshot, full refresh) gains something the rollback must take away.
MORE_ORDERS = HEADER + "".join(
    f"{n},{7 if n % 10 == 0 else n % 60 + 1},Ana Silva,{'Oslo' if n % 10 == 0 else 'Lisbon'},{n % 40 + 1},2,"
    f"{n / 10:.2f},placed,2024-04-{n % 28 + 1:02d},2024-04-{n % 28 + 1:02d} 10:00:00\n" for n in range(301, 351)
) + "5,1,Ana Silva,Lisbon,3,1,9.99,returned,2024-01-05,2024-04-30 12:00:00\n"

# each downstream table, without the scd2 validity times (they are when a run ran, never equal)
TABLES = {
    "ecommerce.silver.clean_orders": "SELECT * FROM ecommerce.silver.clean_orders ORDER BY order_id",
    "ecommerce.silver.dim_customers": "SELECT customer_id, customer_name, customer_city, valid_to IS NULL AS current "
                                      "FROM ecommerce.silver.dim_customers ORDER BY 1, 4, 3",
    "ecommerce.gold.daily_revenue": "SELECT * FROM ecommerce.gold.daily_revenue ORDER BY order_date",
    "ecommerce.gold.monthly_orders": "SELECT * FROM ecommerce.gold.monthly_orders ORDER BY month, status",
    "analytics.gold.customer_value": "SELECT * FROM analytics.gold.customer_value ORDER BY customer_id",
}
QUERIES = "".join(f"query {sql}\n" for sql in TABLES.values())


def run_ok(project: Path, script: str) -> list[dict]:
    status, results, stderr = run_script_here(project, script)
    assert status == 0, ([r for r in results if not r["ok"]], stderr[-3000:])
    return results


def test_rollback_with_rebuild_equals_a_fresh_build(sample_copy: Path, tmp_path: Path):
    build = run_ok(sample_copy, "build\n")[0]["runs"]
    first = next(r["snapshot_id"] for r in build if r["pipeline"] == RAW)
    (sample_copy / "ecommerce" / "landing" / "orders" / "orders_2024_04.csv").write_text(MORE_ORDERS)
    results = run_ok(sample_copy, f"build\n{QUERIES}rollback-table {RAW} {first} --rebuild\n{QUERIES}")
    before_rollback = [r["rows"] for r in results[1:6]]
    rollback, after = results[6], [r["rows"] for r in results[7:12]]
    assert rollback["snapshot_id"] == first
    assert sorted(rollback["stale_downstream"]) == sorted(TABLES)
    assert sorted(r["pipeline"] for r in rollback["runs"]) == sorted(TABLES)
    assert all(r["status"] == "success" for r in rollback["runs"]), rollback["runs"]

    fresh = run_ok(copy_sample(tmp_path / "fresh"), f"build\n{QUERIES}")
    for name, rebuilt, built, old in zip(TABLES, after, [r["rows"] for r in fresh[1:6]], before_rollback):
        assert rebuilt == built, name
        assert old != built, f"{name}: the added orders never reached it, so this test proves nothing"
