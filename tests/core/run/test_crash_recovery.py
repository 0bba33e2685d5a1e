"""SIGKILL a run in phase 3 (at a deterministic pause point); the next start cleans up."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import run_script_here

pytestmark = pytest.mark.spark


def kill_at(project: Path, pipeline: str, point: str, tmp: Path) -> None:
    marker = tmp / f"paused-{time.monotonic_ns()}"
    env = {**os.environ, "RAT_TEST_PAUSE_AT": point, "RAT_TEST_PAUSE_FILE": str(marker)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "rat_tui", str(project), "--script", "-"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True,
    )
    proc.stdin.write(f"run {pipeline}\n".encode())
    proc.stdin.close()
    deadline = time.monotonic() + 180
    while not marker.exists():
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline, "the run never reached the pause point"
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(30)


def test_kill_during_iceberg_write_leaves_main_and_next_start_cleans_up(sample_copy: Path, tmp_path: Path):
    status, results, _ = run_script_here(sample_copy, "run ecommerce.bronze.raw_products\nsnapshots ecommerce.bronze.raw_products\n")
    assert status == 0, results
    main_before = results[1]["refs"]["main"]

    kill_at(sample_copy, "ecommerce.bronze.raw_products", "during:iceberg_write", tmp_path)
    kill_at(sample_copy, "ecommerce.bronze.raw_orders", "during:iceberg_write", tmp_path)
    orders_table = sample_copy / "ecommerce" / "warehouse" / "bronze" / "raw_orders"
    assert orders_table.exists(), "the killed run had created its table"

    # the next start: this process's own, after the killed children
    status, results, stderr = run_script_here(sample_copy, "snapshots ecommerce.bronze.raw_products\nruns\n")
    assert status == 0, results
    assert results[0]["refs"] == {"main": main_before}
    runs = {r["pipeline"]: r for r in results[1]["runs"] if r["status"] == "failed"}
    assert set(runs) == {"ecommerce.bronze.raw_products", "ecommerce.bronze.raw_orders"}
    assert all("stopped before the run finished" in r["error"] for r in runs.values())
    assert not orders_table.exists()
    assert "dropped table ecommerce.bronze.raw_orders" in stderr
    # the landing zone is untouched: nothing was archived by the killed run
    assert len(list((sample_copy / "ecommerce" / "landing" / "orders").glob("*.csv"))) == 3
