"""How many catalog loads and Spark statements a run makes: each one is a JVM round trip that a
small run pays in full (a warm 10k-row run spent more on them than on its write). Counted, never
timed, so a redundant lookup coming back fails here whatever the machine's load."""
from __future__ import annotations

import collections
import functools

import pytest

from rat_tui.core.lake.table import IcebergTable
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark


@pytest.fixture
def round_trips(monkeypatch: pytest.MonkeyPatch) -> collections.Counter:
    """Counts, by kind, the catalog loads and Spark statements made while the test runs."""
    from pyspark.sql import SparkSession
    from pyspark.sql.catalog import Catalog

    counts: collections.Counter = collections.Counter()

    def counting(owner, name: str, kind: str) -> None:
        original = getattr(owner, name)

        @functools.wraps(original)
        def counted(*args, **kwargs):
            counts[kind] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, counted)

    counting(IcebergTable, "_iceberg", "catalog load")
    counting(SparkSession, "sql", "statement")
    counting(SparkSession, "table", "statement")
    counting(Catalog, "tableExists", "statement")
    return counts


def test_a_full_refresh_run_on_an_existing_table_makes_few_round_trips(scratch: Scratch, round_trips):
    fqn = scratch.pipeline("silver", "orders", """
        -- @merge_strategy: full_refresh
        SELECT id, id % 7 AS customer_id FROM range(100)
        """)
    assert scratch.run(fqn)["status"] == "success"
    round_trips.clear()
    run = scratch.run(fqn)
    assert run["status"] == "success" and run["rows_written"] == 100
    # One load each: when the run starts (exists? where is main?), for the schema and unique key,
    # to make the branch, for the head it wrote, for the check that main did not move, for the
    # fast-forward, to drop the branch.
    assert round_trips["catalog load"] <= 7, round_trips
    # The query alone: the branch is made, fast-forwarded and dropped through the Java API.
    assert round_trips["statement"] <= 1, round_trips
