"""Which type changes plan_schema lets through, and how names match, without a Spark session."""
from __future__ import annotations

import pytest
from pyspark.sql.types import (
    DateType,
    DecimalType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from rat_tui.core.run.schema_evolution import plan_schema


def schema(**types) -> StructType:
    return StructType([StructField(name, kind) for name, kind in types.items()])


@pytest.mark.parametrize(("table", "result"), [
    (IntegerType(), LongType()),  # a bigint into an int column could overflow: the table widens instead
    (LongType(), IntegerType()),
    (DecimalType(10, 2), DecimalType(5, 2)),
    (DoubleType(), IntegerType()),  # a file whose prices are all whole numbers, into a double column
    (DecimalType(12, 2), IntegerType()),  # 10 digits fit in 12 - 2
    (DoubleType(), LongType()),  # a JSON file's whole numbers; one past 2^53 fails the write (align)
], ids=["widened", "narrower", "narrower-decimal", "int-into-double", "int-into-decimal", "bigint-into-double"])
def test_fitting_types_are_no_incompatible_change(table, result):
    plan = plan_schema(schema(x=table), schema(x=result))
    assert not plan.incompatible and not plan.added and not plan.missing


@pytest.mark.parametrize(("table", "result"), [
    (LongType(), DoubleType()),  # 2^53 + 1 has no double
    (DecimalType(10, 2), IntegerType()),  # 10 digits do not fit in 10 - 2
    (DecimalType(10, 2), DecimalType(10, 3)),  # another scale rounds
    (IntegerType(), StringType()),
    (TimestampType(), DateType()),  # a date's instant depends on the session's time zone
    (DateType(), TimestampType()),
], ids=str)
def test_lossy_types_stay_incompatible(table, result):
    assert plan_schema(schema(x=table), schema(x=result)).incompatible == [("x", table, result)]


def test_names_match_case_insensitively_unless_the_session_is_case_sensitive():
    table, result = schema(id=LongType(), name=StringType()), schema(ID=IntegerType(), name=StringType())
    plan = plan_schema(table, result)
    assert (plan.renamed, plan.narrower, plan.added, plan.missing) == ([("ID", "id")], [("id", LongType())], [], [])
    strict = plan_schema(table, result, case_sensitive=True)
    assert (strict.renamed, strict.added, strict.missing) == ([], [("ID", IntegerType())], [("id", LongType())])
