"""Publish, run the pinned content, roll back code; snapshots and table rollback; purge."""
from __future__ import annotations

import os
from datetime import datetime

import pytest

from rat_tui.core.errors import RatError
from tests.helpers import dead_pid
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark


def test_publish_edit_run_published_and_rollback(scratch: Scratch):
    wb = scratch.wb
    fqn = scratch.pipeline("gold", "p", "SELECT 'v1' AS v", tests={"t": "SELECT * FROM {{ this }} WHERE v IS NULL"})
    assert wb.versions.publish(fqn, "first").version == 1
    scratch.pipeline("gold", "p", "SELECT 'v2' AS v")
    assert wb.versions.publish(fqn, "second").version == 2
    scratch.pipeline("gold", "p", "SELECT 'draft' AS v")

    run = scratch.run(fqn, published=True)
    assert run["status"] == "success" and run["version"] == "2"
    assert scratch.rows(f"SELECT v FROM {fqn}") == [["v2"]]
    draft = scratch.run(fqn)
    assert draft["version"] == "draft" and scratch.rows(f"SELECT v FROM {fqn}") == [["draft"]]

    assert wb.versions.rollback(fqn).as_dict() == {"version": 3, "pinned_from": 1}
    assert scratch.run(fqn, published=True)["version"] == "3"
    assert scratch.rows(f"SELECT v FROM {fqn}") == [["v1"]]
    listed = wb.versions.list_versions(fqn).as_dict()
    assert listed["current"] == 3
    assert [(v["version"], v["message"], v["pinned_from"]) for v in listed["versions"]] == [
        (1, "first", None), (2, "second", None), (3, "rollback to version 1", 1)]


def test_restore_round_trips_bytes_and_keeps_the_working_copy(scratch: Scratch):
    wb = scratch.wb
    original = b"-- @description: caf\xc3\xa9\r\nSELECT 1 AS id\n\n"
    fqn = scratch.pipeline("gold", "r", "SELECT 0 AS id", tests={"a": "SELECT 1 WHERE false"})
    folder = scratch.root / "pipelines" / "gold" / "r"
    (folder / "pipeline.sql").write_bytes(original)
    wb.versions.publish(fqn, "keep")
    edited = b"SELECT 2 AS id -- unsaved idea\n"
    (folder / "pipeline.sql").write_bytes(edited)
    (folder / "tests" / "quality" / "b.sql").write_text("SELECT 2 WHERE false\n")

    wb.versions.rollback(fqn, 1, restore=True)
    assert (folder / "pipeline.sql").read_bytes() == original
    assert not (folder / "tests" / "quality" / "b.sql").exists()
    history = wb.version_store.history(f"{scratch.ns}/pipelines/gold/r/pipeline.sql")
    assert edited in [wb.version_store.read(v.version_id) for v in history]
    b_history = wb.version_store.history(f"{scratch.ns}/pipelines/gold/r/tests/quality/b.sql")
    assert wb.version_store.read(b_history[-1].version_id) == b"SELECT 2 WHERE false\n"


def test_identical_content_makes_no_new_version_and_torn_blobs_are_refused(scratch: Scratch):
    store = scratch.wb.version_store
    path = f"{scratch.ns}/pipelines/gold/x/pipeline.sql"
    first = store.record(path, b"SELECT 1")
    assert store.record(path, b"SELECT 1") == first
    second = store.record(path, b"SELECT 2")
    assert second != first and [v.version_id for v in store.history(path)] == [first, second]
    blob = store._blob_path(store.get(second).sha256)
    blob.write_bytes(b"SELECT")  # torn
    with pytest.raises(RatError, match="damaged"):
        store.read(second)
    assert store.record(path, b"SELECT 2") != second  # a fresh, whole copy is stored


def test_publish_refuses_an_invalid_pipeline(scratch: Scratch):
    fqn = scratch.pipeline("gold", "bad", "-- @merge_strategy: incremental\nSELECT 1 AS id")
    with pytest.raises(RatError, match="cannot publish .* needs a unique_key"):
        scratch.wb.versions.publish(fqn)
    assert scratch.wb.versions.list_versions(fqn).as_dict() == {"versions": [], "current": None}


