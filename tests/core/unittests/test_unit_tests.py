"""Pipeline unit tests in the core: strategies through the run's writers, bad files named by line,
Python pipelines, and nothing of the project's lake touched."""
from __future__ import annotations

import dataclasses
import glob
import shutil
import tempfile
import textwrap
from pathlib import Path

import pytest

from rat_tui.core.errors import RatError
from rat_tui.core.project.model import PipelineRef
from rat_tui.core.unittests.scratch import ScratchCatalog
from rat_tui.core.unittests.spec import parse_unit_test

pytestmark = pytest.mark.spark


@pytest.fixture(autouse=True)
def _no_tests_left(scratch):
    """The shared lake's `test` (no selector) must not meet this module's failing tests later."""
    yield
    for folder in scratch.root.glob("pipelines/*/*/tests/unit"):
        shutil.rmtree(folder)


def unit(scratch, fqn: str, name: str, text: str) -> None:
    ref = PipelineRef.parse(fqn)
    folder = scratch.wb.project.pipeline_dir(ref) / "tests" / "unit"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.yaml").write_text(textwrap.dedent(text).lstrip())


def results(scratch, fqn: str) -> dict[str, dict]:
    try:
        tests = scratch.wb.unit_tests.unit_test(fqn).as_dict()["tests"]
    except RatError as exc:
        tests = exc.result.as_dict()["tests"]
    return {t["name"]: t for t in tests}


KEYED = """\
    -- @merge_strategy: {strategy}
    -- @unique_key: id
    SELECT CAST(id AS BIGINT) AS id, v FROM {{{{ ref('bronze.src') }}}}
"""


def test_each_strategy_writes_through_the_runs_writer(scratch):
    scratch.pipeline("bronze", "src", "-- @merge_strategy: full_refresh\nSELECT 1 AS id, 'a' AS v\n")
    this = "this: [{id: 1, v: old}, {id: 2, v: kept}]\n"
    given = "given:\n  - input: ref('bronze.src')\n    rows: [{id: 1, v: new}, {id: 3, v: added}]\n"
    after = {
        "incremental": "[{id: 1, v: new}, {id: 2, v: kept}, {id: 3, v: added}]",
        "delete_insert": "[{id: 1, v: new}, {id: 2, v: kept}, {id: 3, v: added}]",
        "append_only": "[{id: 1, v: old}, {id: 1, v: new}, {id: 2, v: kept}, {id: 3, v: added}]",
        "full_refresh": "[{id: 1, v: new}, {id: 3, v: added}]",
    }
    for strategy, rows in after.items():
        fqn = scratch.pipeline("silver", strategy, KEYED.format(strategy=strategy))
        unit(scratch, fqn, "after", given + this + f"expect:\n  table_after: {rows}\n")
        assert results(scratch, fqn)["after"]["status"] == "passed", (strategy, results(scratch, fqn))


def test_snapshot_replaces_only_the_partitions_it_sees(scratch):
    scratch.pipeline("bronze", "src", "-- @merge_strategy: full_refresh\nSELECT 1 AS id, 'a' AS v\n")
    fqn = scratch.pipeline("gold", "months", """\
        -- @merge_strategy: snapshot
        -- @partition_column: month
        SELECT month, COUNT(*) AS n FROM {{ ref('bronze.src') }} GROUP BY month
    """)
    unit(scratch, fqn, "months", """\
        given:
          - input: ref('bronze.src')
            rows: [{month: '2024-02'}, {month: '2024-02'}]
        this: [{month: '2024-01', n: 5}, {month: '2024-02', n: 1}]
        expect:
          table_after: [{month: '2024-01', n: 5}, {month: '2024-02', n: 2}]
    """)
    assert results(scratch, fqn)["months"]["status"] == "passed"


