"""Two processes running one pipeline (issue 27, item 6): the second waits for the first and then runs
once; a SIGKILL of the one holding the pipeline lets the other go on. Real processes, bounded waits."""
from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.killhelpers import PausedRun, kill
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark
APPEND = "-- @merge_strategy: append_only\nSELECT 1 AS id"


def script_process(project: Path, text: str, *flags: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "rat_tui", str(project), "--script", "-", *flags],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    proc.stdin.write(text)
    proc.stdin.close()
    proc.stdin = None  # communicate() must not flush it again
    return proc


def until(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def queued_others(scratch: Scratch, fqn: str, but: set[str]) -> list[str]:
    return [r["run_id"] for r in scratch.wb.browse.runs(fqn).as_dict()["runs"] if r["status"] == "queued" and r["run_id"] not in but]


def test_a_second_process_waits_for_the_run_in_flight_then_runs_once(scratch: Scratch, tmp_path: Path):
    fqn = scratch.pipeline("silver", "twice", APPEND)
    root = scratch.wb.project.root
    first = PausedRun(root, fqn, "after:build_result", tmp_path)  # holds the pipeline, half-way through
    second = None
    try:
        held = {r["run_id"] for r in scratch.wb.browse.runs(fqn).as_dict()["runs"]}
        second = script_process(root, f"run {fqn}\n", "--events")
        until(lambda: queued_others(scratch, fqn, held), 240, "the second process to queue its run")
        time.sleep(2)  # the first run is held: the second must still be waiting, not failing
        assert second.poll() is None and queued_others(scratch, fqn, held)
        first_result = first.finish()
        out, err = second.communicate(timeout=240)
    finally:
        first.kill()
        if second is not None:
            kill(second)
    lines = [json.loads(line) for line in out.splitlines() if line.strip()]
    result = next(line for line in lines if "cmd" in line)
    assert first_result["ok"] is True and result["ok"] is True, err[-2000:]
    assert any(line.get("event") == "LogLine" and "is running in another process" in line["message"] for line in lines)
    runs = sorted(scratch.wb.browse.runs(fqn).as_dict()["runs"], key=lambda r: r["started_at"])
    assert [r["status"] for r in runs] == ["success", "success"]
    assert runs[1]["started_at"] >= runs[0]["finished_at"]  # one after the other, never side by side
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[1], [1]]  # each run appended once


POINTS = ["after:config_loading", "after:build_result", "during:iceberg_write", "after:iceberg_write",
          "after:quality_tests"]


@pytest.mark.parametrize("point", ["after:iceberg_write", random.choice(POINTS)], ids=["table-made", "random"])
def test_a_sigkill_of_the_process_holding_the_pipeline_lets_the_other_run(scratch: Scratch, tmp_path: Path, point: str):
    """At `after:iceberg_write` the killed run had created the new table: the run that waited writes into it,
    and cleaning up after the killed run must not drop it."""
    print(f"killing the holder at {point}")
    fqn = scratch.pipeline("silver", "killed", APPEND)
    holder = PausedRun(scratch.wb.project.root, fqn, point, tmp_path)
    try:
        handle = scratch.wb.runs.submit(fqn)  # in this process: it waits for the holder
        time.sleep(1)
        assert handle.record.status == "queued"
        kill_at = time.monotonic()
        holder.kill()
        record = handle.wait(120)
    finally:
        holder.kill()
    assert record.status == "success", record.error
    assert time.monotonic() - kill_at < 60
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[1]]  # the killed run never reached main
    statuses = sorted(r["status"] for r in scratch.wb.browse.runs(fqn).as_dict()["runs"])
    assert statuses == ["failed", "success"]  # the killed run is marked failed by the one that waited for it
    scratch.wb.runs.cleanup_leftovers()  # what the next run or start does after a crash
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[1]]
    assert list(scratch.refs(fqn)) == ["main"]


LOCK_THEN_LINGER = """
import os, sys, time
from pathlib import Path
from rat_tui.core.run_record import RunRecord
from rat_tui.core.store.locks import hold_now
from rat_tui.core.store.state import StateDB

state_dir, fqn, run_id, ends = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
state = StateDB(state_dir / "state.db")
state.insert_run(RunRecord(run_id, fqn, "running", started_at=time.time()))
fd = hold_now(state_dir, fqn, f"{run_id} (pid {os.getpid()})")
print("held", flush=True)
sys.stdin.readline()
os.close(fd)  # the lock is free while this process lives on
time.sleep(0.5)
if ends == "recorded":  # a live holder records its run's end just after it lets go of the lock
    state.update_run(run_id, status="success", finished_at=time.time())
    time.sleep(3)
os._exit(0)  # else: as a killed process, whose lock the kernel frees before the process is gone
"""


@pytest.mark.parametrize("ends", ["gone", "recorded"])
def test_a_holder_still_alive_when_its_lock_frees_is_waited_out(scratch: Scratch, ends: str):
    """The gap a SIGKILL leaves: the kernel closes a killed process's files (and frees its lock) before the
    process is gone. The waiting run found the holder's pid alive and left its run `running` for good. And a
    live holder records its run's end only after it lets go: that run must not be marked failed."""
    fqn = scratch.pipeline("silver", "lingers", APPEND)
    state_dir = scratch.wb.project.state_dir
    holder = subprocess.Popen([sys.executable, "-c", LOCK_THEN_LINGER, str(state_dir), fqn, f"held-{ends}", ends],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        handle = scratch.wb.runs.submit(fqn)
        until(lambda: handle.record.status == "queued" and not handle.done.is_set(), 30, "the run to wait")
        time.sleep(0.5)
        holder.stdin.write("go\n")
        holder.stdin.flush()
        record = handle.wait(120)
    finally:
        holder.kill()
        holder.wait(30)
    assert record.status == "success", record.error
    held_run = scratch.wb.state.get_run(f"held-{ends}")
    assert held_run.status == ("failed" if ends == "gone" else "success")
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[1]]
