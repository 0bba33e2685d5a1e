"""Real kills (SIGKILL of a `rat-tui --script` run paused at a named point) and the archiving
pipeline the kill tests run: shared by the reliability, guarantee and bucket-run tests."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.lakehelpers import Scratch

ARCHIVING = "-- @merge_strategy: append_only\n-- @archive_landing_zones: true\nSELECT id FROM {{ landing_zone('drops') }}"


def landing_state(scratch: Scratch) -> dict[str, list[str]]:
    zone = scratch.root / "landing" / "drops"
    files = sorted(p.relative_to(zone).as_posix() for p in zone.rglob("*.csv") if p.is_file())
    return {"active": [f for f in files if not f.startswith("_")], "processed": [f for f in files if f.startswith("_processed")]}


def setup(scratch: Scratch) -> tuple[str, dict, dict]:
    scratch.landing("drops", "a.csv", "id\n1\n")
    fqn = scratch.pipeline("bronze", "orders", ARCHIVING, tests={"t": "SELECT * FROM {{ this }} WHERE id IS NULL"})
    assert scratch.run(fqn)["status"] == "success"
    scratch.landing("drops", "b.csv", "id\n2\n")
    scratch.landing("drops", "nested/c.csv", "id\n3\n")
    version = scratch.wb.versions.record(f"{scratch.ns}/pipelines/bronze/orders/pipeline.sql", ARCHIVING.encode())
    return fqn, scratch.refs(fqn), {"landing": landing_state(scratch), "version": version}


def kill_at(project: Path, fqn: str, point: str, tmp: Path) -> str:
    marker = tmp / f"paused-{point.replace(':', '-')}"
    env = {**os.environ, "RAT_TEST_PAUSE_AT": point, "RAT_TEST_PAUSE_FILE": str(marker)}
    proc = subprocess.Popen([sys.executable, "-m", "rat_tui", str(project), "--script", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True)
    proc.stdin.write(f"run {fqn}\n".encode())
    proc.stdin.close()
    deadline = time.monotonic() + 240
    while not marker.exists():
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
        assert time.monotonic() < deadline, f"never reached {point}"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(30)
    return marker.read_text()
