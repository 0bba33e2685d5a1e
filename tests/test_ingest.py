"""Loading landing files: types from a bounded sample (as a full pass would give them), a value that
does not fit fails the run, and write-once strategies report their rows from the snapshot."""
from __future__ import annotations

import pytest

from rat_tui.core.landing import schema as sampling
from tests.lakehelpers import Scratch, copy_sample_namespace

pytestmark = pytest.mark.spark


def test_sampled_types_equal_a_full_pass_on_the_sample_data(scratch: Scratch):
    copy_sample_namespace(scratch)
    files = sorted((scratch.root / "landing" / "orders").glob("orders_*.csv"))
    with scratch.wb.spark.using() as spark:
        full = spark.read.options(header=True, inferSchema=True).csv([str(f) for f in files]).schema
        assert sampling.sampled_csv_schema(spark, files) == full
        assert sampling.sampled_csv_schema(spark, files[:1]) == spark.read.options(
            header=True, inferSchema=True).csv(str(files[0])).schema


def test_a_value_past_the_sample_that_does_not_fit_fails_the_run(scratch: Scratch, monkeypatch):
    monkeypatch.setattr(sampling, "SAMPLE_BYTES_PER_FILE", 64)
    scratch.landing("late", "a.csv", "id,amount\n" + "".join(f"{i},{i * 2}\n" for i in range(50)) + "51,abc\n")
    fqn = scratch.pipeline("bronze", "late", "SELECT * FROM {{ landing_zone('late') }}")
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert run["error"].startswith(f"{scratch.ns}/pipelines/bronze/late/pipeline.sql") and "query failed" in run["error"]
    assert "abc" in run["error"] or "Malformed" in run["error"]
    assert not scratch.table_exists("bronze", "late")


def test_write_once_strategies_count_rows_from_the_snapshot(scratch: Scratch):
    scratch.landing("once", "a.csv", "id,name\n1,a\n2,b\n3,c\n")
    full = scratch.pipeline("bronze", "full", "SELECT * FROM {{ landing_zone('once') }}")
    appended = scratch.pipeline("bronze", "app", "-- @merge_strategy: append_only\nSELECT * FROM {{ landing_zone('once') }}")
    for fqn in (full, appended, appended):
        run = scratch.run(fqn)
        assert run["status"] == "success" and run["rows_written"] == 3
    assert scratch.rows(f"SELECT COUNT(*) FROM {appended}") == [[6]]
    assert scratch.rows(f"SELECT id, name FROM {full} ORDER BY id") == [[1, "a"], [2, "b"], [3, "c"]]


def test_keyed_first_load_and_a_batch_with_duplicate_keys(scratch: Scratch):
    header = "-- @merge_strategy: incremental\n-- @unique_key: id\n"
    fqn = scratch.pipeline("silver", "keyed", header + "SELECT * FROM VALUES (1, 'a'), (2, 'b') AS v(id, v)")
    assert scratch.run(fqn)["rows_written"] == 2  # first load: appended, nothing to delete
    scratch.pipeline("silver", "keyed", header + "SELECT * FROM VALUES (2, 'x'), (3, 'c'), (2, 'y') AS v(id, v)")
    assert scratch.run(fqn)["status"] == "success"
    assert scratch.rows(f"SELECT id, v FROM {fqn} ORDER BY id") == [[1, "a"], [2, "y"], [3, "c"]]  # last row wins
