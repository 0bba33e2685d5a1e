"""Typed Parquet twins: an uploaded CSV is converted once, runs read the twin and get exactly the rows
the CSV gives, a changed file is never read through its old twin, and the twin leaves with its file."""
from __future__ import annotations

from pathlib import Path

import pytest

from rat_tui.core.commands.landing_results import UploadResult
from rat_tui.core.landing import schema as sampling
from rat_tui.core.landing.twins import find_twin, twin_folder
from rat_tui.core.project.model import active_landing_files
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark

# What Spark's CSV reader makes of odd values must survive the conversion unchanged: doubled and
# backslash-escaped quotes, empty and quoted-empty fields, offsets in timestamps, non-ASCII text.
TRICKY = (
    'id,name,amount,flag,at,note\n'
    '1,"Smith, ""Jr""",1.5,true,2024-01-01 10:00:00,plain\n'
    '2,"back\\"slash",,false,2024-02-29T23:59:59+02:00,""\n'
    '3,Zoë — ünïcode,-0.25,TRUE,2024-03-01 00:00:00.123,\n'
    '4,,1e3,false,,"a,b"\n'
)


def _upload(scratch: Scratch, tmp_path: Path, zone: str, name: str, text: str, **kwargs) -> UploadResult:
    source = tmp_path / name
    source.write_text(text, encoding="utf-8")
    return scratch.wb.landing.upload(scratch.ns, zone, [str(source)], **kwargs)


def _table(scratch: Scratch, fqn: str) -> tuple[list, list]:
    with scratch.wb.spark.using() as spark:
        df = spark.table(fqn)
        return [(f.name, f.dataType.simpleString()) for f in df.schema], sorted(map(tuple, df.collect()), key=str)


def test_an_uploaded_csv_is_read_through_its_twin_with_exactly_the_csvs_rows(scratch: Scratch, tmp_path: Path):
    result = _upload(scratch, tmp_path, "typed", "odd.csv", TRICKY)
    assert result.typed == ["odd.csv"] and result.not_typed == []
    zone_dir = scratch.root / "landing" / "typed"
    twin = find_twin(zone_dir, zone_dir / "odd.csv")
    assert twin is not None and any(twin.folder.glob("part-*.parquet"))
    assert [f.name for f in active_landing_files(zone_dir)] == ["odd.csv"]  # never read as data itself
    scratch.landing("plain", "odd.csv", TRICKY)  # dropped into a folder: no twin, read as CSV
    sql = "SELECT * FROM {{{{ landing_zone('{}') }}}}"
    through_twin = scratch.pipeline("bronze", "through_twin", sql.format("typed"))
    through_csv = scratch.pipeline("bronze", "through_csv", sql.format("plain"))
    for fqn in (through_twin, through_csv):
        run = scratch.run(fqn)
        assert run["status"] == "success", run["error"]
    assert find_twin(scratch.root / "landing" / "plain", scratch.root / "landing" / "plain" / "odd.csv") is None
    twin_table, csv_table = _table(scratch, through_twin), _table(scratch, through_csv)
    assert twin_table == csv_table
    types, rows = twin_table
    assert types == [("id", "int"), ("name", "string"), ("amount", "double"), ("flag", "boolean"),
                     ("at", "timestamp"), ("note", "string"), ("_source_file", "string")]
    assert {r[-1] for r in rows} == {"odd.csv"} and len(rows) == 4


def _replace_twin_rows(scratch: Scratch, folder: Path, rows: list[tuple]) -> None:
    """Proof that a run reads the twin: rows that differ from its CSV's show through."""
    with scratch.wb.spark.using() as spark:
        spark.createDataFrame(rows, "id INT, v STRING").write.mode("overwrite").parquet("file:" + str(folder / "swap"))
    for part in folder.glob("part-*.parquet"):
        part.unlink()
    for part in (folder / "swap").glob("part-*.parquet"):
        part.rename(folder / part.name)


