"""Landing files: any name the OS allows is read as it is; a file no run could read is refused
the same way by `upload` and by a run (and marked in the zone panel), and nothing is written."""
from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from rat_tui.core.commands.details import zone_files
from tests.bad_inputs import BAD_LANDING_FILES, EMPTY_LANDING_FILES, ODD_LANDING_NAMES
from tests.helpers import script
from tests.lakehelpers import Scratch, disk_state

pytestmark = pytest.mark.spark


def test_odd_file_names_are_read_archived_and_named_as_they_are(scratch: Scratch, tmp_path: Path):
    for i, name in enumerate(ODD_LANDING_NAMES[1:], start=1):
        scratch.landing("odd", name, f"id\n{i}\n")
    source = tmp_path / ODD_LANDING_NAMES[0]
    source.write_text("id\n0\n")
    fqn = scratch.pipeline("bronze", "odd", """
        -- @archive_landing_zones: true
        SELECT id, _source_file FROM {{ landing_zone('odd') }}""")
    status, results = script(scratch.wb, f"upload {scratch.ns} odd {shlex.quote(str(source))}\nsample {scratch.ns} odd {shlex.quote(source.name)}\nrun {fqn}\n")
    assert status == 0, results
    assert results[1]["rows"] == [[0]]
    rows = scratch.rows(f"SELECT id, _source_file FROM {fqn} ORDER BY id")
    assert rows == [[i, name] for i, name in enumerate(ODD_LANDING_NAMES)]
    run_id = results[2]["run"]["run_id"]
    archived = sorted(p.name for p in (scratch.root / "landing" / "odd" / "_processed" / run_id).iterdir())
    assert archived == sorted(ODD_LANDING_NAMES)


@pytest.mark.parametrize("case", BAD_LANDING_FILES, ids=[c[0] for c in BAD_LANDING_FILES])
def test_a_file_no_run_could_read_is_refused_by_upload_and_by_the_run(scratch: Scratch, tmp_path: Path, case):
    _, name, content, problem = case
    scratch.landing("z", "good.csv" if name.endswith(".csv") else "good.json",
                    "id\n1\n" if name.endswith(".csv") else '{"id": 1}\n')
    source = tmp_path / name
    source.write_bytes(content)
    before = disk_state(scratch.root)
    status, results = script(scratch.wb, f"upload {scratch.ns} z {shlex.quote(str(source))}\n")
    assert status == 1 and results[0]["error"] == f"{name} {problem}"
    assert disk_state(scratch.root) == before

    (scratch.root / "landing" / "z" / name).write_bytes(content)  # dropped into the folder instead
    fqn = scratch.pipeline("bronze", "reader", "SELECT * FROM {{ landing_zone('z') }}")
    before = disk_state(scratch.root)
    status, results = script(scratch.wb, f"run {fqn}\n")
    assert status == 1
    assert results[0]["run"]["error"] == (
        f"{scratch.ns}/pipelines/bronze/reader/pipeline.sql:1: landing file {scratch.ns}/landing/z/{name} {problem}")
    assert disk_state(scratch.root) == before and not scratch.table_exists("bronze", "reader")
    listed = {f.path: f.problem for f in zone_files(scratch.wb.project, scratch.wb.state, scratch.ns, "z")}
    assert listed[name] == problem and listed[next(n for n in listed if n.startswith("good"))] is None


@pytest.mark.parametrize("case", EMPTY_LANDING_FILES, ids=[c[0] for c in EMPTY_LANDING_FILES])
def test_a_file_with_no_data_is_refused_by_upload_and_left_by_a_run_for_a_later_one(scratch: Scratch, tmp_path: Path,
                                                                                     case):
    """Found by a new user: a 0-byte file (an empty export, or one still being copied in) failed the whole run,
    and the zone's other files with it. Now the run reads the others and says it left that one; once the file
    holds rows, the next run reads it."""
    _, name, content, why = case
    source = tmp_path / name
    source.write_bytes(content)
    status, results = script(scratch.wb, f"upload {scratch.ns} z {shlex.quote(str(source))}\n")
    assert status == 1 and results[0]["error"] == f"{name} {why}"

    scratch.landing("z", "good.csv", "id\n1\n")
    (scratch.root / "landing" / "z" / name).write_bytes(content)
    fqn = scratch.pipeline("bronze", "reader", "-- @merge_strategy: append_only\nSELECT * FROM {{ landing_zone('z') }}")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, _source_file FROM {fqn}") == [[1, "good.csv"]]
    assert f"skipped {name}: it {why}; a later run reads it once it holds rows" in [n["text"] for n in run["notes"]]
    listed = {f.path: f.problem for f in zone_files(scratch.wb.project, scratch.wb.state, scratch.ns, "z")}
    assert listed[name] == why  # the zone panel marks it

    (scratch.root / "landing" / "z" / name).write_text("id\n2\n")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, _source_file FROM {fqn} ORDER BY id") == [[1, "good.csv"], [2, name]]


def test_a_zone_whose_only_file_holds_no_data_says_so(scratch: Scratch):
    scratch.landing("z", "empty.csv", "")
    run = scratch.run(scratch.pipeline("bronze", "reader", "SELECT * FROM {{ landing_zone('z') }}"))
    assert run["status"] == "failed"
    assert run["error"].endswith(f"{scratch.ns}/landing/z has no files yet that hold rows (empty.csv: no data)")
