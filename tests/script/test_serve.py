"""`rat-tui serve` as a real process (issue 38): a webhook with a wrong token then the right one, a cron
time due during the test, SIGKILL mid-run then a restart that recovers and never fires the claimed tick
again, and SIGTERM mid-run that lets the run finish and exits 0. Runs are held at a pause point
(core/testpoints.py) while a resume file is absent, so "mid-run" is a moment, not a guess."""
from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.helpers import run_cli, run_script_here

pytestmark = pytest.mark.spark


class Serve:
    def __init__(self, project: Path, tmp: Path):
        self.resume, self.marker = tmp / "resume", tmp / "paused"
        env = {**os.environ, "RAT_TEST_PAUSE_AT": "after:config_loading", "RAT_TEST_PAUSE_FILE": str(self.marker),
               "RAT_TEST_RESUME_FILE": str(self.resume)}
        self.log = tmp / f"serve-{time.monotonic_ns()}.log"
        self.proc = subprocess.Popen([sys.executable, "-m", "rat_tui", "serve", str(project), "--port", "0",
                                      "--interval", "1"], stdout=self.log.open("w"), stderr=subprocess.STDOUT,
                                     env=env, start_new_session=True)
        self.url = self.wait_for(r"webhooks on (http://127\.0\.0\.1:\d+)/hooks").group(1)

    def lines(self) -> str:
        return self.log.read_text()

    def wait_for(self, pattern: str, timeout: float = 240, after: int = 0) -> re.Match:
        deadline = time.monotonic() + timeout
        while True:
            found = re.search(pattern, self.lines()[after:])
            if found:
                return found
            assert self.proc.poll() is None, self.lines()
            assert time.monotonic() < deadline, f"no {pattern!r} in:\n{self.lines()}"
            time.sleep(0.2)

    def post(self, pipeline: str, token: str) -> tuple[int, dict]:
        request = urllib.request.Request(f"{self.url}/hooks/{pipeline}", method="POST",
                                         headers={"Authorization": f"Bearer {token}"})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(30)


def run_status(project: Path, run_id: str) -> str:
    with sqlite3.connect(project / ".rat" / "state.db") as db:
        return db.execute("SELECT status FROM runs WHERE run_id = ?", (run_id,)).fetchone()[0]


def wait_status(project: Path, run_id: str, timeout: float = 240) -> str:
    deadline = time.monotonic() + timeout
    while (status := run_status(project, run_id)) in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.2)
    return status


def test_serve_webhooks_cron_sigkill_restart_and_sigterm(sample_copy: Path, tmp_path: Path):
    for name, config in (("hook", "triggers:\n  - webhook: true\n"), ("minutely", 'triggers:\n  - cron: "* * * * *"\n')):
        folder = sample_copy / "auto" / "pipelines" / "bronze" / name
        folder.mkdir(parents=True)
        (folder / "pipeline.sql").write_text("SELECT 1 AS x\n")
        (folder / "config.yaml").write_text(config)
    status, results, stderr = run_script_here(sample_copy, "webhook-token auto.bronze.hook\n")
    assert status == 0, (results, stderr)
    token = results[0]["token"]
    (tmp_path / "resume").write_text("go")  # runs pass the pause point for now
    first = Serve(sample_copy, tmp_path)
    try:
        assert first.post("auto.bronze.hook", "wrong") == (401, {"ok": False, "message": "missing or wrong token",
                                                                 "run_id": None})
        code, answer = first.post("auto.bronze.hook", token)
        assert code == 202, answer
        assert wait_status(sample_copy, answer["run_id"]) == "success"
        with sqlite3.connect(sample_copy / ".rat" / "state.db") as db:
            assert db.execute("SELECT count(*) FROM runs WHERE pipeline = 'auto.bronze.hook'").fetchone()[0] == 1
        # serve holds the project's engine: a script attaches to it (issue 41) and reads what serve wrote
        engine = sample_copy / ".rat" / "engine.sock"
        assert stat.S_ISSOCK(engine.stat().st_mode) and stat.S_IMODE(engine.stat().st_mode) == 0o600
        attached = run_cli(str(sample_copy), "--script", "-", stdin="query SELECT x FROM auto.bronze.hook\n")
        assert attached.returncode == 0 and json.loads(attached.stdout)["rows"] == [[1]], attached

        (tmp_path / "resume").unlink()  # the next run holds mid-run
        first.marker.unlink(missing_ok=True)
        mark = len(first.lines())
        cron = first.wait_for(r"fired cron tick of auto\.bronze\.minutely for (\S+) run (\w+)", 150, after=mark)
        killed_at, killed_run = cron.group(1), cron.group(2)
        while not first.marker.exists():
            assert run_status(sample_copy, killed_run) in ("queued", "running")
            time.sleep(0.1)
    finally:
        first.stop()  # SIGKILL, mid-run

    first.marker.unlink()
    second = Serve(sample_copy, tmp_path)
    try:
        second.wait_for(f"recovered run {killed_run} of auto.bronze.minutely")
        assert run_status(sample_copy, killed_run) == "failed"
        cron = second.wait_for(r"fired cron tick of auto\.bronze\.minutely for (\S+) run (\w+)", 150)
        assert cron.group(1) != killed_at  # the claimed tick never fires again
        while not second.marker.exists():
            time.sleep(0.1)
        second.proc.send_signal(signal.SIGTERM)
        second.wait_for(f"letting run {cron.group(2)} of auto.bronze.minutely finish")
        (tmp_path / "resume").write_text("go")
        assert second.proc.wait(120) == 0, second.lines()
        assert "stopped" in second.lines().splitlines()[-1]
        assert not (sample_copy / ".rat" / "engine.sock").exists()  # later scripts start an engine of their own
        assert run_status(sample_copy, cron.group(2)) == "success"
    finally:
        second.stop()
    status, results, stderr = run_script_here(sample_copy, "ticks auto.bronze.minutely --limit 100\n")
    fired = [(t["scheduled_for"], t["run_id"]) for t in results[0]["ticks"] if t["outcome"] == "fired"]
    assert fired.count((killed_at, killed_run)) == 1 and len({at for at, _ in fired}) == len(fired)
    assert "webhook tick" not in second.lines()  # the restart fired no webhook tick again


