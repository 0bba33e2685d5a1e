"""The README's guarantees attacked from outside: a second process, a kill the moment main moves,
upkeep and rollbacks while a run is in flight. Each test failed on the code before its fix."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rat_tui.core.run.recovery import mark_orphans
from tests.lakehelpers import Scratch
from tests.test_reliability import kill_at, landing_state, setup

pytestmark = pytest.mark.spark


class PausedRun:
    """A `rat-tui --script` process running one pipeline, held at a pause point until resumed."""

    def __init__(self, project: Path, fqn: str, point: str, tmp: Path):
        self.marker, self.resume = tmp / f"paused-{point.replace(':', '-')}", tmp / f"resume-{point.replace(':', '-')}"
        env = {**os.environ, "RAT_TEST_PAUSE_AT": point, "RAT_TEST_PAUSE_FILE": str(self.marker),
               "RAT_TEST_RESUME_FILE": str(self.resume)}
        self.proc = subprocess.Popen([sys.executable, "-m", "rat_tui", str(project), "--script", "-"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=env, start_new_session=True)
        self.proc.stdin.write(f"run {fqn}\n".encode())
        self.proc.stdin.close()
        self.proc.stdin = None  # communicate() must not flush it again
        deadline = time.monotonic() + 240
        while not self.marker.exists():
            assert self.proc.poll() is None, self.proc.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, f"never reached {point}"
            time.sleep(0.05)

    def finish(self) -> dict:
        import json

        self.resume.write_text("go")
        out, err = self.proc.communicate(timeout=240)
        lines = [json.loads(line) for line in out.decode().splitlines() if line.strip()]
        assert lines, err.decode()[-2000:]
        return lines[0]

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(30)


def test_a_kill_right_after_main_moved_keeps_the_batch_consumed(scratch: Scratch, tmp_path: Path):
    """Item 1: recovery asks the table whether the run reached main; it did, so no file comes back."""
    fqn, _, _ = setup(scratch)
    wb = scratch.wb
    assert kill_at(wb.project.root, fqn, "after:fast_forward", tmp_path) == "after:fast_forward"
    orphans = [r for r in mark_orphans(wb.state, wb.project) if r.pipeline == fqn]
    wb.cleanup_leftovers()
    record = wb.state.get_run(orphans[0].run_id)
    assert record.status == "success" and "published to main" in record.error
    assert record.snapshot_id == scratch.refs(fqn)["main"]
    assert list(scratch.refs(fqn)) == ["main"]
    landing = landing_state(scratch)
    assert landing["active"] == [] and len(landing["processed"]) == 3  # a.csv before, b and c now
    scratch.landing("drops", "d.csv", "id\n4\n")
    assert scratch.run(fqn)["status"] == "success"
    assert scratch.rows(f"SELECT id FROM {fqn} ORDER BY id") == [[1], [2], [3], [4]]  # b and c read once


def test_a_run_never_publishes_over_a_moved_main(scratch: Scratch, tmp_path: Path):
    """Item 5: main rolled back to an ancestor while a run is in flight; a fast-forward would
    bring the rolled-back rows back. The run publishes nothing and says why."""
    fqn = scratch.pipeline("silver", "grows", "-- @merge_strategy: append_only\nSELECT 1 AS id")
    assert scratch.run(fqn)["status"] == "success"
    first = scratch.refs(fqn)["main"]
    assert scratch.run(fqn)["status"] == "success"
    run = PausedRun(scratch.wb.project.root, fqn, "after:quality_tests", tmp_path)
    try:
        # a rollback through the product is refused while the run is in flight ...
        with pytest.raises(Exception, match="has a run in progress"):
            scratch.wb.rollback_table(fqn, first)
        # ... and one made behind its back (any Iceberg client) is never undone by the run
        with scratch.wb.spark.using() as spark:
            spark.sql(f"CALL `{scratch.ns}`.system.set_current_snapshot(table => 'silver.grows', snapshot_id => {first})")
        result = run.finish()
    finally:
        run.kill()
    assert result["ok"] is False and "moved while this run was running" in result["error"]
    assert scratch.refs(fqn)["main"] == first
    assert scratch.rows(f"SELECT COUNT(*) FROM {fqn}") == [[1]]


def test_the_loser_of_a_race_to_create_a_table_never_drops_it(scratch: Scratch, tmp_path: Path):
    """Item 6: two processes create the same new table; the loser fails clearly, the winner's table stands."""
    fqn = scratch.pipeline("bronze", "raced", "-- @merge_strategy: append_only\nSELECT 7 AS id")
    loser = PausedRun(scratch.wb.project.root, fqn, "before:create_table", tmp_path)
    try:
        assert scratch.run(fqn)["status"] == "success"  # the winner, in this process
        result = loser.finish()
    finally:
        loser.kill()
    assert result["ok"] is False and "was created by another run at the same time" in result["error"]
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[7]]
    assert list(scratch.refs(fqn)) == ["main"]


