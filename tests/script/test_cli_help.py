"""`rat-tui --help` lists every script command with its arguments."""
from __future__ import annotations

from rat_tui.script.commands import COMMANDS
from tests.helpers import run_cli_here


def test_help_lists_every_script_command_by_group():
    proc = run_cli_here("--help")
    assert proc.returncode == 0
    listed = proc.stdout.split("\ncommands (", 1)[1].splitlines()[1:]
    groups = [line.strip() for line in listed if line.startswith("  ") and not line.startswith("    ")]
    assert groups[:2] == ["project:", "build and test:"] and groups[-1].startswith("in scripts only")
    names = [line.split()[0] for line in listed if line.startswith("    ")]
    assert sorted(name for name in names if name not in ("init", "cluster", "serve")) == sorted(COMMANDS)
    for expected in ("  run [--full-refresh] [--published] [--reload-files] [--review] [--dry-run] pipeline", "  query SQL…", "  export path SQL…",
                     "  write path <<EOF … EOF", "  sample [--limit LIMIT] namespace zone [file]"):
        assert "  " + expected in listed