def test_ctrl_c_after_the_reader_of_its_output_went_away_still_lets_the_run_finish(sample_copy: Path, tmp_path: Path):
    """`rat-tui serve | tee serve.log`, Ctrl+C mid-run: tee stops too, serve's next line met a closed pipe, and
    the error stopped serve with its Spark: the run failed ("SparkContext was shut down") and serve exited 1."""
    folder = sample_copy / "auto" / "pipelines" / "bronze" / "hook"
    folder.mkdir(parents=True)
    (folder / "pipeline.sql").write_text("SELECT 1 AS x\n")
    (folder / "config.yaml").write_text("triggers:\n  - webhook: true\n")
    status, results, stderr = run_script_here(sample_copy, "webhook-token auto.bronze.hook\n")
    assert status == 0, (results, stderr)
    marker, resume, errors = tmp_path / "paused", tmp_path / "resume", tmp_path / "stderr.log"
    env = {**os.environ, "RAT_TEST_PAUSE_AT": "after:config_loading", "RAT_TEST_PAUSE_FILE": str(marker),
           "RAT_TEST_RESUME_FILE": str(resume)}
    proc = subprocess.Popen([sys.executable, "-m", "rat_tui", "serve", str(sample_copy), "--port", "0", "--interval", "1"],
                            stdout=subprocess.PIPE, stderr=errors.open("w"), env=env, text=True,
                            start_new_session=True)
    try:
        url = None
        while url is None:
            line = proc.stdout.readline()
            assert line, errors.read_text()
            found = re.search(r"webhooks on (http://127\.0\.0\.1:\d+)/hooks", line)
            url = found.group(1) if found else None
        request = urllib.request.Request(f"{url}/hooks/auto.bronze.hook", method="POST",
                                         headers={"Authorization": f"Bearer {results[0]['token']}"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            run_id = json.loads(answer.read())["run_id"]
        deadline = time.monotonic() + 240
        while not marker.exists():  # the run holds mid-run
            assert proc.poll() is None and time.monotonic() < deadline, errors.read_text()
            time.sleep(0.1)
        proc.stdout.close()  # the reader goes away, as tee does on Ctrl+C
        proc.send_signal(signal.SIGINT)
        time.sleep(2)  # serve says "stopping" and "letting run … finish" into the closed pipe meanwhile
        assert proc.poll() is None, errors.read_text()
        resume.write_text("go")
        assert proc.wait(120) == 0, errors.read_text()
        assert run_status(sample_copy, run_id) == "success"
        assert "Traceback" not in errors.read_text()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)
