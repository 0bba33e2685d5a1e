"""A failure anywhere leaves main, the landing zone and the version store as they were.

Kills are real (SIGKILL of a `rat-tui --script` process paused at a named point); the
recovery after them runs the same start-up functions the app runs.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from rat_tui.core.events import PhaseStarted, RunQueued
from rat_tui.core.run.recovery import mark_orphans
from tests.killhelpers import ARCHIVING, kill_at, landing_state, setup
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark

KILL_POINTS = ["after:branch_creation", "after:config_loading", "after:build_result", "during:iceberg_write",
               "after:iceberg_write", "after:quality_tests", "during:archive"]
PHASES = ["branch_creation", "config_loading", "build_result", "iceberg_write", "quality_tests", "branch_resolution"]


def assert_untouched(scratch: Scratch, fqn: str, refs: dict, before: dict) -> None:
    assert scratch.refs(fqn) == refs
    assert landing_state(scratch) == before["landing"]
    assert scratch.wb.version_store.read(before["version"]) == ARCHIVING.encode()
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[1]]


def test_sigkill_at_every_phase_and_the_archival_step(scratch: Scratch, tmp_path: Path):
    fqn, refs, before = setup(scratch)
    wb = scratch.wb
    for point in KILL_POINTS:
        assert kill_at(wb.project.root, fqn, point, tmp_path) == point
        # what the next start of the app does:
        orphans = [r for r in mark_orphans(wb.state, wb.project) if r.pipeline == fqn]
        wb.runs.cleanup_leftovers()
        assert [r.status for r in orphans] == ["running"], point
        record = wb.state.get_run(orphans[0].run_id)
        assert record.status == "failed" and "stopped before the run finished" in record.error, point
        assert_untouched(scratch, fqn, refs, before)
    # and the pipeline still runs normally afterwards, reading each new file exactly once
    assert scratch.run(fqn)["status"] == "success"
    assert scratch.rows(f"SELECT id FROM {fqn} ORDER BY id") == [[1], [2], [3]]
    assert landing_state(scratch)["active"] == []


@pytest.mark.parametrize("phase", PHASES)
def test_cancel_in_every_phase(scratch: Scratch, phase: str):
    fqn, refs, before = setup(scratch)
    queued: list[str] = []  # the run's id, from its RunQueued: its first phase may start before submit returns
    fired = threading.Event()

    def cancel(event) -> None:
        if isinstance(event, RunQueued) and event.pipeline == fqn:
            queued.append(event.run_id)
        if isinstance(event, PhaseStarted) and event.phase == phase and event.run_id in queued and not fired.is_set():
            fired.set()
            scratch.wb.runs.cancel(event.run_id)

    unsubscribe = scratch.wb.events.subscribe(cancel)
    try:
        record = scratch.wb.runner.submit(scratch.wb.browse.resolve(fqn)).wait(120)
    finally:
        unsubscribe()
    assert fired.is_set() and record.status == "cancelled"
    assert_untouched(scratch, fqn, refs, before)


def test_a_conflicting_commit_is_reported_never_overwritten(scratch: Scratch):
    fqn = scratch.pipeline("silver", "c", "-- @merge_strategy: append_only\nSELECT 1 AS id")
    scratch.run(fqn)

    def sneak_in(event) -> None:
        if isinstance(event, PhaseStarted) and event.phase == "quality_tests":
            with scratch.wb.spark.using() as spark:
                spark.sql(f"INSERT INTO `{scratch.ns}`.silver.c SELECT 99 AS id")

    unsubscribe = scratch.wb.events.subscribe(sneak_in)
    try:
        run = scratch.run(fqn)
    finally:
        unsubscribe()
    assert run["status"] == "failed"
    assert f"main of {fqn} moved while this run was running" in run["error"]
    assert scratch.rows(f"SELECT id FROM {fqn} ORDER BY id") == [[1], [99]]  # the other commit stands
    assert list(scratch.refs(fqn)) == ["main"]


def test_four_pipelines_at_once_and_two_of_the_same(scratch: Scratch):
    names = [scratch.pipeline("bronze", f"p{i}", f"-- @merge_strategy: append_only\nSELECT {i} AS id, id AS n FROM range(100)")
             for i in range(4)]
    handles = [scratch.wb.runs.submit(n) for n in names] + [scratch.wb.runs.submit(names[0])]
    records = [h.wait(180) for h in handles]
    assert [r.status for r in records] == ["success"] * 5
    for i, name in enumerate(names):
        expected = 200 if i == 0 else 100
        assert scratch.rows(f"SELECT COUNT(*), MIN(id), MAX(id) FROM {name}") == [[expected, i, i]]
    same = [r for r in records if r.pipeline == names[0]]
    assert same[0].finished_at <= same[1].started_at
    overlapping = any(a.started_at < b.finished_at and b.started_at < a.finished_at
                      for a in records[:4] for b in records[:4] if a is not b)
    assert overlapping, "different pipelines ran concurrently"


def test_two_processes_share_state(scratch: Scratch, tmp_path: Path):
    from tests.helpers import run_script

    fqn = scratch.pipeline("bronze", "shared", "SELECT 1 AS id")
    marker = tmp_path / "paused"
    env = {**os.environ, "RAT_TEST_PAUSE_AT": "after:build_result", "RAT_TEST_PAUSE_FILE": str(marker)}
    other = subprocess.Popen([sys.executable, "-m", "rat_tui", str(scratch.wb.project.root), "--script", "-"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                             start_new_session=True)
    other.stdin.write(f"run {fqn}\n".encode())
    other.stdin.close()
    try:
        deadline = time.monotonic() + 240
        while not marker.exists():
            assert other.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        # this process sees the other's live run, and does not take it for a crashed one
        live = scratch.wb.browse.runs(fqn).as_dict()["runs"]
        assert [r["status"] for r in live] == ["running"]
        assert [r for r in mark_orphans(scratch.wb.state, scratch.wb.project) if r.pipeline == fqn] == []
        status, results, _ = run_script(scratch.wb.project.root, f"runs {fqn}\n")
        assert status == 0 and [r["status"] for r in results[0]["runs"]] == ["running"]
    finally:
        os.killpg(other.pid, signal.SIGKILL)
        other.wait(30)


def test_a_run_whose_spark_fails_in_its_cleanup_keeps_its_own_error(scratch: Scratch, monkeypatch):
    """A JVM that died under a run (out of memory, `serve` stopping) fails every call of the run's cleanup too:
    its first call raised, and the run's error became "internal error (Py4JError: … setLocalProperty)" instead
    of what happened. The failure is made at that call here; the run's own error must stay."""
    from pyspark import SparkContext
    from py4j.protocol import Py4JError

    set_property = SparkContext.setLocalProperty

    def dead_at_cleanup(self, key, value):
        if key == "spark.jobGroup.id" and value is None:
            raise Py4JError("An error occurred while calling o52.setLocalProperty")
        return set_property(self, key, value)

    fqn = scratch.pipeline("silver", "broken", "SELECT no_such_column FROM range(3)")
    monkeypatch.setattr(SparkContext, "setLocalProperty", dead_at_cleanup)
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert run["error"].startswith(f"{scratch.ns}/pipelines/silver/broken/pipeline.sql:1: SQL error:"), run["error"]
    assert "no_such_column" in run["error"] and "internal error" not in run["error"]
