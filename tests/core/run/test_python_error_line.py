"""A Python pipeline's error names the line that spells the bad name, not the first line of the
statement or call that spans several lines."""
from __future__ import annotations

import pytest

from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark

PIPELINE = '''\
def run(spark, ctx):
    orders = spark.sql("SELECT id AS order_id, 'new' AS status FROM range(3)")
    return orders.select(
        "order_id",
        "stauts",
    )
'''
CHAINED = '''\
from pyspark.sql import functions as F


def run(spark, ctx):
    return (
        spark.range(3)
        .withColumnRenamed("id", "order_id")
        .where("order_id > 0")
        .withColumn("late",
                    F.col("order_id") > 1)
        .withColumn("amount",
                    F.col("order_id")
                    * F.col("qty"))
    )
'''


@pytest.mark.parametrize("source, name, line", [(PIPELINE, "stauts", 5), (CHAINED, "qty", 13)])
def test_the_error_points_at_the_line_with_the_bad_column(scratch: Scratch, source: str, name: str, line: int):
    fqn = scratch.pipeline("bronze", "lines", source, filename="pipeline.py")
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert f"{scratch.ns}/pipelines/bronze/lines/pipeline.py:{line}: AnalysisException in run():" in run["error"]
    assert f"`{name}`" in run["error"]