def test_a_failure_lists_missing_and_unexpected_rows_and_ordered_compares_positions(scratch):
    fqn = scratch.pipeline("bronze", "sorted", """\
        -- @merge_strategy: full_refresh
        SELECT CAST(n AS INT) AS n FROM {{ landing_zone('nums') }} ORDER BY n
    """)
    unit(scratch, fqn, "multiset", """\
        given: [{input: landing_zone('nums'), rows: [{n: '2'}, {n: '1'}]}]
        expect: {output: [{n: 2}, {n: 1}]}
    """)
    unit(scratch, fqn, "in_order", """\
        given: [{input: landing_zone('nums'), rows: [{n: '2'}, {n: '1'}]}]
        ordered: true
        expect: {output: [{n: 2}, {n: 1}]}
    """)
    unit(scratch, fqn, "wrong", """\
        given: [{input: landing_zone('nums'), rows: [{n: '2'}, {n: '1'}]}]
        expect: {output: [{n: 1}, {n: 3}]}
    """)
    found = results(scratch, fqn)
    assert found["multiset"]["status"] == "passed"
    assert (found["in_order"]["status"], found["in_order"]["missing"], found["in_order"]["unexpected"]) == (
        "failed", [{"n": 2}, {"n": 1}], [{"n": 1}, {"n": 2}])
    assert (found["wrong"]["missing"], found["wrong"]["unexpected"]) == ([{"n": 3}], [{"n": 2}])


def test_python_pipelines_read_the_given_rows_and_vars(scratch):
    fqn = scratch.pipeline("bronze", "py", """\
        # @merge_strategy: incremental
        # @unique_key: id
        # @watermark_column: ts
        from pyspark.sql import functions as F


        def run(spark, ctx):
            rows = ctx.landing_zone("feed").select(F.col("id").cast("bigint").alias("id"), F.to_timestamp("ts").alias("ts"))
            if ctx.is_incremental():
                rows = rows.filter(F.col("ts") > F.lit(ctx.watermark_value).cast("timestamp"))
            return rows
    """, filename="pipeline.py")
    unit(scratch, fqn, "watermark", """\
        given: [{input: landing_zone('feed'), rows: [{id: 1, ts: '2024-01-01 00:00:00'}, {id: 2, ts: '2024-01-03 00:00:00'}]}]
        vars: {is_incremental: true, watermark_value: '2024-01-02 00:00:00'}
        expect: {output: [{id: 2, ts: '2024-01-03 00:00:00'}]}
    """)
    unit(scratch, fqn, "from_this", """\
        given: [{input: landing_zone('feed'), rows: [{id: 1, ts: '2024-01-01 00:00:00'}, {id: 2, ts: '2024-01-03 00:00:00'}]}]
        this: [{id: 9, ts: '2024-01-02 00:00:00'}]
        expect:
          output: [{id: 2}]
          table_after: [{id: 9}, {id: 2}]
    """)
    found = results(scratch, fqn)
    assert {name: t["status"] for name, t in found.items()} == {"watermark": "passed", "from_this": "passed"}, found


@pytest.mark.parametrize("body, line, words", [
    ("given: [\n  {input: ref('bronze.src')\n", 3, "YAML error"),
    ("given:\n  - input: ref('bronze.nope')\n    rows: [{id: 1}]\nexpect: {output: []}\n", 2,
     "ref('bronze.nope') names no pipeline"),
    ("given:\n  - input: ref('bronze.src')\n    rows: [{id: 1}]\nexpect:\n  output:\n    - {id: 1}\n    - {idd: 2}\n",
     7, "column 'idd', which the pipeline does not produce"),
    ("given:\n  - input: ref('bronze.src')\n    rows: [{id: 1}]\nexpect:\n  output:\n    - {id: 1}\n    - {id: two}\n",
     7, "value 'two' of column 'id' does not cast to bigint"),
    ("given:\n  - input: ref('bronze.src')\n    rows: [{id: 1}]\nthis:\n  - {id: 1}\n  - {id: x}\n"
     "expect: {table_after: [{id: 1}]}\n", 6, "this: value 'x' of column 'id' does not cast to bigint"),
    ("given:\n  - input: ref('bronze.src')\n    rows: [{id: 1}]\nexpect:\n  table_after:\n    - {id: 1, v: 2}\n",
     6, "expect.table_after has column 'v', which the pipeline does not produce"),
    ("given:\n  - input: ref('bronze.src')\n    rows: [{id: 1}]\nexpect:\n  output: [{id: 1}]\nvars:\n  today: 1\n",
     7, "unknown var 'today'"),
], ids=["yaml", "unknown_ref", "unknown_column", "no_cast", "this_no_cast", "after_unknown_column", "unknown_var"])
def test_bad_files_give_one_sentence_with_file_and_line(scratch, body, line, words):
    scratch.pipeline("bronze", "src", "-- @merge_strategy: full_refresh\nSELECT 1 AS id\n")
    fqn = scratch.pipeline("silver", "t", "SELECT CAST(id AS BIGINT) AS id FROM {{ ref('bronze.src') }}\n")
    unit(scratch, fqn, "bad", body)
    test = results(scratch, fqn)["bad"]
    assert test["status"] == "error"
    assert test["error"].startswith(f"{scratch.ns}/pipelines/silver/t/tests/unit/bad.yaml:{line}: "), test["error"]
    assert words in test["error"]


