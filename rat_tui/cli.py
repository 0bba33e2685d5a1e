"""`rat-tui`: open the TUI on a project folder, run a script headless, or run one command from the shell."""
from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from rat_tui import __version__

from .core.errors import RatError, did_you_mean
from .script.executor import EXIT_BAD_SCRIPT, EXIT_FAILED, EXIT_OK, parse

DESCRIPTION = """\
A keyboard-driven terminal workbench over a local Iceberg lakehouse.

  rat-tui [PROJECT_DIR]                 open the TUI on PROJECT_DIR (default: .)
  rat-tui [PROJECT_DIR] --script FILE   run FILE's commands headless ('-' reads stdin);
                                        JSON Lines on stdout, exit 0 ok / 1 failed / 2 bad script
  rat-tui COMMAND [ARG…] [-p DIR] [--json] [--no-attach]
                                        one command from the shell, in the project found from the
                                        current folder up (or DIR): a table for people, or --json
                                        the script's JSON lines; exit 0 ok / 1 failed / 2 misuse
A script or command runs on the engine of an open TUI (or `serve`) on the same project when one
listens on its .rat/engine.sock, else starts its own; --no-attach always starts its own.
"""


@dataclass(frozen=True)
class Subcommand:
    group: str
    summary: str
    main: Callable[[list[str]], int]


def subcommands() -> dict[str, Subcommand]:
    """`rat-tui NAME …`: the project tools, then every script command as a shell command."""
    from .script.commands import COMMANDS
    from .script.shell import shell_commands, usage

    table = {
        "init": Subcommand("project", "init DIR  (a new project that runs as written)", init_main),
        "cluster": Subcommand("project", "cluster start|stop|status [PROJECT_DIR] [--cores N] [--memory M]",
                              cluster_main),
        "serve": Subcommand("project", "serve [PROJECT_DIR] [--port N] [--bind ADDR]  (triggers and webhooks, headless)",
                            serve_main),
    }
    for name, group in shell_commands().items():
        table[name] = Subcommand(group, usage(name, COMMANDS[name]), lambda argv, name=name: shell_main(name, argv))
    return table


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rat-tui", description=DESCRIPTION, epilog=_commands_by_group(),
        formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("project", nargs="?", default=".", metavar="PROJECT_DIR", help="project folder (default: .)")
    parser.add_argument("--script", metavar="FILE", help="run the commands in FILE ('-' for stdin) headless")
    parser.add_argument("--events", action="store_true", help="with --script: also print run events as JSON lines")
    parser.add_argument("--keep-going", action="store_true", help="with --script: continue after a failed command")
    parser.add_argument("--no-attach", action="store_true",
                        help="with --script: start an engine of its own even when an open TUI's engine listens")
    parser.add_argument("--version", action="version", version=f"rat-tui {__version__}")
    return parser


def _commands_by_group() -> str:
    """Every command with its arguments, read from the command tables (so never out of date)."""
    from .script.commands import COMMANDS
    from .script.shell import SCRIPT_ONLY, usage

    groups: dict[str, list[str]] = {}
    for sub in subcommands().values():
        groups.setdefault(sub.group, []).append(sub.summary)
    lines = ["commands (`rat-tui COMMAND --help` for one; each is also a script line):"]
    for group, usages in groups.items():
        lines += [f"  {group}:", *(f"    {text}" for text in usages)]
    lines.append("  in scripts only (one command a line in FILE; blank lines and # comments are skipped):")
    for name in sorted(SCRIPT_ONLY):
        lines.append(f"    {usage(name, COMMANDS[name])}" + (" <<EOF … EOF" if name == "write" else ""))
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


def serve_main(argv: list[str]) -> int:
    """`rat-tui serve`: the project's triggers and webhooks on a warm session of its own (rat_tui/serve.py)."""
    from .serve import serve_main as serve

    return serve(argv)


def init_main(argv: list[str]) -> int:
    """`rat-tui init DIR`: a new project that runs as written: a namespace, a landing zone with an example
    file, a bronze pipeline with a quality test and a unit test, a commented rat.yaml and a .gitignore."""
    from .core.project.scaffold import scaffold

    parser = argparse.ArgumentParser(prog="rat-tui init", description=init_main.__doc__)
    parser.add_argument("folder", metavar="DIR", help="a new or empty folder")
    args = parser.parse_args(argv)
    try:
        written = scaffold(Path(args.folder))
    except RatError as exc:
        print(f"rat-tui: {exc.sentence()}", file=sys.stderr)
        return EXIT_BAD_SCRIPT
    print("\n".join(str(path) for path in written))
    print(f"rat-tui: a new project in {args.folder}; try: cd {shlex.quote(str(args.folder))} && rat-tui build "
          "&& rat-tui test", file=sys.stderr)
    return EXIT_OK


