"""Helpers shared by tests: scripts through the real CLI or in this process."""
from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from rat_tui.core.commands.workbench import Workbench
from rat_tui.script.commands import ScriptContext
from rat_tui.script.executor import execute, parse


def run_cli(*args: str, stdin: str | None = None, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """The real `rat-tui` entry point in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "rat_tui", *args],
        input=stdin, capture_output=True, text=True, cwd=cwd, timeout=timeout,
    )


def run_script(project: Path, script: str, *flags: str, timeout: float = 300) -> tuple[int, list[dict], str]:
    """Run a script through the CLI; returns (exit status, parsed JSON lines, stderr)."""
    proc = run_cli(str(project), "--script", "-", *flags, stdin=script, timeout=timeout)
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return proc.returncode, lines, proc.stderr


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
