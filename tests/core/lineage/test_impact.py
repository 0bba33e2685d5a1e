"""What a change of columns breaks downstream: the sentence, in validate (warning or failure by
`@breaks_downstream`), without Spark."""
from __future__ import annotations

import pytest

from rat_tui.core.compose import open_project
from rat_tui.core.errors import RatError
from rat_tui.core.lineage.impact import ColumnChange, changes_between

from .lineage_project import PIPELINES, col, lineage_service, write_project, write_table_schema

ORDERS = {"order_id": "long", "amount": "double", "customer": "string", "status": "string"}
WITHOUT_AMOUNT = """
SELECT CAST(order_id AS BIGINT) AS order_id, c.name AS customer, t.status
FROM {{ ref('bronze.raw_orders') }} t JOIN {{ ref('bronze.raw_customers') }} c ON t.customer_id = c.id"""


def test_changes_between_two_schemas():
    assert changes_between({"a": "long", "b": "string"}, {"a": "string", "c": "string"}) == [
        ColumnChange("b", "renamed", "now `c`"), ColumnChange("a", "retyped", "long → string")]
    assert changes_between({"a": "long", "b": "string"}, {"b": ""}) == [ColumnChange("a", "dropped")]
    # A promotion either way breaks no reader: a run writes the values into the table's type (a new user's
    # validate warned "retyping `order_id` (int → long) breaks …" on every run)
    assert changes_between({"a": "int", "b": "decimal(10, 2)", "c": "double"},
                           {"a": "long", "b": "decimal(20, 2)", "c": "float"}) == []
    assert changes_between({"a": "decimal(10, 2)"}, {"a": "decimal(10, 3)"}) == [
        ColumnChange("a", "retyped", "decimal(10, 2) → decimal(10, 3)")]


def test_the_sentence_names_direct_columns_and_indirect_uses(tmp_path):
    service = lineage_service(write_project(tmp_path))
    [impact] = service.run_impacts("shop.silver.orders", ORDERS, {c: t for c, t in ORDERS.items() if c != "amount"})
    assert impact.sentence() == ("dropping `amount` breaks `gold.daily_revenue.total` (direct), "
                                 "`gold.ranked.paid_amount` (direct), the filter of `gold.big_orders` (indirect) "
                                 "and the window of `gold.ranked` (indirect)")


@pytest.fixture
def dropped_amount(tmp_path):
    project = write_project(tmp_path, {**PIPELINES, "silver/orders": WITHOUT_AMOUNT})
    write_table_schema(project, "shop.silver.orders", ORDERS)  # as the last run left it: with amount
    return tmp_path


def breaking_problem(root) -> dict:
    """The one problem `validate` reports about what a change breaks downstream."""
    wb = open_project(root)
    try:
        problems = wb.browse.validate().as_dict()["problems"]
    finally:
        wb.close()
    [problem] = [p for p in problems if "breaks" in p["message"]]
    return problem


def test_validate_warns_before_any_run(dropped_amount):
    problem = breaking_problem(dropped_amount)
    assert problem["path"] == "shop/pipelines/silver/orders/pipeline.sql"
    assert problem["severity"] == "warning"
    assert problem["message"].startswith("dropping `amount` breaks `gold.daily_revenue.total` (direct)")


def test_validate_fails_under_the_gate(dropped_amount):
    sql = dropped_amount / "shop/pipelines/silver/orders/pipeline.sql"
    sql.write_text("-- @breaks_downstream: fail\n" + sql.read_text())
    wb = open_project(dropped_amount)
    try:
        with pytest.raises(RatError) as caught:
            wb.browse.validate()
    finally:
        wb.close()
    assert "shop/pipelines/silver/orders/pipeline.sql: dropping `amount` breaks" in caught.value.sentence()



def test_a_python_reader_not_run_yet_is_named_as_perhaps_broken(tmp_path):
    python = "def run(spark, ctx):\n    return ctx.ref('silver.orders')\n"
    service = lineage_service(write_project(tmp_path, {**PIPELINES, "gold/by_python": python}))
    write_table_schema(service.project, "shop.gold.by_python", {"order_id": "long"})
    [impact] = service.run_impacts("shop.silver.orders", ORDERS, {c: t for c, t in ORDERS.items() if c != "customer"})
    assert impact.sentence() == ("dropping `customer` breaks `gold.big_orders.customer` (direct), the window of "
                                 "`gold.ranked` (indirect) and perhaps `gold.by_python` (unknown)")


def test_a_ref_cycle_elsewhere_leaves_every_other_pipeline_its_lineage(tmp_path):
    """A cycle in one namespace (which validate names) made lineage raise `cyclic ref` for the whole project, so
    every run, review and lineage query of the shared project failed after it."""
    project = write_project(tmp_path)
    for name, other in (("a", "b"), ("b", "a")):
        folder = tmp_path / "loop" / "pipelines" / "silver" / name
        folder.mkdir(parents=True)
        (folder / "pipeline.sql").write_text(f"SELECT * FROM {{{{ ref('silver.{other}') }}}}\n")
    lineages = lineage_service(project).pipelines()
    assert "shop.gold.daily_revenue" in lineages and "loop.silver.a" not in lineages


def test_a_dangling_file_in_a_zone_leaves_every_pipeline_its_lineage(tmp_path):
    """A zone holding a symlink to a deleted file (listed, but no stat) raised FileNotFoundError out of lineage,
    failing every later review and validate of the shared project (found by the full suite)."""
    project = write_project(tmp_path)
    zone = tmp_path / "shop" / "landing" / "orders"
    for path in zone.iterdir():
        path.unlink()
    (zone / "a_gone.csv").symlink_to(tmp_path / "nowhere.csv")
    lineages = lineage_service(project).pipelines()
    assert lineages["shop.bronze.raw_orders"].columns == ()
    assert "shop.silver.orders" in lineages


def test_validate_reports_a_retype_the_query_states_with_a_cast(tmp_path):
    retyped = """
SELECT CAST(order_id AS BIGINT) AS order_id, CAST(t.amount AS STRING) AS amount, c.name AS customer, t.status
FROM {{ ref('bronze.raw_orders') }} t JOIN {{ ref('bronze.raw_customers') }} c ON t.customer_id = c.id"""
    project = write_project(tmp_path, {**PIPELINES, "silver/orders": retyped})
    write_table_schema(project, "shop.silver.orders", ORDERS)  # amount is a double in the table
    problem = breaking_problem(tmp_path)
    assert problem["path"] == "shop/pipelines/silver/orders/pipeline.sql"
    assert problem["message"].startswith("retyping `amount` (double → string) breaks `gold.daily_revenue.total` "
                                         "(direct)")


def test_cast_types_names_what_the_iceberg_table_would_hold():
    from rat_tui.core.lineage.cast_types import cast_types

    assert cast_types("SELECT CAST(a AS BIGINT) AS a, b::int AS b, CAST(c AS DECIMAL(5)) AS c, CAST(d AS TIMESTAMP) d,"
                      " e, upper(f) AS f FROM t") == {"a": "long", "b": "int", "c": "decimal(5, 0)", "d": "timestamptz"}
    assert cast_types("SELECT CAST(a AS INT) AS a FROM t UNION ALL SELECT 1") == {}  # the union's type is Spark's


def test_a_python_reader_never_run_is_named_too(tmp_path):
    """Found by a new user: a Python pipeline that never ran (no table, so no columns known) was left out of a
    column's downstream, which lineage.md says never happens silently."""
    python = "def run(spark, ctx):\n    return ctx.ref('silver.orders').groupBy('customer').count()\n"
    service = lineage_service(write_project(tmp_path, {**PIPELINES, "gold/by_python": python}))
    [impact] = service.run_impacts("shop.silver.orders", ORDERS, {c: t for c, t in ORDERS.items() if c != "customer"})
    assert impact.sentence().endswith("and perhaps `gold.by_python` (unknown)"), impact.sentence()
    down = service.trace(col("silver.orders.customer"), up=False, depth=1)
    assert "shop.gold.by_python" in {c.column.table for c in down.columns}
