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


def test_a_value_past_the_sample_that_does_not_fit_widens_its_column(scratch: Scratch, monkeypatch):
    """Issue 26 changed this on purpose: a full pass would read it (as a string), so the run does too."""
    monkeypatch.setattr(sampling, "SAMPLE_BYTES_PER_FILE", 64)
    scratch.landing("late", "a.csv", "id,amount\n" + "".join(f"{i},{i * 2}\n" for i in range(50)) + "51,abc\n")
    fqn = scratch.pipeline("bronze", "late", "SELECT * FROM {{ landing_zone('late') }}")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT amount FROM {fqn} WHERE id = 51") == [["abc"]]
    assert any("amount: int in the sample; 'abc' at a.csv line 52 → string" in n for n in run["landing_notes"])


def test_write_once_strategies_count_rows_from_the_snapshot(scratch: Scratch):
    scratch.landing("once", "a.csv", "id,name\n1,a\n2,b\n3,c\n")
    full = scratch.pipeline("bronze", "full", "SELECT * FROM {{ landing_zone('once') }}")
    appended = scratch.pipeline("bronze", "app", "-- @merge_strategy: append_only\nSELECT * FROM {{ landing_zone('once') }}")
    for fqn in (full, appended):
        run = scratch.run(fqn)
        assert run["status"] == "success" and run["rows_written"] == 3
    scratch.landing("once", "b.csv", "id,name\n4,d\n5,e\n6,f\n")  # append_only loads a.csv once
    run = scratch.run(appended)
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


def _build_rows(scratch: Scratch, run: dict) -> int | None:
    """What the build phase counted: None when the result was not materialised before its write."""
    return next(e["rows"] for e in scratch.wb.run_log.read(run["run_id"])
                if e["event"] == "PhaseFinished" and e["phase"] == "build_result")


@pytest.mark.parametrize("keys, latest", [
    ([1, 2, 1, 3, 2], {1: "c", 2: "e", 3: "d"}),  # integers in a small range: counted in bitmaps
    ([-1, 1, 0, 32768, -32768, 32769, -1], {-1: "g", 1: "b", 0: "c", 32768: "d", -32768: "e", 32769: "f"}),
    ([-5, 4_000_000_000, -5, 0], {-5: "c", 4_000_000_000: "b", 0: "d"}),  # too wide a range for bitmaps
    (["x", "y", "x"], {"x": "c", "y": "b"}),
    ([7, 8, 9], {7: "a", 8: "b", 9: "c"}),  # ids in their own order: proven unique without bitmaps
    ([1, 2, 2, 4], {1: "a", 2: "c", 4: "d"}),  # as many keys as the range is wide, one repeated
    ([3, 4, 1, 2], {3: "a", 4: "b", 1: "c", 2: "d"}),  # the range filled, out of order
])
def test_a_first_keyed_load_writes_once_and_the_last_row_of_a_duplicate_key_wins(scratch: Scratch, keys, latest):
    scratch.landing("dup", "a.csv", "id,v\n" + "".join(f"{k},{chr(97 + i)}\n" for i, k in enumerate(keys)))
    fqn = scratch.pipeline("silver", "dup", "-- @merge_strategy: incremental\n-- @unique_key: id\n"
                           "SELECT id, v FROM {{ landing_zone('dup') }}")
    run = scratch.run(fqn)
    assert run["status"] == "success" and run["rows_written"] == len(latest)
    assert _build_rows(scratch, run) is None
    assert sorted(scratch.rows(f"SELECT id, v FROM {fqn}")) == sorted([k, v] for k, v in latest.items())
    repeated = sorted((-keys.count(k), k) for k in set(keys) if keys.count(k) > 1)  # the most repeated first
    shown = ", ".join(f"id {k}: {-n} rows" for n, k in repeated[:3])
    assert [n["text"].split(": the last")[0].split("later row ")[-1] for n in run["notes"]
            if n["kind"] == "duplicate_keys"] == ([f"({shown})"] if repeated else [])
    # the first write, duplicates and all, is neither on main's history nor listed
    assert [s["added_rows"] for s in scratch.wb.tables.snapshots(fqn).as_dict()["snapshots"] if s["added_rows"]] == [len(latest)]


