"""The import rule in pyproject.toml holds, and the command layer runs without Textual."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _python(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_the_import_contracts_are_kept():
    # The `lint-imports` command itself, run by this interpreter (its entry point may not be on PATH).
    done = _python("import sys; from importlinter.cli import lint_imports_command; "
                   "sys.argv = ['lint-imports', '--no-cache']; lint_imports_command()")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout, done.stdout


def test_the_command_layer_loads_no_textual():
    done = _python("import sys, rat_tui.core.commands.workbench; "
                   "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout
