"""Real kills (SIGKILL of a `rat-tui --script` run paused at a named point, at a moment seen in the
table's metadata, or at any time), a run held at a point until resumed, and the archiving pipeline
the kill tests run: shared by the reliability, guarantee, kill, schema and bucket-run tests."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from rat_tui.core.lake.metadata import current_metadata_file
from tests.helpers import rat_yaml_extra
from tests.lakehelpers import Scratch

ARCHIVING = "-- @merge_strategy: append_only\n-- @archive_landing_zones: true\nSELECT id FROM {{ landing_zone('drops') }}"


def runs_may_overlap(project_root: Path, wb):
    """`runs.serialise_same_pipeline: false` in rat.yaml for the block, for this process and the processes
    started in it: runs of one pipeline overlap (each process, and each run, then skips the pipeline's lock)."""
    assert wb.project.root == project_root.resolve()
    return rat_yaml_extra(wb, "runs:\n  serialise_same_pipeline: false\n")


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
    version = scratch.wb.version_store.record(f"{scratch.ns}/pipelines/bronze/orders/pipeline.sql", ARCHIVING.encode())
    return fqn, scratch.refs(fqn), {"landing": landing_state(scratch), "version": version}


def kill_at(project: Path, fqn: str, point: str, tmp: Path, line: str | None = None) -> str:
    """SIGKILL a script running `line` (default `run FQN`) in a child process once it reaches `point`."""
    marker = tmp / f"paused-{point.replace(':', '-')}"
    env = {**os.environ, "RAT_TEST_PAUSE_AT": point, "RAT_TEST_PAUSE_FILE": str(marker)}
    proc = subprocess.Popen([sys.executable, "-m", "rat_tui", str(project), "--script", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True)
    proc.stdin.write(f"{line or f'run {fqn}'}\n".encode())
    proc.stdin.close()
    deadline = time.monotonic() + 240
    while not marker.exists():
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
        assert time.monotonic() < deadline, f"never reached {point}"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(30)
    return marker.read_text()


def start_run(project: Path, fqn: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "rat_tui", str(project), "--script", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    proc.stdin.write(f"run {fqn}\n".encode())
    proc.stdin.close()
    return proc


def kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(30)


def metadata_value(table_dir: Path, key: str):
    """One field of the table's current metadata file (`current-snapshot-id`, `current-schema-id`)."""
    path = current_metadata_file(table_dir)
    return json.loads(path.read_text()).get(key) if path else None


def kill_when_metadata_changes(proc: subprocess.Popen, table_dir: Path, key: str, timeout: float = 240) -> bool:
    """SIGKILL the instant one field of the table's metadata changes (seen from outside, as any reader
    sees it); False if the run ended first."""
    before = metadata_value(table_dir, key)
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            changed = metadata_value(table_dir, key) != before
        except (OSError, ValueError):  # a metadata file being written
            changed = False
        if changed:
            kill(proc)
            return True
        time.sleep(0.002)
    kill(proc)
    return False


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