@pytest.mark.parametrize("strategy, key, nulls", [
    ("incremental", "id, line", 3),
    ("delete_insert", "id, line", 3),
    ("incremental", "id", 2),  # one integer key: NULLs and range come from the manifests' metrics
])
def test_a_first_keyed_load_with_null_keys_fails_as_before_and_main_is_untouched(
        scratch: Scratch, strategy: str, key: str, nulls: int):
    scratch.landing("nk", "a.csv", "id,line,v\n1,1,a\n2,2,b\n")
    fqn = scratch.pipeline("silver", "nk", f"-- @merge_strategy: {strategy}\n-- @unique_key: {key}\n"
                           "SELECT id, line, v FROM {{ landing_zone('nk') }}")
    assert scratch.run(fqn)["status"] == "success"
    main = scratch.refs(fqn)["main"]
    scratch.landing("nk", "a.csv", "id,line,v\n1,1,x\n,2,y\n3,,z\n,4,w\n")
    run = scratch.run(fqn, full_refresh=True)  # the target is emptied: a first load again
    assert run["status"] == "failed" and _build_rows(scratch, run) is None
    assert f"{nulls} row(s) of the result have NULL in the unique_key column(s) {key}" in run["error"]
    assert list(run["phases"])[-1] == "iceberg_write"
    assert scratch.refs(fqn) == {"main": main}
    assert scratch.rows(f"SELECT id, line, v FROM {fqn} ORDER BY id") == [[1, 1, "a"], [2, 2, "b"]]


def test_a_source_file_column_no_query_reads_costs_the_scan_nothing(scratch: Scratch):
    """`_metadata` stayed in the scan (a struct built per row, 5% of a 5M-row load) though unread."""
    from rat_tui.core.landing.file_read import read_zone

    scratch.landing("plan", "a.csv", "id\n1\n")
    zone_dir = scratch.root / "landing" / "plan"
    with scratch.wb.spark.using() as spark:
        df, source = read_zone(spark, zone_dir, "csv", [zone_dir / "a.csv"], scratch.wb.storage.landing_uri)
        df.select("*", source.alias("_source_file")).createOrReplaceTempView("plan_view")
        unread = spark.sql("SELECT id FROM plan_view")._jdf.queryExecution().executedPlan().toString()
        read = spark.sql("SELECT id, _source_file FROM plan_view")
        assert [tuple(r) for r in read.collect()] == [(1, "a.csv")]
    assert "file_path" not in unread and "input_file_name" not in unread and "_metadata" not in unread


@pytest.mark.parametrize("tasks, unique", [
    ([[1, 2, 3], [4, 5, 6]], True),
    ([[4, 5, 6], [1, 2, 3]], True),  # tasks in any order
    ([[1, 2, 3], [10, 11]], True),  # gaps between tasks
    ([[1, 2, 3], [3, 4, 5]], False),  # one key in two tasks
    ([[1, 2, 3], [2, 3]], False),  # a task inside another's range
    ([[1, 2, 4]], False),  # a gap inside a task: not proven (the bitmaps decide)
    ([[1, 2, 2]], False),
    ([[3, 2, 1]], False),
])
def test_keys_rising_by_one_per_row_in_disjoint_tasks_are_proven_unique(scratch: Scratch, tasks, unique):
    from rat_tui.core.run.strategies import rises_by_one_per_row

    with scratch.wb.spark.using() as spark:
        rdd = spark.sparkContext.parallelize(tasks, len(tasks)).flatMap(lambda task: [(k,) for k in task])
        assert rdd.glom().map(lambda rows: [r[0] for r in rows]).collect() == tasks  # one partition per task
        keys = spark.createDataFrame(rdd, "id BIGINT")
        assert rises_by_one_per_row(keys) is unique
