"""Compaction, the consistency check (each finding made on purpose, then fixed) and the run log."""
from __future__ import annotations

import os
import shutil
import time

import pytest

from tests.helpers import dead_pid
from tests.lakehelpers import Scratch, findings

pytestmark = pytest.mark.spark


def kinds(items: list[dict]) -> list[tuple[str, str]]:
    return sorted((f["kind"], f["object"]) for f in items)


def test_compaction_of_fifty_small_appends(scratch: Scratch):
    fqn = scratch.pipeline("bronze", "events", "-- @merge_strategy: append_only\nSELECT id FROM range(3)")
    for _ in range(50):
        assert scratch.run(fqn)["status"] == "success"
    before = {t.name: t for t in scratch.wb.tables.tables().tables}[fqn]
    assert before.data_files >= 50 and before.rows == 150
    result = scratch.wb.tables.compact(fqn)
    assert result.files_before == before.data_files
    assert result.files_after < 5
    assert result.snapshot_id != before.snapshot_id
    assert scratch.rows(f"SELECT COUNT(*), SUM(id) FROM {fqn}") == [[150, 150]]
    snapshot = scratch.wb.tables.snapshots(fqn).as_dict()["snapshots"][-1]
    assert snapshot["operation"] == "replace" and snapshot["is_current"]
    after = {t.name: t for t in scratch.wb.tables.tables().tables}[fqn]
    assert after.avg_file_bytes > before.avg_file_bytes


def test_a_clean_namespace_has_no_findings(scratch: Scratch):
    fqn = scratch.pipeline("silver", "ok", "SELECT 1 AS id")
    scratch.run(fqn)
    assert scratch.wb.upkeep.doctor(namespace=scratch.ns).findings == []


def test_table_without_pipeline_and_pipeline_without_table(scratch: Scratch):
    gone = scratch.pipeline("silver", "renamed", "SELECT 1 AS id")
    kept = scratch.pipeline("silver", "dropped", "SELECT 2 AS id")
    scratch.run(gone)
    scratch.run(kept)
    shutil.rmtree(scratch.root / "pipelines" / "silver" / "renamed")
    shutil.rmtree(scratch.root / "warehouse" / "silver" / "dropped")
    found = findings(scratch)
    assert kinds(found) == [("pipeline_without_table", kept), ("table_without_pipeline", gone)]
    assert all(not f["fixed"] for f in found)
    assert (scratch.root / "warehouse" / "silver" / "renamed").exists()  # a dry run changes nothing
    fixed = findings(scratch, fix=True)
    assert all(f["fixed"] for f in fixed)
    assert not (scratch.root / "warehouse" / "silver" / "renamed").exists()
    assert scratch.rows(f"SELECT id FROM {kept}") == [[2]]
    assert findings(scratch) == []


def test_missing_data_files_roll_main_back_to_a_complete_snapshot(scratch: Scratch):
    fqn = scratch.pipeline("silver", "lost", "-- @merge_strategy: append_only\nSELECT 1 AS id")
    first = scratch.run(fqn)
    second = scratch.run(fqn)
    newest = max((scratch.root / "warehouse" / "silver" / "lost" / "data").glob("*.parquet"), key=os.path.getmtime)
    newest.unlink()
    found = findings(scratch)
    assert kinds(found) == [("missing_data_files", fqn)]
    assert found[0]["fix"] == f"point main at snapshot {first['snapshot_id']}"
    assert second["snapshot_id"] != first["snapshot_id"]
    findings(scratch, fix=True)
    assert scratch.refs(fqn)["main"] == first["snapshot_id"]
    assert scratch.rows(f"SELECT COUNT(*) FROM {fqn}") == [[1]]


def test_unreferenced_files_leftover_branches_and_stuck_runs(scratch: Scratch):
    fqn = scratch.pipeline("silver", "mess", "SELECT 1 AS id")
    scratch.run(fqn)
    stray = scratch.root / "warehouse" / "silver" / "mess" / "data" / "stray.parquet"
    stray.write_bytes(b"not referenced")
    two_days_ago = time.time() - 48 * 3600  # past orphan_file_min_age_hours: no writer can still claim it
    os.utime(stray, (two_days_ago, two_days_ago))
    with scratch.wb.spark.using() as spark:
        spark.sql(f"ALTER TABLE `{scratch.ns}`.silver.mess CREATE BRANCH run_0dead")
    long_ago = time.time() - 3 * 3600
    scratch.wb.state.execute(
        "INSERT INTO runs (run_id, pipeline, status, queued_at, started_at, host, pid) VALUES (?, ?, 'running', ?, ?, ?, ?)",
        ("stuck99", fqn, long_ago, long_ago, os.uname().nodename, dead_pid()))
    found = findings(scratch)
    assert kinds(found) == [
        ("leftover_branch", f"{fqn}@run_0dead"), ("stuck_run", "stuck99"),
        ("unreferenced_file", f"{scratch.ns}/warehouse/silver/mess/data/stray.parquet")]
    findings(scratch, fix=True)
    assert not stray.exists()
    assert list(scratch.refs(fqn)) == ["main"]
    assert scratch.wb.state.get_run("stuck99").status == "failed"
    assert findings(scratch) == []


def test_processed_files_of_unknown_runs_and_damaged_versions(scratch: Scratch):
    folder = scratch.root / "landing" / "orders" / "_processed" / "ghost123"
    folder.mkdir(parents=True)
    (folder / "a.csv").write_text("id\n1\n")
    path = f"{scratch.ns}/pipelines/gold/v/pipeline.sql"
    store = scratch.wb.version_store
    good = store.record(path, b"SELECT 1")
    bad = store.record(path, b"SELECT 2")
    store._blob_path(store.get(bad).sha256).write_bytes(b"torn")
    found = findings(scratch)
    assert kinds(found) == [("damaged_version", bad), ("processed_without_run", f"{scratch.ns}/landing/orders/_processed/ghost123")]
    findings(scratch, fix=True)
    assert not folder.exists()
    assert [v.version_id for v in store.history(path)] == [good]
    assert findings(scratch) == []


def test_every_run_is_logged_as_json_lines(scratch: Scratch):
    fqn = scratch.pipeline("silver", "logged", "SELECT 1 AS id", tests={"t": "SELECT * FROM {{ this }} WHERE id < 0"})
    run = scratch.run(fqn)
    entries = scratch.wb.run_log.read(run["run_id"])
    events = [e["event"] for e in entries]
    assert events[0] == "RunQueued" and events[-1] == "RunFinished"
    phases = [(e["phase"], e["ok"]) for e in entries if e["event"] == "PhaseFinished"]
    assert [p for p, _ in phases] == ["branch_creation", "config_loading", "build_result", "iceberg_write",
                                      "quality_tests", "branch_resolution"]
    write = next(e for e in entries if e["event"] == "PhaseFinished" and e["phase"] == "iceberg_write")
    assert write["rows"] == 1 and write["ms"] >= 0
    assert [e["status"] for e in entries if e["event"] == "QualityResultEvent"] == ["passed"]
    assert entries[-1]["status"] == "success"