def test_spec_errors_name_lines_without_spark():
    with pytest.raises(RatError, match=r"^x.yaml:2: unknown var 'today'"):
        parse_unit_test("expect: {output: []}\nvars: {today: 1}\n", "x.yaml", "a.b.c")


def test_the_projects_lake_is_never_touched(scratch):
    scratch.pipeline("bronze", "src", "-- @merge_strategy: full_refresh\nSELECT 1 AS id, 'a' AS v\n")
    fqn = scratch.pipeline("silver", "t", KEYED.format(strategy="incremental"))
    unit(scratch, fqn, "t", "given: [{input: ref('bronze.src'), rows: [{id: 1, v: a}]}]\n"
                            "this: [{id: 1, v: b}]\nexpect: {table_after: [{id: 1, v: a}]}\n")
    before = set(glob.glob(f"{tempfile.gettempdir()}/rat-unit-*"))
    assert results(scratch, fqn)["t"]["status"] == "passed"
    assert not (scratch.root / "warehouse").exists()
    assert scratch.wb.state.runs(fqn, limit=5) == []
    catalog = scratch.wb.unit_catalog.folder()
    assert list(catalog.iterdir()) == []  # the test's namespace in the scratch catalog is gone
    # One scratch catalog for the workbench, not one per test; it goes when the workbench closes.
    assert set(glob.glob(f"{tempfile.gettempdir()}/rat-unit-*")) - before <= {str(catalog)}


def test_the_scratch_catalog_goes_with_the_workbench():
    catalog = ScratchCatalog()
    folder = catalog.folder()
    assert folder.is_dir() and folder.parent == Path(tempfile.gettempdir()) and catalog.folder() == folder
    catalog.close()
    assert not folder.exists()


def test_unit_tests_before_build_stop_a_selection(scratch, monkeypatch):
    scratch.pipeline("bronze", "src", "-- @merge_strategy: full_refresh\nSELECT 1 AS id\n")
    fqn = scratch.pipeline("silver", "t", "SELECT CAST(id AS BIGINT) AS id FROM {{ ref('bronze.src') }}\n")
    unit(scratch, fqn, "wrong", "given: [{input: ref('bronze.src'), rows: [{id: 1}]}]\nexpect: {output: [{id: 2}]}\n")
    project = scratch.wb.project
    monkeypatch.setattr(project, "settings", dataclasses.replace(project.settings, unit_tests_before_build=True))
    with pytest.raises(RatError, match="1 of 1 unit test"):
        scratch.wb.runs.run(f"+{fqn}")
    assert scratch.wb.state.runs(fqn, limit=5) == []


def test_a_table_after_unit_test_runs_few_spark_jobs(scratch):
    """Each Spark job is a fixed cost every unit test pays (20 tests should take seconds): counted, never
    timed. The result is materialised and counted in one job; the write is the run's own merge."""
    scratch.pipeline("bronze", "src", "-- @merge_strategy: full_refresh\nSELECT 1 AS id, 'a' AS v\n")
    fqn = scratch.pipeline("silver", "upper", KEYED.format(strategy="incremental").replace("v FROM", "UPPER(v) AS v FROM"))
    unit(scratch, fqn, "after", """\
        given: [{input: ref('bronze.src'), rows: [{id: 1, v: new}]}]
        this: [{id: 1, v: OLD}, {id: 2, v: KEPT}]
        expect: {table_after: [{id: 1, v: NEW}, {id: 2, v: KEPT}]}
        """)
    assert results(scratch, fqn)["after"]["status"] == "passed"  # warm: the first pass plans every query once
    dag = scratch.wb.spark.session().sparkContext._jsc.sc().dagScheduler()
    before = dag.numTotalJobs()

    assert results(scratch, fqn)["after"]["status"] == "passed"

    assert dag.numTotalJobs() - before == JOBS_OF_A_TABLE_AFTER_TEST


