"""The statement that joins a run's intervals: a partitioned pipeline whose start lay three years back (993 daily
intervals) failed every plain run with java.lang.StackOverflowError, parsing a flat chain of UNION ALLs."""
from __future__ import annotations

from rat_tui.core.run.intervals import union_all


def test_a_thousand_intervals_make_one_statement_spark_can_read(lake):
    spark = lake.spark.session()
    views = [f"interval_union_{number}" for number in range(1100)]
    for number, view in enumerate(views):
        spark.sql(f"SELECT {number} AS x").createOrReplaceTempView(view)
    try:
        assert spark.sql(union_all(views)).columns == ["x"]  # parsed and analysed: the flat chain overflowed here
        assert spark.sql(union_all(views[:7])).selectExpr("sum(x)").first()[0] == sum(range(7))
    finally:
        for view in views:
            spark.catalog.dropTempView(view)