def test_snapshots_rollback_table_and_roll_forward(scratch: Scratch):
    wb = scratch.wb
    fqn = scratch.pipeline("silver", "s", "SELECT 1 AS id")
    first = scratch.run(fqn)
    scratch.pipeline("silver", "s", "SELECT 2 AS id")
    second = scratch.run(fqn)
    snaps = wb.tables.snapshots(fqn).as_dict()["snapshots"]
    by_run = {s["run_id"]: s for s in snaps if s["run_id"]}
    assert by_run[first["run_id"]]["snapshot_id"] == first["snapshot_id"]
    assert by_run[second["run_id"]]["is_current"] is True
    assert by_run[second["run_id"]]["added_rows"] == 1 and by_run[second["run_id"]]["total_rows"] == 1

    assert wb.tables.rollback_table(fqn, first["snapshot_id"]).as_dict() == {"snapshot_id": first["snapshot_id"], "stale_downstream": []}
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[1]]
    wb.tables.rollback_table(fqn, second["snapshot_id"])
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[2]]
    with pytest.raises(RatError, match="has no snapshot 42"):
        wb.tables.rollback_table(fqn, 42)

    preview = wb.tables.table_preview(fqn, first["snapshot_id"]).as_dict()
    assert preview["rows"] == [[1]] and preview["columns"] == ["id"]
    diff = wb.tables.diff_snapshots(fqn, first["snapshot_id"], second["snapshot_id"])
    assert (diff.diff.added, diff.diff.removed, diff.added_rows, diff.removed_rows) == (1, 1, [[2]], [[1]])


def test_diff_reports_schema_changes(scratch: Scratch):
    fqn = scratch.pipeline("silver", "d", "SELECT 1 AS id")
    first = scratch.run(fqn)
    scratch.pipeline("silver", "d", "SELECT 1 AS id, 'x' AS label")
    second = scratch.run(fqn)
    assert second["status"] == "success", second["error"]
    diff = scratch.wb.tables.diff_snapshots(fqn, first["snapshot_id"], second["snapshot_id"])
    assert diff.diff.schema_changes == [{"column": "label", "change": "added", "type": "string"}]
    assert scratch.wb.tables.table_preview(fqn, first["snapshot_id"]).as_dict()["columns"] == ["id"]


def age(path, days: float, now: float) -> None:
    stamp = now - days * 86400
    os.utime(path, (stamp, stamp))


