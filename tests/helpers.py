"""Helpers shared by tests: scripts through the real CLI, in a child process or in this one."""
from __future__ import annotations

import contextlib
import io
import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from rat_tui.core.compose import Workbench
from rat_tui.script.commands import ScriptContext
from rat_tui.script.executor import execute, parse


def run_cli(*args: str, stdin: str | None = None, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """The real `rat-tui` entry point in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "rat_tui", *args],
        input=stdin, capture_output=True, text=True, cwd=cwd, timeout=timeout,
    )


def run_cli_here(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """`run_cli` in this process: the same entry (`rat_tui.cli.main`), its stdin, stdout, stderr and exit
    status, without a child's start-up. Use `run_cli` only where the process is the point (kills,
    crashes, two processes); a script here that starts Spark needs a `spark` test (tests/tiers.py)."""
    from rat_tui.cli import main

    out, err = io.StringIO(), io.StringIO()
    logger = logging.getLogger()
    handlers, level = list(logger.handlers), logger.level  # main() points the root logger at the project's log
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _stdin(io.StringIO(stdin or "")):
            try:
                status = main(list(args))
            except SystemExit as exc:  # argparse: --help, --version, bad options
                status = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    finally:
        for handler in [h for h in logger.handlers if h not in handlers]:
            logger.removeHandler(handler)
            handler.close()
        logger.setLevel(level)
    return subprocess.CompletedProcess(list(args), status, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _stdin(stream: io.StringIO):
    saved, sys.stdin = sys.stdin, stream
    try:
        yield
    finally:
        sys.stdin = saved


def results_of(proc: subprocess.CompletedProcess) -> tuple[int, list[dict], str]:
    """A script's (exit status, parsed JSON lines, stderr)."""
    return proc.returncode, [json.loads(line) for line in proc.stdout.splitlines() if line.strip()], proc.stderr


def run_script(project: Path, script: str, *flags: str, timeout: float = 300) -> tuple[int, list[dict], str]:
    """Run a script through the CLI in a child process; returns (exit status, parsed JSON lines, stderr)."""
    return results_of(run_cli(str(project), "--script", "-", *flags, stdin=script, timeout=timeout))


def run_script_here(project: Path, script: str, *flags: str) -> tuple[int, list[dict], str]:
    """`run_script` in this process (`run_cli_here`): what the child would print, and its exit status."""
    return results_of(run_cli_here(str(project), "--script", "-", *flags, stdin=script))


def archiving_raw_orders(namespace_dir: Path) -> None:
    """The sample's raw_orders under `namespace_dir` archives its zone (the sample itself leaves its files in place)."""
    sql = namespace_dir / "pipelines" / "bronze" / "raw_orders" / "pipeline.sql"
    sql.write_text("-- @archive_landing_zones: true\n" + sql.read_text())


def dead_pid() -> int:
    """The pid of a process that has exited (a stuck run's process is gone)."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def script(wb: Workbench, text: str) -> tuple[int, list[dict]]:
    """Run a script in this process on `wb`; returns (exit status, parsed JSON lines)."""
    out = io.StringIO()
    status = execute(ScriptContext(wb), parse(text, out), out)
    return status, [json.loads(line) for line in out.getvalue().splitlines()]


@contextlib.contextmanager
def rat_yaml_extra(wb: Workbench, text: str) -> Iterator[None]:
    """`text` added to the project's rat.yaml for the block, for `wb` and the processes started in it."""
    path = wb.project.root / "rat.yaml"
    before = path.read_text() if path.exists() else ""
    path.write_text(before + "\n" + text)
    wb.project.reload_settings()
    try:
        yield
    finally:
        path.write_text(before)
        wb.project.reload_settings()
