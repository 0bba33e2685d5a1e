# @merge_strategy: append_only
# @description: Click-stream events from JSON lines, with the page flattened out
from pyspark.sql import functions as F


def run(spark, ctx):
    events = ctx.landing_zone("events")
    ctx.log(f"reading events for {ctx.this}")
    return events.select(
        F.col("event_id").cast("bigint").alias("event_id"),
        F.col("customer_id").cast("bigint").alias("customer_id"),
        F.col("event_type"),
        F.to_timestamp("ts").alias("event_ts"),
        F.col("properties.page").alias("page"),
    )
