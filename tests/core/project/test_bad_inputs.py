"""Every broken input gives one clear message naming the file (and line), exit status 1, no traceback."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rat_tui.core.compose import open_project
from tests.bad_inputs import BAD_RESULTS, VALIDATE_CASES
from tests.helpers import script
from tests.lakehelpers import Scratch, disk_state


def test_the_corpus_is_large_enough():
    assert len(VALIDATE_CASES) + len(RUN_CASES) >= 50


@pytest.mark.parametrize("case", VALIDATE_CASES, ids=[c[0] for c in VALIDATE_CASES])
def test_validate_reports_the_broken_input(tmp_path: Path, case):
    _, files, path, line, fragment = case
    root = tmp_path / "project"
    root.mkdir()
    (root / "ns" / "pipelines").mkdir(parents=True)
    for relpath, content in files.items():
        target = root / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)
    status, results = script(open_project(root), "validate\n")
    assert status == 1 and results[0]["ok"] is False
    errors = [p for p in results[0]["problems"] if p["severity"] == "error"]
    matching = [p for p in errors if p["path"] == path and fragment in p["message"]]
    assert matching, errors
    if line is not None:
        assert matching[0]["line"] == line
    assert "Traceback" not in json.dumps(results) and "internal error" not in json.dumps(results)


# Cases found when the pipeline runs (real Spark): (id, pipeline SQL, landing files, expected fragments)
RUN_CASES = [
    ("sql-unknown-column", "SELECT nope FROM range(1)", {}, ["pipeline.sql:1: SQL error", "`nope` cannot be resolved"]),
    ("sql-syntax", "SELECT 1 AS id\nFROM WHERE", {}, ["pipeline.sql:2: SQL error"]),
    ("undefined-variable", "SELECT {{ nothing }} AS id", {}, ["pipeline.sql:1: undefined template variable"]),
    ("ref-unknown-pipeline", "SELECT * FROM {{ ref('gold.never_ran') }}", {}, ["pipeline.sql:1: ref('gold.never_ran') names no pipeline"]),
    ("csv-ragged", "SELECT * FROM {{ landing_zone('z') }}", {"a.csv": "id,name\n1,a\n2\n3,c,extra\n"},
     ["pipeline.sql", "a.csv line 3 is not a well-formed record of 2 column(s) ('2')"]),
    ("csv-bad-number", "SELECT CAST(amount AS INT) AS amount FROM {{ landing_zone('z') }}", {"a.csv": "amount\n1\nabc\n"},
     ["pipeline.sql", "abc", "cannot be cast"]),
    ("empty-zone", "SELECT * FROM {{ landing_zone('z') }}", {"_samples/s.csv": "id\n1\n"}, ["landing/z has no files yet"]),
    ("mixed-formats", "SELECT * FROM {{ landing_zone('z') }}", {"a.csv": "id\n1\n", "b.json": '{"id": 2}\n'}, ["mixes file formats"]),
    ("division-by-zero", "SELECT 1 / 0 AS id", {}, ["pipeline.sql", "Division by zero"]),
    ("dangling-file", "SELECT * FROM {{ landing_zone('z') }}", {"gone.csv": None},
     ["pipeline.sql:1: cannot read landing zone", "Path does not exist"]),
]


@pytest.mark.spark
@pytest.mark.parametrize("case", RUN_CASES, ids=[c[0] for c in RUN_CASES])
def test_a_broken_run_fails_clearly_and_writes_nothing(scratch: Scratch, case):
    _, sql, landing, fragments = case
    for relpath, content in landing.items():
        if content is None:  # a file that vanished: a link to nowhere
            target = scratch.root / "landing" / "z" / relpath
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(scratch.root / "nowhere.csv")
        else:
            scratch.landing("z", relpath, content)
    fqn = scratch.pipeline("bronze", "broken", sql)
    status, results = script(scratch.wb, f"run {fqn}\n")
    assert status == 1 and results[0]["ok"] is False
    error = results[0]["error"]
    for fragment in fragments:
        assert fragment in error
    assert "Traceback" not in error and "internal error" not in error and len(error.splitlines()) == 1
    assert not scratch.table_exists("bronze", "broken")


@pytest.mark.spark
def test_a_quality_test_that_errors_names_its_file(scratch: Scratch):
    fqn = scratch.pipeline("silver", "q", "SELECT 1 AS id", tests={"broken": "SELECT nope FROM {{ this }}"})
    status, results = script(scratch.wb, f"run {fqn}\n")
    assert status == 1
    assert f"quality test broken could not run: {scratch.ns}/pipelines/silver/q/tests/quality/broken.sql:1:" in results[0]["error"]
    assert not scratch.table_exists("silver", "q")


@pytest.mark.spark
def test_a_landing_zone_that_disappears_mid_run(scratch: Scratch, monkeypatch: pytest.MonkeyPatch):
    import shutil

    from rat_tui.core.landing import zone_reader as zone_read

    scratch.landing("vanishing", "a.csv", "id\n1\n")
    fqn = scratch.pipeline("bronze", "v", "SELECT * FROM {{ landing_zone('vanishing') }}")
    real_read = zone_read.csv_frame

    def read_then_vanish(*args, **kwargs):
        df = real_read(*args, **kwargs)
        shutil.rmtree(scratch.root / "landing" / "vanishing")
        return df

    monkeypatch.setattr(zone_read, "csv_frame", read_then_vanish)
    status, results = script(scratch.wb, f"run {fqn}\n")
    assert status == 1 and "query failed" in results[0]["error"] and "pipeline.sql" in results[0]["error"]
    assert not scratch.table_exists("bronze", "v")


@pytest.mark.spark
@pytest.mark.parametrize("case", BAD_RESULTS, ids=[c[0] for c in BAD_RESULTS])
def test_a_result_no_table_can_hold_is_one_sentence(scratch: Scratch, case):
    _, sql, sentence = case
    fqn = scratch.pipeline("silver", "odd", sql)
    before = disk_state(scratch.root)
    for command in ("run", "preview"):
        status, results = script(scratch.wb, f"{command} {fqn}\n")
        assert status == 1
        assert results[0]["error"].endswith(f"{scratch.ns}/pipelines/silver/odd/pipeline.sql: {sentence}"), results[0]["error"]
    assert disk_state(scratch.root) == before and not scratch.table_exists("silver", "odd")


@pytest.mark.spark
def test_a_pipeline_that_refs_itself_is_refused_at_run_time(scratch: Scratch):
    fqn = scratch.pipeline("silver", "me", "SELECT 1 AS id")
    assert scratch.run(fqn)["status"] == "success"
    scratch.pipeline("silver", "me", "SELECT id + 1 AS id\nFROM {{ ref('silver.me') }}")
    scratch.pipeline("silver", "me_py", "def run(spark, ctx):\n    return ctx.ref('silver.me_py')\n", filename="pipeline.py")
    # The run branch of an existing table is made (and dropped) before the source is read, so
    # only the metadata folder changes: data files and main stay as they were.
    before, refs = without_metadata(disk_state(scratch.root)), scratch.refs(fqn)
    status, results = script(scratch.wb, f"run {fqn}\n")
    assert status == 1 and results[0]["run"]["error"] == (
        f"{scratch.ns}/pipelines/silver/me/pipeline.sql:2: ref('silver.me') is this pipeline's own table; "
        "use {{ this }} to read it")
    status, results = script(scratch.wb, f"run {scratch.ns}.silver.me_py\n")
    assert status == 1 and results[0]["run"]["error"] == (
        f"{scratch.ns}/pipelines/silver/me_py/pipeline.py:2: ref('silver.me_py') is this pipeline's own table; "
        "use {{ this }} to read it")
    assert without_metadata(disk_state(scratch.root)) == before and scratch.refs(fqn) == refs
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[1]]


def without_metadata(files: dict) -> dict:
    return {path: stat for path, stat in files.items() if "/metadata/" not in path}


@pytest.mark.spark
def test_tables_reports_the_rows_a_reader_sees_on_a_merge_on_read_table(scratch: Scratch):
    sql = "-- @merge_strategy: incremental\n-- @unique_key: id\nSELECT 1 AS id, '{v}' AS v\n"
    fqn = scratch.pipeline("silver", "mor", sql.format(v="a"))
    assert scratch.run(fqn)["status"] == "success"
    scratch.pipeline("silver", "mor", sql.format(v="b"))  # the same key again: one row deleted, one added
    assert scratch.run(fqn)["status"] == "success"
    status, results = script(scratch.wb, "tables\n")
    listed = next(t for t in results[0]["tables"] if t["name"] == fqn)
    assert listed["rows"] == len(scratch.rows(f"SELECT * FROM {fqn}")) == 1