def test_a_run_reads_the_twin_and_not_the_csv(scratch: Scratch, tmp_path: Path):
    _upload(scratch, tmp_path, "proof", "a.csv", "id,v\n1,x\n2,y\n")
    zone_dir = scratch.root / "landing" / "proof"
    _replace_twin_rows(scratch, twin_folder(zone_dir, zone_dir / "a.csv"), [(7, "from-twin")])
    fqn = scratch.pipeline("bronze", "proof", "SELECT id, v FROM {{ landing_zone('proof') }}")
    assert scratch.run(fqn)["status"] == "success"
    assert scratch.rows(f"SELECT id, v FROM {fqn}") == [[7, "from-twin"]]


def test_a_replaced_or_edited_file_is_never_read_through_its_old_twin(scratch: Scratch, tmp_path: Path):
    _upload(scratch, tmp_path, "changing", "a.csv", "id,v\n1,old\n")
    zone_dir = scratch.root / "landing" / "changing"
    old = twin_folder(zone_dir, zone_dir / "a.csv")
    fqn = scratch.pipeline("bronze", "changing", "SELECT id, v FROM {{ landing_zone('changing') }}")
    assert scratch.run(fqn)["status"] == "success"
    (zone_dir / "a.csv").write_text("id,v\n1,new\n2,edited\n")  # edited by hand: no new twin yet
    assert find_twin(zone_dir, zone_dir / "a.csv") is None
    assert scratch.run(fqn)["status"] == "success"
    assert scratch.rows(f"SELECT id, v FROM {fqn} ORDER BY id") == [[1, "new"], [2, "edited"]]
    result = _upload(scratch, tmp_path, "changing", "a.csv", "id,v\n3,replaced\n", replace=True)
    assert result.typed == ["a.csv"]
    assert not old.exists()  # a twin whose file changed is removed when the zone's twins are made
    assert scratch.run(fqn)["status"] == "success"
    assert scratch.rows(f"SELECT id, v FROM {fqn}") == [[3, "replaced"]]


def test_a_value_that_does_not_fit_leaves_no_twin_and_the_run_reads_the_csv(
        scratch: Scratch, tmp_path: Path, monkeypatch):
    monkeypatch.setattr(sampling, "SAMPLE_BYTES_PER_FILE", 64)
    text = "id,amount\n" + "".join(f"{i},{i * 2}\n" for i in range(50)) + "51,abc\n"
    result = _upload(scratch, tmp_path, "late", "late.csv", text)
    assert result.typed == [] and result.not_typed[0].file == "late.csv"
    assert "late.csv was not converted to Parquet" in result.not_typed[0].reason
    zone_dir = scratch.root / "landing" / "late"
    assert find_twin(zone_dir, zone_dir / "late.csv") is None
    assert not [p for p in (zone_dir / "_typed").iterdir()]  # the half-made twin is gone too
    assert "abc" in result.not_typed[0].reason  # the cause, not only that a task failed
    fqn = scratch.pipeline("bronze", "late", "SELECT * FROM {{ landing_zone('late') }}")
    run = scratch.run(fqn)
    # issue 26 changed this on purpose: a full pass would read 'abc' (as a string), so the run does
    assert run["status"] == "success" and scratch.rows(f"SELECT amount FROM {fqn} WHERE id = 51") == [["abc"]]


def test_files_typed_differently_are_read_as_csv_together(scratch: Scratch, tmp_path: Path):
    _upload(scratch, tmp_path, "mixed", "a.csv", "id,v\n1,2\n")
    _upload(scratch, tmp_path, "mixed", "b.csv", "id,v\n3,4.5\n")  # v: int in one file, double in the other
    zone_dir = scratch.root / "landing" / "mixed"
    assert all(find_twin(zone_dir, zone_dir / n) for n in ("a.csv", "b.csv"))
    fqn = scratch.pipeline("bronze", "mixed", "SELECT id, v, _source_file FROM {{ landing_zone('mixed') }}")
    assert scratch.run(fqn)["status"] == "success"
    assert scratch.rows(f"SELECT id, v, _source_file FROM {fqn} ORDER BY id") == [[1, 2.0, "a.csv"], [3, 4.5, "b.csv"]]


def test_files_typed_alike_are_read_through_their_twins_with_their_own_names(scratch: Scratch, tmp_path: Path):
    for name, rows in (("jan.csv", "1,a\n2,b\n"), ("feb.csv", "3,c\n")):
        _upload(scratch, tmp_path, "months", name, "id,v\n" + rows)
    zone_dir = scratch.root / "landing" / "months"
    _replace_twin_rows(scratch, twin_folder(zone_dir, zone_dir / "feb.csv"), [(3, "c from twin")])
    fqn = scratch.pipeline("bronze", "months", "SELECT id, v, _source_file FROM {{ landing_zone('months') }}")
    assert scratch.run(fqn)["status"] == "success"
    assert scratch.rows(f"SELECT id, v, _source_file FROM {fqn} ORDER BY id") == [
        [1, "a", "jan.csv"], [2, "b", "jan.csv"], [3, "c from twin", "feb.csv"]]


def test_archival_takes_the_twin_with_its_file(scratch: Scratch, tmp_path: Path):
    _upload(scratch, tmp_path, "archived", "a.csv", "id\n1\n")
    zone_dir = scratch.root / "landing" / "archived"
    folder = twin_folder(zone_dir, zone_dir / "a.csv")
    fqn = scratch.pipeline("bronze", "archived", "-- @archive_landing_zones: true\n"
                           "SELECT id FROM {{ landing_zone('archived') }}")
    run = scratch.run(fqn)
    assert run["status"] == "success"
    assert not (zone_dir / "a.csv").exists() and not folder.exists()
    assert [p.relative_to(zone_dir).as_posix() for p in (zone_dir / "_processed").rglob("*") if p.is_file()] == [
        f"_processed/{run['run_id']}/a.csv"]


@pytest.mark.parametrize("seed", [1, 2])
def test_a_conversion_killed_at_a_random_moment_leaves_no_twin_a_run_would_misread(
        scratch: Scratch, tmp_path: Path, seed: int):
    import os
    import random
    import signal
    import subprocess
    import sys
    import time

    source = tmp_path / "big.csv"
    source.write_text("id,v\n" + "".join(f"{i},{i % 97}.5\n" for i in range(300_000)))
    zone_dir = scratch.root / "landing" / "killed"
    proc = subprocess.Popen([sys.executable, "-m", "rat_tui", str(scratch.wb.project.root), "--script", "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    proc.stdin.write(f"upload {scratch.ns} killed {source}\n".encode())
    proc.stdin.close()
    deadline = time.monotonic() + 180
    while proc.poll() is None and time.monotonic() < deadline and not any((zone_dir / "_typed").glob(".*.converting")):
        time.sleep(0.005)
    time.sleep(random.Random(seed).uniform(0, 3))  # early in the conversion (seed 1) or near its end (2)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(30)
    csv = zone_dir / "big.csv"
    assert csv.exists()  # renamed into place before any conversion began
    twin = find_twin(zone_dir, csv)
    with scratch.wb.spark.using() as spark:
        if twin is not None:  # a twin that exists is whole
            assert spark.read.parquet("file:" + str(twin.folder)).count() == 300_000
    assert scratch.wb.landing.make_typed_twins(scratch.ns, "killed").not_typed == []
    assert find_twin(zone_dir, csv) is not None
    assert [p.name for p in (zone_dir / "_typed").iterdir()] == [twin_folder(zone_dir, csv).name]  # nothing left over
    fqn = scratch.pipeline("bronze", "killed", "SELECT id, v FROM {{ landing_zone('killed') }}")
    assert scratch.run(fqn)["status"] == "success"
    assert scratch.rows(f"SELECT COUNT(*), COUNT(DISTINCT id), SUM(v) FROM {fqn}") == [
        [300_000, 300_000, sum(i % 97 + 0.5 for i in range(300_000))]]