def test_purge_removes_exactly_the_expected_set(scratch: Scratch, monkeypatch: pytest.MonkeyPatch):
    wb = scratch.wb
    ns = scratch.ns
    fqn = scratch.pipeline("silver", "p", "-- @merge_strategy: append_only\nSELECT 1 AS id")
    runs = [scratch.run(fqn) for _ in range(3)]
    snaps = wb.tables.snapshots(fqn).as_dict()["snapshots"]  # creation + three appends
    assert len(snaps) == 4
    # "now" is just under 7 days after the second append: the creation and the first append are older
    now = datetime.fromisoformat(snaps[2]["committed_at"]).timestamp() + 7 * 86400 - 0.0005

    zone = scratch.root / "landing" / "orders" / "_processed"
    old_file, new_file = zone / "r1" / "old.csv", zone / "r2" / "new.csv"
    for f in (old_file, new_file):
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("id\n1\n")
    age(old_file, 31, now)
    age(new_file, 29, now)
    table_dir = scratch.root / "warehouse" / "silver" / "p"
    stray_old, stray_new = table_dir / "data" / "stray-old.parquet", table_dir / "data" / "stray-new.parquet"
    stray_old.write_bytes(b"x" * 10)
    stray_new.write_bytes(b"y")
    age(stray_old, 2, now)
    age(stray_new, 0.5, now)
    with wb.spark.using() as spark:
        spark.sql(f"ALTER TABLE `{ns}`.silver.p CREATE BRANCH run_deadbeef")
    wb.state.execute("INSERT INTO runs (run_id, pipeline, status, queued_at, started_at, host, pid) "
                     "VALUES ('stuck01', ?, 'running', ?, ?, ?, ?)",
                     (fqn, now - 3600, now - 3600, os.uname().nodename, dead_pid()))  # its process is gone
    monkeypatch.setattr(wb.version_store, "clock", lambda: now - 8 * 86400)
    doc = f"{ns}/pipelines/silver/p/pipeline.sql"
    old_version = wb.version_store.record(doc, b"SELECT 'old'")
    monkeypatch.setattr(wb.version_store, "clock", lambda: now - 1 * 86400)
    wb.version_store.record(doc, b"SELECT 'recent'")
    wb.version_store.record(doc, b"SELECT 'latest'")

    dry = wb.upkeep.purge(dry_run=True, now=now, namespace=ns)
    items = dry.items
    assert [i["path"] for i in items.processed_files] == [f"{ns}/landing/orders/_processed/r1/old.csv"]
    assert [i["snapshot_id"] for i in items.snapshots_expired] == [snaps[0]["snapshot_id"], snaps[1]["snapshot_id"]]
    assert [i["path"] for i in items.orphan_files] == [f"{ns}/warehouse/silver/p/data/stray-old.parquet"]
    assert items.orphan_files[0]["bytes"] == 10
    assert items.orphan_branches == [{"table": fqn, "branch": "run_deadbeef"}]
    assert [r["run_id"] for r in items.stuck_runs] == ["stuck01"]
    assert [v["version_id"] for v in items.file_versions] == [old_version]
    # a dry run changes nothing
    assert old_file.exists() and stray_old.exists() and len(wb.tables.snapshots(fqn).as_dict()["snapshots"]) == 4
    assert "run_deadbeef" in wb.tables.snapshots(fqn).as_dict()["refs"]

    real = wb.upkeep.purge(now=now, namespace=ns)
    assert real.purged == dry.purged == {
        "processed_files": 1, "snapshots_expired": 2, "orphan_files": 1, "orphan_branches": 1,
        "stuck_runs": 1, "file_versions": 1, "bucket_processed_files": 0}
    assert not old_file.exists() and new_file.exists()
    assert not stray_old.exists() and stray_new.exists()
    remaining = wb.tables.snapshots(fqn).as_dict()
    assert [s["snapshot_id"] for s in remaining["snapshots"]] == [snaps[2]["snapshot_id"], snaps[3]["snapshot_id"]]
    assert remaining["refs"] == {"main": runs[2]["snapshot_id"]}
    assert scratch.rows(f"SELECT COUNT(*) FROM {fqn}") == [[3]]
    assert scratch.rows(f"SELECT COUNT(*) FROM {fqn} VERSION AS OF {snaps[2]['snapshot_id']}") == [[2]]
    assert wb.state.get_run("stuck01").status == "failed"
    with pytest.raises(RatError):
        wb.version_store.read(old_version)


def test_only_max_versions_are_kept_and_drift_is_shown(scratch: Scratch, monkeypatch: pytest.MonkeyPatch):
    import dataclasses

    project = scratch.wb.project
    monkeypatch.setattr(project, "settings", dataclasses.replace(project.settings, max_versions=2))
    fqn = scratch.pipeline("gold", "many", "SELECT 0 AS v")
    for n in range(1, 5):
        scratch.pipeline("gold", "many", f"SELECT {n} AS v")
        scratch.wb.versions.publish(fqn, f"v{n}")
    listed = scratch.wb.versions.list_versions(fqn).as_dict()
    assert [v["version"] for v in listed["versions"]] == [3, 4] and listed["current"] == 4
    ref = scratch.wb.browse.resolve(fqn)
    assert scratch.wb.versions.drift(ref) is False
    scratch.pipeline("gold", "many", "SELECT 99 AS v")
    assert scratch.wb.versions.drift(ref) is True
    overview = scratch.wb.browse.overview()
    mine = next(ns for ns in overview.namespaces if ns.name == scratch.ns)
    assert [(p.ref.fqn, p.published, p.drift) for p in mine.pipelines] == [(fqn, True, True)]
