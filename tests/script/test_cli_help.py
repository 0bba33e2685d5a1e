"""`rat-tui --help` lists every script command with its arguments."""
from __future__ import annotations

from rat_tui.script.commands import COMMANDS
from tests.helpers import run_cli_here


def test_help_lists_every_script_command():
    proc = run_cli_here("--help")
    assert proc.returncode == 0
    shown = proc.stdout
    listed = shown.split("script commands", 1)[1].splitlines()[1:]
    assert sorted(line.split()[0] for line in listed if line.strip()) == sorted(COMMANDS)
    for expected in ("  run [--full-refresh] [--published] [--reload-files] [--review] pipeline", "  query SQL…", "  export path SQL…",
                     "  write path <<EOF … EOF", "  sample [--limit LIMIT] namespace zone [file]"):
        assert expected in listed
