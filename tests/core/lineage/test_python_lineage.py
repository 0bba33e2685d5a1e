"""A Python pipeline's column lineage, from Spark's analyzed plan of the DataFrame it returned, kept
with its run and used by the project's lineage until its code changes."""
from __future__ import annotations

import pytest

from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark

TOTALS = """
from pyspark.sql import functions as F


def run(spark, ctx):
    orders = ctx.ref("bronze.orders")
    return orders.where(F.col("amount") > 0).groupBy("customer").agg(F.sum("amount").alias("total"))
"""
RANKED = """
from pyspark.sql import functions as F
from pyspark.sql.window import Window


def run(spark, ctx):
    by_customer = Window.partitionBy("customer").orderBy("id")
    return ctx.landing_zone("orders").select(
        "id", F.row_number().over(by_customer).alias("n"),
        F.when(F.col("amount") > 5, "big").otherwise("small").alias("size"))
"""


def edges_of(scratch: Scratch, fqn: str, column: str) -> set[tuple[str, str, str]]:
    lineage = scratch.wb.column_lineage.pipelines()[fqn]
    assert lineage.problem is None
    return {(e.source.name.removeprefix(f"{scratch.ns}."), e.kind, e.via) for e in lineage.edges_into(column)}


def test_a_python_pipeline_gets_its_edges_from_spark_plan(scratch: Scratch):
    scratch.landing("orders", "orders.csv", "id,customer,amount\n1,ada,10.5\n2,bob,3\n")
    bronze = scratch.pipeline("bronze", "orders", "SELECT * FROM {{ landing_zone('orders') }}")
    totals = scratch.pipeline("silver", "totals", TOTALS, filename="pipeline.py")
    ranked = scratch.pipeline("silver", "ranked", RANKED, filename="pipeline.py")
    before = scratch.wb.column_lineage.pipelines()[totals]
    assert before.problem.startswith("a Python pipeline's column lineage comes from its run")
    for fqn in (bronze, totals, ranked):
        assert scratch.run(fqn)["status"] == "success"
    assert edges_of(scratch, totals, "total") == {("bronze.orders.amount", "direct", "aggregation"),
                                                  ("bronze.orders.amount", "indirect", "filter"),
                                                  ("bronze.orders.customer", "indirect", "group by")}
    assert edges_of(scratch, totals, "customer") == {("bronze.orders.customer", "direct", "identity"),
                                                     ("bronze.orders.amount", "indirect", "filter"),
                                                     ("bronze.orders.customer", "indirect", "group by")}
    assert edges_of(scratch, ranked, "id") == {("landing.orders.id", "direct", "identity")}
    assert edges_of(scratch, ranked, "n") == {("landing.orders.customer", "indirect", "window"),
                                              ("landing.orders.id", "indirect", "window")}
    assert edges_of(scratch, ranked, "size") == {("landing.orders.amount", "indirect", "condition")}
    # new code: its lineage is unknown again until a run of it reads the plan
    scratch.pipeline("silver", "totals", TOTALS + "\n# changed\n", filename="pipeline.py")
    assert scratch.wb.column_lineage.pipelines()[totals].problem.startswith("a Python pipeline's column lineage")
