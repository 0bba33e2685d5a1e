"""The import rule in pyproject.toml holds, and the command layer runs without Textual."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The `lint-imports` command itself, run by this interpreter (its entry point may not be on PATH).
LINT_IMPORTS = ("import sys; from importlinter.cli import lint_imports_command; "
                "sys.argv = ['lint-imports', '--no-cache']; lint_imports_command()")


def _python(code: str, root: Path = ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=300)


def test_the_import_contracts_are_kept():
    done = _python(LINT_IMPORTS)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout, done.stdout


@pytest.mark.parametrize("module, source, broken", [
    # The model layer parses nothing through the JVM (the read-only SQL check lives in lake/).
    ("core/project/spark_parse.py", "from pyspark.sql import SparkSession\n",
     ["the project model (and what it stands on) never loads pyspark", "pyspark is imported only in the rooms"]),
    ("tui/spark_peek.py", "import pyspark.sql\n", ["pyspark is imported only in the rooms"]),
    # The long-running services are a room of their own, below the command layer that owns them.
    ("core/background/reach_up.py", "from ..commands import workbench\n",
     ["core rooms import only downwards", "no import circles inside a room"]),
])
def test_a_module_in_the_wrong_room_breaks_its_contract(tmp_path, module, source, broken):
    shutil.copytree(ROOT / "rat_tui", tmp_path / "rat_tui", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "rat_tui" / module).write_text(source)
    done = _python(LINT_IMPORTS, tmp_path)
    assert done.returncode != 0, done.stdout
    report = " ".join(done.stdout.split())  # the report wraps long contract names
    statuses = dict(re.findall(r"(\S[^.]*?) (KEPT|BROKEN)\b", report.split("Contracts: ")[0].split("-- ")[-1]))
    broken_now = sorted(name for name, status in statuses.items() if status == "BROKEN")
    assert broken_now == sorted(name for name in statuses if any(name.startswith(b) for b in broken)), statuses
    assert f"rat_tui.{module.removesuffix('.py').replace('/', '.')} ->" in report, report


def test_the_command_layer_loads_no_textual():
    done = _python("import sys, rat_tui.core.commands.workbench; "
                   "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout
