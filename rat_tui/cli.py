"""`rat-tui`: launch the TUI on a project folder, or run a script headless."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rat_tui import __version__

from .core.errors import RatError

DESCRIPTION = """\
A keyboard-driven terminal workbench over a local Iceberg lakehouse.

  rat-tui [PROJECT_DIR]                 open the TUI on PROJECT_DIR (default: .)
  rat-tui [PROJECT_DIR] --script FILE   run FILE's commands headless ('-' reads stdin);
                                        JSON Lines on stdout, exit 0 ok / 1 failed / 2 bad script
  rat-tui cluster start|stop|status [PROJECT_DIR]
                                        a local Spark standalone cluster on 127.0.0.1
  rat-tui serve [PROJECT_DIR] [--port N] [--bind ADDR]
                                        run the project's triggers headless, with webhooks
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rat-tui", description=DESCRIPTION, epilog=_script_commands(),
        formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("project", nargs="?", default=".", metavar="PROJECT_DIR", help="project folder (default: .)")
    parser.add_argument("--script", metavar="FILE", help="run the commands in FILE ('-' for stdin) headless")
    parser.add_argument("--events", action="store_true", help="with --script: also print run events as JSON lines")
    parser.add_argument("--keep-going", action="store_true", help="with --script: continue after a failed command")
    parser.add_argument("--version", action="version", version=f"rat-tui {__version__}")
    return parser


def _script_commands() -> str:
    """Every script command with its arguments, read from the command table (so never out of date)."""
    from .script.commands import COMMANDS

    lines = ["script commands (one a line in FILE; blank lines and # comments are skipped):"]
    for name, spec in sorted(COMMANDS.items()):
        usage = " ".join(spec.parser.format_usage().removeprefix("usage:").split())
        if spec.free_text is not None:
            usage += f" {spec.free_text.what}…"
        if name == "write":  # the script parser reads its heredoc
            usage += " <<EOF … EOF"
        lines.append(f"  {usage}")
    return "\n".join(lines)


def _read_script(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    return Path(source).read_text(encoding="utf-8")


def cluster_main(argv: list[str]) -> int:
    """`rat-tui cluster start|stop|status [PROJECT_DIR]`: one JSON object on stdout."""
    import json

    from .core.lake import cluster
    from .core.project.model import Project

    parser = argparse.ArgumentParser(prog="rat-tui cluster", description=cluster.__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("start", "stop", "status"))
    parser.add_argument("project", nargs="?", default=".", metavar="PROJECT_DIR")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--memory", default="2g")
    args = parser.parse_args(argv)
    try:
        project = Project(args.project)
        project.state_dir.mkdir(parents=True, exist_ok=True)
        if args.action == "start":
            result = cluster.start(project, args.cores, args.memory)
            print(f"rat-tui: cluster up; set spark.master: {result['master_url']} in rat.yaml", file=sys.stderr)
        else:
            result = getattr(cluster, args.action)(project)
    except RatError as exc:
        print(f"rat-tui: {exc.sentence()}", file=sys.stderr)
        return 1
    print(json.dumps(result))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["cluster"]:
        return cluster_main(argv[1:])
    if argv[:1] == ["serve"]:
        from .serve import serve_main

        return serve_main(argv[1:])
    args = build_parser().parse_args(argv)
    from .core.commands.workbench import Workbench
    from .core.store.logs import setup_logging

    try:
        workbench = Workbench(args.project)
    except RatError as exc:
        print(f"rat-tui: {exc.sentence()}", file=sys.stderr)
        return 2
    setup_logging(workbench.project.state_dir)
    if args.script is None:
        from .tui.app import RatApp

        try:
            RatApp(workbench).run()
        finally:
            workbench.close()
        return 0
    return _run_script(workbench, args)


def _run_script(workbench, args: argparse.Namespace) -> int:
    """Parse first (a bad script runs nothing), then run it on the command layer; a script that presses
    keys, takes screenshots or reads the screen runs inside the real app, headless."""
    from .script.commands import SCREEN_COMMANDS, ScriptContext
    from .script.executor import EXIT_BAD_SCRIPT, execute, parse

    try:
        text = _read_script(args.script)
    except (OSError, UnicodeDecodeError) as exc:
        print(f"rat-tui: cannot read script {args.script}: {exc}", file=sys.stderr)
        return EXIT_BAD_SCRIPT
    lines = parse(text, sys.stdout)
    if lines is None:
        return EXIT_BAD_SCRIPT
    try:
        if not any(line.cmd in SCREEN_COMMANDS for line in lines):
            return execute(ScriptContext(workbench), lines, sys.stdout, args.keep_going, args.events)
        from .tui.app import RatApp
        from .tui.script_host import ScriptJob

        app = RatApp(workbench, warm_spark=False, script=ScriptJob(lines, args.keep_going, args.events))
        app.run(headless=True, size=(120, 40))
        return app.return_code if app.return_code is not None else 1
    finally:
        workbench.close()


if __name__ == "__main__":
    sys.exit(main())