def test_a_slow_live_run_is_never_reaped_as_stuck(scratch: Scratch, tmp_path: Path):
    """Item 7: purge and doctor mark a long run failed only when its process is gone."""
    fqn = scratch.pipeline("bronze", "slow", "SELECT 1 AS id")
    wb = scratch.wb
    run = PausedRun(wb.project.root, fqn, "after:build_result", tmp_path)
    try:
        run_id = next(iter(wb.state.live_run_ids(fqn)))
        wb.state.update_run(run_id, started_at=time.time() - 7200)  # "running" for two hours
        assert [r["run_id"] for r in wb.purge(dry_run=True)["items"]["stuck_runs"]] == []
        findings = _doctor_findings(scratch)
        assert [f for f in findings if f["kind"] == "stuck_run"] == []
        assert wb.state.get_run(run_id).status == "running"
    finally:
        run.kill()
    assert [r["run_id"] for r in wb.purge(dry_run=True)["items"]["stuck_runs"]] == [run_id]


def _doctor_findings(scratch: Scratch) -> list[dict]:
    from rat_tui.core.errors import RatError

    try:
        return scratch.wb.doctor(namespace=scratch.ns)["findings"]
    except RatError as exc:
        return exc.result["findings"]


def test_upkeep_never_deletes_a_live_runs_files_or_young_ones(scratch: Scratch, tmp_path: Path):
    """Item 3: doctor --fix and purge use one rule: no file of a table with a live run, none younger
    than orphan_file_min_age_hours (a writer's files are unreferenced until its commit)."""
    fqn = scratch.pipeline("silver", "busy", "-- @merge_strategy: append_only\nSELECT 1 AS id")
    assert scratch.run(fqn)["status"] == "success"
    data = scratch.root / "warehouse" / "silver" / "busy" / "data"
    young = data / "being-written.parquet"
    young.write_bytes(b"a writer's file, not committed yet")
    old = data / "left-by-a-crash.parquet"
    old.write_bytes(b"nobody's")
    two_days_ago = time.time() - 48 * 3600
    os.utime(old, (two_days_ago, two_days_ago))
    wb = scratch.wb
    run = PausedRun(wb.project.root, fqn, "after:build_result", tmp_path)
    try:
        assert [f for f in _doctor_findings(scratch) if f["kind"] == "unreferenced_file"] == []
        _fix(scratch)
        assert wb.purge(dry_run=True)["items"]["orphan_files"] == []
        assert young.exists() and old.exists()
        result = run.finish()
    finally:
        run.kill()
    assert result["ok"] is True
    assert scratch.rows(f"SELECT COUNT(*) FROM {fqn}") == [[2]]
    # no live run now: the old file goes, the young one stays
    unreferenced = [f["object"] for f in _doctor_findings(scratch) if f["kind"] == "unreferenced_file"]
    assert unreferenced == [f"{scratch.ns}/warehouse/silver/busy/data/left-by-a-crash.parquet"]
    _fix(scratch)
    assert not old.exists() and young.exists()


def test_doctor_keeps_the_copies_the_product_promised_to_keep(scratch: Scratch):
    """Item 4: `_processed/replaced-…` and `_processed/local-…` are kept copies, not leftovers of a
    run; only their zone's processed_max_age_days removes them (purge)."""
    zone = scratch.root / "landing" / "orders"
    for folder in ("replaced-20240105T101010", "local-20240105T101010"):
        (zone / "_processed" / folder).mkdir(parents=True)
        (zone / "_processed" / folder / "orders.csv").write_text("id\n1\n")
    assert [f for f in _doctor_findings(scratch) if f["kind"] == "processed_without_run"] == []
    _fix(scratch)
    assert (zone / "_processed" / "replaced-20240105T101010" / "orders.csv").exists()
    assert (zone / "_processed" / "local-20240105T101010" / "orders.csv").exists()
    later = time.time() + 31 * 86400  # past the default processed_max_age_days (30)
    purged = scratch.wb.purge(now=later, namespace=scratch.ns)["items"]["processed_files"]
    assert sorted(item["path"] for item in purged) == [
        f"{scratch.ns}/landing/orders/_processed/local-20240105T101010/orders.csv",
        f"{scratch.ns}/landing/orders/_processed/replaced-20240105T101010/orders.csv"]
    assert not (zone / "_processed").exists() or not any((zone / "_processed").rglob("*.csv"))


def _fix(scratch: Scratch) -> None:
    from rat_tui.core.errors import RatError

    try:
        scratch.wb.doctor(fix=True, namespace=scratch.ns)
    except RatError:
        pass