def shell_main(name: str, argv: list[str]) -> int:
    """`rat-tui NAME ARG…`: the script command NAME as a one-line script, with output for people."""
    from .script.commands import COMMANDS
    from .script.human import HumanOutput
    from .script.shell import Misuse, check_names, command_help, find_project, script_text, split_options

    try:
        options, words = split_options(argv)
        if options.help:
            print(command_help(name, COMMANDS[name]))
            return EXIT_OK
        text = script_text(name, words)
        root = find_project(options.project or Path.cwd())
        check_names(root, name, text)
    except Misuse as exc:  # the parser's sentence names the command too: said once
        print(f"rat-tui {name}: {str(exc).removeprefix(f'{name}: ')}", file=sys.stderr)
        return EXIT_BAD_SCRIPT
    out = sys.stdout if options.json else HumanOutput(sys.stdout, sys.stderr)
    return run_script(root, text, keep_going=False, events=options.events or not options.json,
                      attach=options.attach, out=out, err=sys.stderr)


def run_script(root: Path, text: str, *, keep_going: bool, events: bool, attach: bool, out: TextIO,
               err: TextIO) -> int:
    """Parse first (a bad script runs nothing), then run it on the engine that listens for the project,
    else on one of its own."""
    from .script.attach import attach as attach_to_engine
    from .script.wire import ScriptRequest, needs_own_process

    lines = parse(text, out)
    if lines is None:
        return EXIT_BAD_SCRIPT
    if attach and needs_own_process(lines) is None:
        request = ScriptRequest(text, keep_going, events, cwd=str(Path.cwd()))
        status = attach_to_engine(root.resolve(), request, lines, out, err)
        if status is not None:
            return status
    return _run_own_engine(root, lines, keep_going, events, out, err)


def _run_own_engine(root: Path, lines, keep_going: bool, events: bool, out: TextIO, err: TextIO) -> int:
    """On a Workbench of this process; a script that presses keys, takes screenshots or reads the screen
    runs inside the real app, headless."""
    from .core.compose import open_project
    from .core.store.logs import setup_logging
    from .script.commands import SCREEN_COMMANDS, ScriptContext
    from .script.executor import execute

    try:
        workbench = open_project(root, one_shot=True)
    except RatError as exc:
        print(f"rat-tui: {exc.sentence()}", file=err)
        return EXIT_BAD_SCRIPT
    setup_logging(workbench.project.state_dir)
    try:
        if not any(line.cmd in SCREEN_COMMANDS for line in lines):
            return execute(ScriptContext(workbench), lines, out, keep_going, events, err=err)
        from .tui.app import RatApp
        from .tui.script_host import ScriptJob

        app = RatApp(workbench, warm_spark=False, script=ScriptJob(lines, out, err, keep_going, events))
        app.run(headless=True, size=(120, 40))
        return app.return_code if app.return_code is not None else EXIT_FAILED
    finally:
        workbench.close()


def open_tui(folder: str) -> int:
    """The TUI on `folder`, serving its engine to scripts and shell commands while it is open; an empty
    folder is first offered a new project."""
    from .core.compose import open_project
    from .core.project.scaffold import is_empty_folder
    from .core.store.logs import setup_logging
    from .script.host import EngineHost

    root = Path(folder)
    if is_empty_folder(root):
        from .tui.init_offer import InitOfferApp

        if InitOfferApp(root).run() is None:
            return EXIT_OK  # declined: nothing written
    try:
        workbench = open_project(root)
    except RatError as exc:
        print(f"rat-tui: {exc.sentence()}", file=sys.stderr)
        return EXIT_BAD_SCRIPT
    setup_logging(workbench.project.state_dir)
    from .tui.app import RatApp

    host = EngineHost(workbench)
    try:
        why_not = host.start()
        if why_not:
            import logging

            logging.getLogger(__name__).info("not serving the engine: %s", why_not)
        RatApp(workbench).run()
    finally:
        host.stop()
        workbench.close()
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """The entry point. A reader that stops taking the output (`| head`) ends it quietly, as a shell tool does,
    not with a BrokenPipeError traceback; exit 1, since what was to be said was not all said."""
    try:
        try:
            return _main(argv)
        finally:
            sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python's own flush at exit fails no more
        return EXIT_FAILED


def _main(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    commands = subcommands()
    if argv[:1] and argv[0] in commands:
        return commands[argv[0]].main(argv[1:])
    if argv[:1] and not argv[0].startswith(("-", ".", "~")) and "/" not in argv[0] and not Path(argv[0]).exists():
        # a mistyped command reads as a project folder: a bare word that is neither says so (`rat-tui frob`)
        print(f"rat-tui: {argv[0]} is neither a command nor a folder{did_you_mean(argv[0], sorted(commands))}; "
              f"rat-tui --help lists the commands, and rat-tui init {argv[0]} makes a project there", file=sys.stderr)
        return EXIT_BAD_SCRIPT
    args = build_parser().parse_args(argv)
    if args.script is None:
        return open_tui(args.project)
    try:
        text = _read_script(args.script)
    except (OSError, UnicodeDecodeError) as exc:
        print(f"rat-tui: cannot read script {args.script}: {exc}", file=sys.stderr)
        return EXIT_BAD_SCRIPT
    return run_script(Path(args.project), text, keep_going=args.keep_going, events=args.events,
                      attach=not args.no_attach, out=sys.stdout, err=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
