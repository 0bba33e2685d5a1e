"""The import rule in pyproject.toml holds, and the command layer runs without Textual."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
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


@pytest.mark.parametrize("module, source, broken, offence", [
    # The model layer parses nothing through the JVM (the read-only SQL check lives in lake/).
    ("core/project/spark_parse.py", "from pyspark.sql import SparkSession\n",
     ["the project model (and what it stands on) never loads pyspark", "pyspark is imported only in the rooms"],
     "rat_tui.core.project.spark_parse -> pyspark"),
    ("tui/spark_peek.py", "import pyspark.sql\n", ["pyspark is imported only in the rooms"],
     "rat_tui.tui.spark_peek -> pyspark"),
    # The long-running services are a room of their own, below the composition root that builds them.
    ("core/background/reach_up.py", "from .. import compose\n",
     ["core rooms import only downwards", "no import circles inside a room"],
     "rat_tui.core.background.reach_up -> rat_tui.core.compose"),
    # A key handler gets the app as a host protocol (tui/host.py), never the App that builds it.
    ("tui/keys/reach_app.py", "from ..app import RatApp\n", ["no import circles in the TUI"], ".keys -> .app"),
])
def test_a_module_in_the_wrong_room_breaks_its_contract(tmp_path, module, source, broken, offence):
    shutil.copytree(ROOT / "rat_tui", tmp_path / "rat_tui", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "rat_tui" / module).write_text(source)
    done = _python(LINT_IMPORTS, tmp_path)
    assert done.returncode != 0, done.stdout
    report = " ".join(done.stdout.split())  # the report wraps long contract names
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    summary = report.split("Contracts: ")[0]
    broken_now = sorted(c["name"] for c in contracts if f"{c['name']} BROKEN" in summary)
    assert broken_now == sorted(c["name"] for c in contracts if any(c["name"].startswith(b) for b in broken)), report
    assert offence in report, report


def test_the_command_layer_loads_no_textual():
    done = _python("import sys, rat_tui.core.compose; "
                   "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout


def test_the_command_layer_loads_the_openlineage_client_with_the_first_run_not_before():
    """Its import costs a few hundred milliseconds that a `query` in a process of its own never needs."""
    done = _python("import sys, rat_tui.core.compose; "
                   "print(sorted(m for m in sys.modules if m.split('.')[0] == 'openlineage'))")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout
