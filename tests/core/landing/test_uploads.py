"""Uploading into landing zones: checks, atomic copies, samples, replacement, zone panel."""
from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rat_tui.core.project.model import active_landing_files
from tests.helpers import run_script_here


def make_files(folder: Path, rows: int = 1500) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    csv = folder / "orders_2024_05.csv"
    csv.write_text("id,amount\n" + "".join(f"{i},{i * 1.5}\n" for i in range(rows)))
    parquet = folder / "products.parquet"
    pq.write_table(pa.table({"id": list(range(rows)), "name": [f"p{i}" for i in range(rows)]}), parquet)
    json_file = folder / "events.json"
    json_file.write_text("".join(f'{{"id": {i}, "kind": "view"}}\n' for i in range(rows)))
    return {"csv": csv, "parquet": parquet, "json": json_file}


@pytest.mark.spark  # the upload types its CSV twins with Spark
def test_upload_csv_parquet_json_writes_samples_that_sample_reads(sample_copy: Path, tmp_path: Path):
    files = make_files(tmp_path / "in")
    # one format a zone: a run cannot read a zone that mixes them, so upload refuses that (issue 35)
    script = "".join(f"upload ecommerce up_{fmt} {path}\n" for fmt, path in files.items()) + (
        "sample ecommerce up_csv orders_2024_05.csv --limit 2\n"
        "sample ecommerce up_parquet products.parquet --limit 2\n"
        "sample ecommerce up_json events.json --limit 1\n"
        "ls\n")
    status, results, stderr = run_script_here(sample_copy, script)
    assert status == 0, (results, stderr)
    assert [r["files"] for r in results[:3]] == [[{"name": f.name, "bytes": f.stat().st_size}] for f in files.values()]
    landing = sample_copy / "ecommerce" / "landing"
    samples = sorted(p.relative_to(landing).as_posix() for p in landing.glob("up_*/_samples/*"))
    assert samples == ["up_csv/_samples/orders_2024_05_sample.csv", "up_json/_samples/events_sample.json",
                       "up_parquet/_samples/products_sample.parquet"]
    assert len((landing / "up_csv" / "_samples" / "orders_2024_05_sample.csv").read_text().splitlines()) == 1001
    assert pq.read_table(landing / "up_parquet" / "_samples" / "products_sample.parquet").num_rows == 1000
    assert results[3]["rows"] == [[0, 0.0], [1, 1.5]] and results[3]["columns"] == ["id", "amount"]
    assert results[4]["rows"] == [[0, "p0"], [1, "p1"]]
    assert results[5]["rows"] == [[0, "view"]]
    assert {"up_csv", "up_json", "up_parquet"} <= set(results[6]["namespaces"][1]["zones"])


def _corrupt(data: bytes) -> bytes:
    """Bytes flipped inside the deflate stream, as a bad disk or transfer leaves them."""
    return data[:200] + bytes(b ^ 0xFF for b in data[200:260]) + data[260:]


@pytest.mark.parametrize("name, content, message", [
    ("broken.parquet", b"PAR1 this is not parquet", "broken.parquet is not a readable Parquet file"),
    ("latin1.csv", "id,name\n1,caf\xe9\n".encode("latin-1"), "latin1.csv is not UTF-8 text"),
    ("notes.md", b"hello", "notes.md has an unsupported extension"),  # .txt is delimited text since issue 26
    # a download cut short: the check read it whole and met the end of the stream (was an internal error)
    pytest.param("cut.csv.gz", gzip.compress("".join(f"{i},row {i}\n" for i in range(5000)).encode())[:2000],
                 "cut.csv.gz cannot be read: Compressed file ended before the end-of-stream marker was reached",
                 id="cut-gzip"),
    pytest.param("bent.csv.gz", _corrupt(gzip.compress("".join(f"{i},row {i}\n" for i in range(5000)).encode())),
                 "bent.csv.gz cannot be read: Error -3 while decompressing data", id="corrupt-gzip"),
])
def test_bad_files_are_rejected_with_their_name_and_nothing_is_copied(sample_copy: Path, tmp_path: Path,
                                                                     name: str, content: bytes, message: str):
    good = make_files(tmp_path / "in", rows=3)["csv"]
    bad = tmp_path / "in" / name
    bad.write_bytes(content)
    status, results, stderr = run_script_here(sample_copy, f"upload ecommerce orders {good} {bad}\n")
    assert status == 1 and message in results[0]["error"]
    # found by a new user: a batch refused for one file named only that file; the others were not copied either
    assert results[0]["error"].endswith("; nothing was uploaded (every file is checked first): leave it out to "
                                        "upload the 1 other(s)"), results[0]["error"]
    assert "Traceback" not in stderr
    assert not (sample_copy / "ecommerce" / "landing" / "orders" / good.name).exists()


@pytest.mark.spark  # the upload types its CSV twins with Spark
def test_existing_files_are_kept_unless_replaced_and_then_archived(sample_copy: Path, tmp_path: Path):
    source = tmp_path / "orders_2024_01.csv"
    source.write_text("order_id,amount\n1,2.5\n")
    zone = sample_copy / "ecommerce" / "landing" / "orders"
    original = (zone / "orders_2024_01.csv").read_bytes()
    status, results, _ = run_script_here(sample_copy, f"upload ecommerce orders {source}\n")
    assert status == 1 and "already exists in the zone; upload with --replace" in results[0]["error"]
    status, results, _ = run_script_here(sample_copy, f"upload ecommerce orders {source} --replace\n")
    assert status == 0
    assert (zone / "orders_2024_01.csv").read_text() == "order_id,amount\n1,2.5\n"
    kept = list((zone / "_processed").glob("replaced-*/orders_2024_01.csv"))
    assert len(kept) == 1 and kept[0].read_bytes() == original
    status, results, _ = run_script_here(sample_copy, f"upload ecommerce orders {source} --as orders_2024_09.csv\n")
    assert results[0]["files"] == [{"name": "orders_2024_09.csv", "bytes": source.stat().st_size}]


def test_zone_names_are_checked(sample_copy: Path, tmp_path: Path):
    source = make_files(tmp_path / "in", rows=2)["csv"]
    status, results, _ = run_script_here(sample_copy, f"upload ecommerce Bad_Zone {source}\n")
    assert status == 1 and "landing zone name 'Bad_Zone' breaks the naming rule" in results[0]["error"]
    status, results, _ = run_script_here(sample_copy, f"upload nowhere zone {source}\n")
    assert "namespace nowhere does not exist" in results[0]["error"]


def test_an_upload_killed_midway_leaves_nothing_a_run_would_read(sample_copy: Path, tmp_path: Path):
    big = tmp_path / "big.csv"
    big.write_text("id\n" + "1\n" * 2_000_000)  # several 1 MB chunks
    marker = tmp_path / "paused"
    env = {**os.environ, "RAT_TEST_PAUSE_AT": "during:upload", "RAT_TEST_PAUSE_FILE": str(marker)}
    proc = subprocess.Popen([sys.executable, "-m", "rat_tui", str(sample_copy), "--script", "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            start_new_session=True)
    proc.stdin.write(f"upload ecommerce orders {big}\n".encode())
    proc.stdin.close()
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(10)
    zone = sample_copy / "ecommerce" / "landing" / "orders"
    leftovers = [p.name for p in zone.iterdir() if p.name.startswith(".big.csv.uploading")]
    assert leftovers, "the half-copied file exists under its hidden temporary name"
    assert "big.csv" not in [p.name for p in active_landing_files(zone)]


def test_auto_purge_zones_lose_old_processed_files(sample_copy: Path):
    from rat_tui.core.compose import open_project

    (sample_copy / "rat.yaml").write_text("zones:\n  ecommerce/orders: {auto_purge: true, processed_max_age_days: 3}\n")
    old = sample_copy / "ecommerce" / "landing" / "orders" / "_processed" / "r1" / "a.csv"
    other = sample_copy / "ecommerce" / "landing" / "events" / "_processed" / "r2" / "b.json"
    for path in (old, other):
        path.parent.mkdir(parents=True)
        path.write_text("x\n")
        stamp = time.time() - 5 * 86400
        os.utime(path, (stamp, stamp))
    wb = open_project(sample_copy)
    assert wb.landing.zone_settings("ecommerce", "orders").as_dict()["settings"] == {"processed_max_age_days": 3, "auto_purge": True, "schema": None}
    assert wb.upkeep.auto_purge().purged == 1
    assert not old.exists() and other.exists()  # events is not an auto_purge zone


def test_a_file_of_another_format_than_the_zones_is_refused_with_the_runs_sentence(sample_copy: Path, tmp_path: Path):
    """Issue 35: a .jsonl uploaded into a CSV zone was accepted, listed as active, and the next run failed with
    "mixes file formats (csv, json)"; upload now says that sentence (one function for both) and copies nothing."""
    events = tmp_path / "events.jsonl"
    events.write_text('{"order_id": 9, "amount": 1.5}\n')
    zone = sample_copy / "ecommerce" / "landing" / "orders"
    status, results, _ = run_script_here(sample_copy, f"upload ecommerce orders {events}\n")
    assert status == 1
    assert results[0]["error"] == ("landing zone ecommerce/landing/orders mixes file formats (csv, json); "
                                   "keep one format per zone")
    assert not (zone / "events.jsonl").exists() and not list((zone / "_samples").glob("events*"))
    # the run reading a zone that holds both says the same sentence
    from rat_tui.core.errors import RatError
    from rat_tui.core.landing.checks import one_format

    (zone / "events.jsonl").write_text(events.read_text())
    with pytest.raises(RatError) as refused:
        one_format("ecommerce/landing/orders", active_landing_files(zone))
    assert refused.value.sentence() == results[0]["error"]
