"""Java classes and static methods named without asking the JVM first.

py4j resolves `jvm.org.apache.iceberg.…` one package name at a time, a round trip to the JVM each,
before the call itself: a catalog load was 22 round trips, and a run makes three. Named by their full
name here, a class costs nothing and a static method one round trip: the call.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import Column, SparkSession


def java_class(spark: "SparkSession", name: str):  # -> py4j JavaClass
    """The class `name` (e.g. "java.lang.String"), for `new_array`; no round trip."""
    from py4j.java_gateway import JavaClass

    return JavaClass(name, spark.sparkContext._gateway._gateway_client)


def static_method(spark: "SparkSession", name: str):  # -> py4j JavaMember
    """The static method `name` (e.g. "org.apache.iceberg.util.PropertyUtil.propertiesWithPrefix"):
    calling it is one round trip (through `jvm.…` the package names cost one each, the member one more)."""
    from py4j import protocol
    from py4j.java_gateway import JavaMember

    owner, method = name.rsplit(".", 1)
    return JavaMember(method, None, protocol.STATIC_PREFIX + owner, spark.sparkContext._gateway._gateway_client)


def activate(spark: "SparkSession") -> None:
    """Make `spark` the active session of the calling thread's JVM thread. What Spark does outside a
    `withActive` block (its parser, the catalog manager) reads settings from that session, or, with none,
    from Spark's defaults: a cast parsed there was not ANSI, and read `1.234,50` as NULL."""
    static_method(spark, "org.apache.spark.sql.SparkSession.setActiveSession")(spark._jsparkSession)


def literal(spark: "SparkSession", value: object) -> "Column":
    """`functions.lit(value)` in one round trip. pyspark's `F.lit` first asks the JVM what `functions` is,
    by that short name (`r u functions`, then the member): in a run's thread, measured, 7 ms of a warm run."""
    from pyspark.sql import Column

    return Column(static_method(spark, "org.apache.spark.sql.functions.lit")(value))