# `this` written (1), the result materialised and counted (1), the batch's NULLs and its keys collected (1),
# the DELETE naming those keys (none here: each of `this`'s rows is a file of its own, so Iceberg drops the
# file from its metadata; a MERGE against the batch was 2 jobs, the broadcast of its keys and the join), the
# append (1), the table read back (1)
JOBS_OF_A_TABLE_AFTER_TEST = 5


def test_a_given_inputs_text_takes_its_tables_types_so_a_written_fixture_runs(scratch):
    """Found by a new user: `U` wrote a decimal input as text ('10.00'); the test then failed on `amount > 0`
    ('10.00' cast to BIGINT). A ref input's text is cast to the built table's types; a value that does not
    cast names its line."""
    src = scratch.pipeline("bronze", "priced", "SELECT 1 AS id, CAST(10.55 AS DECIMAL(10, 2)) AS amount")
    assert scratch.run(src)["status"] == "success"
    fqn = scratch.pipeline("silver", "doubled", "SELECT id, amount * 2 AS twice FROM {{ ref('bronze.priced') }} "
                                                "WHERE amount > 0")
    unit(scratch, fqn, "decimals", """\
        given:
          - input: ref('bronze.priced')
            rows: [{id: 1, amount: '10.00'}, {id: 2, amount: '0.00'}]
        expect:
          output: [{id: 1, twice: '20.00'}]
        """)
    unit(scratch, fqn, "not_a_number", """\
        given:
          - input: ref('bronze.priced')
            rows:
              - {id: 1, amount: 'ten'}
        expect:
          output: []
        """)
    found = results(scratch, fqn)
    assert found["decimals"]["status"] == "passed", found["decimals"]
    assert found["not_a_number"]["status"] == "error"
    assert found["not_a_number"]["error"].endswith(
        "given ref('bronze.priced'): value 'ten' of column 'amount' does not cast to decimal(10,2)"), found
    assert "not_a_number.yaml:4" in found["not_a_number"]["error"]


def test_a_partitioned_pipelines_test_builds_the_interval_its_vars_name_and_test_fixture_writes_one(scratch):
    """Found by a new user: `test-fixture` on a partitioned pipeline failed ('interval_start' is undefined), and
    so did any unit test of one: a unit test built the pipeline with no interval."""
    from tests.intervalhelpers import last_three_days

    from datetime import timedelta

    start, fqn = last_three_days(scratch)
    day, next_day = start.isoformat(), (start + timedelta(days=1)).isoformat()
    unit(scratch, fqn, "one_day", f"""\
        given:
          - input: ref('bronze.src')
            rows:
              - {{id: 1, order_date: '{day}', amount: 1.5}}
              - {{id: 2, order_date: '{next_day}', amount: 2.5}}
        vars: {{interval_start: '{day}'}}
        expect:
          output: [{{id: 1, amount: 1.5, built_for: '{day}'}}]
          table_after: [{{id: 1, amount: 1.5, built_for: '{day}'}}]
        """)
    unit(scratch, fqn, "no_interval", """\
        given:
          - input: ref('bronze.src')
            rows: [{id: 1, order_date: '2024-01-01', amount: 1.0}]
        expect:
          output: []
        """)
    found = results(scratch, fqn)
    assert found["one_day"]["status"] == "passed", found["one_day"]
    assert found["no_interval"]["status"] == "error"
    assert "builds one interval at a time: say which in vars" in found["no_interval"]["error"], found["no_interval"]

    written = scratch.wb.unit_tests.unit_fixture(fqn)
    text = (scratch.wb.project.root / written.path).read_text()
    assert "interval_start:" in text, text
    assert written.test.status == "passed", written.test
    assert written.output_rows > 0, text
