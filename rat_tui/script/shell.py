"""Shell commands: every script command as `rat-tui NAME ARG…`. A shell command is a one-line script, parsed
and run by the script face's own parser and executor (attached to a warm engine when one listens), so
the two can never disagree; only the output differs (human.py, or the JSON lines with --json)."""
from __future__ import annotations

import inspect
import shlex
from dataclasses import dataclass
from pathlib import Path

from .commands import COMMANDS, ArgumentError, ScriptCommand
from .parser import ScriptError, parse_script

# The groups `rat-tui --help` lists; a script command in no group is listed under "more".
GROUPS: dict[str, tuple[str, ...]] = {
    "build and test": ("run", "build", "test", "test-fixture", "preview", "validate", "approve", "reject",
                       "lineage", "ls", "intervals", "backfill"),
    "tables and queries": ("query", "export", "tables", "table-preview", "snapshots", "runs", "diff",
                           "rollback-table", "compact"),
    "landing zones": ("upload", "sample", "zone-settings", "pin-dialect"),
    "versions": ("publish", "versions", "rollback", "version-diff"),
    "upkeep and bucket": ("doctor", "purge", "push", "pull", "remote-status"),
}
# Commands that make sense only inside a script: a heredoc, the script's watcher, the headless app's screen.
SCRIPT_ONLY = frozenset({"write", "watch", "wait-idle", "press", "screenshot", "expect-screen"})


def shell_commands() -> dict[str, str]:
    """Every script command a shell command too, with its help group, in the order `--help` lists them."""
    order = [name for names in GROUPS.values() for name in names]
    grouped = {name: group for group, names in GROUPS.items() for name in names}
    names = sorted((name for name in COMMANDS if name not in SCRIPT_ONLY),
                   key=lambda name: order.index(name) if name in order else len(order))
    return {name: grouped.get(name, "more") for name in names}


def usage(name: str, spec: ScriptCommand) -> str:
    text = " ".join(spec.parser.format_usage().removeprefix("usage:").split())
    if spec.free_text is not None:
        text += f" {spec.free_text.what}…"
    return text


def command_help(name: str, spec: ScriptCommand) -> str:
    """`rat-tui NAME --help`: its usage, what it does (its handler's docstring), then its arguments."""
    lines = [f"usage: rat-tui {usage(name, spec)} [-p DIR] [--json [--events]] [--no-attach]", "",
             inspect.getdoc(spec.handler) or ""]
    _, _, arguments = spec.parser.format_help().partition("\n\n")
    if arguments.strip():
        lines += ["", arguments.rstrip()]
    if spec.free_text is not None:
        lines += ["", f"{spec.free_text.what}…: the rest of the line, as in: rat-tui {spec.free_text.example}"]
    lines += ["", "-p DIR: the project (default: the nearest folder up with a rat.yaml); --json: the script's "
                  "JSON lines; --no-attach: never use an open TUI's engine"]
    return "\n".join(lines)


@dataclass
class ShellOptions:
    project: Path | None = None  # -p DIR; else found from the current folder up
    json: bool = False
    events: bool = False
    attach: bool = True
    help: bool = False


class Misuse(Exception):
    """A shell command typed wrong: exit status 2, with this sentence."""


def split_options(argv: list[str]) -> tuple[ShellOptions, list[str]]:
    """The shell options (anywhere on the line, before a `--`) and the command's own words."""
    options, words, index = ShellOptions(), [], 0
    while index < len(argv):
        word = argv[index]
        index += 1
        if word == "--":
            words += argv[index:]
            break
        if word in ("-p", "--project"):
            if index >= len(argv):
                raise Misuse(f"{word} needs a project folder")
            options.project, index = Path(argv[index]), index + 1
        elif word.startswith(("-p=", "--project=")):
            options.project = Path(word.split("=", 1)[1])
        elif word in ("--json", "--events", "--no-attach", "-h", "--help"):
            setattr(options, {"--no-attach": "attach", "-h": "help", "--help": "help"}.get(word, word[2:]),
                    word != "--no-attach")
        else:
            words.append(word)
    return options, words


def script_text(name: str, words: list[str]) -> str:
    """The command's words as the one-line script a script would hold, checked by the script's parsers."""
    spec = COMMANDS[name]
    if spec.free_text is None:
        text = shlex.join([name, *words])
    else:  # free text stays verbatim: the quotes in `WHERE city = 'Rome'` reach the SQL
        lead = spec.free_text.leading
        text = " ".join([shlex.join([name, *words[:lead]]), *(" ".join(w.split()) for w in words[lead:])])
    try:
        [line] = parse_script(text, COMMANDS)
        spec.parse_args(name, line.args, line.rest)
    except (ScriptError, ArgumentError) as exc:
        raise Misuse(str(exc).removeprefix("line 1: ")) from None
    return text


# Commands whose pipeline (or selector) must name one of the project's: naming none is a bad argument, misuse
# as a typo'd option is. (`runs`, `snapshots`, `ticks` … still answer for a pipeline whose folder is gone.)
NEEDS_A_PIPELINE = frozenset({"run", "test", "test-fixture", "preview", "validate", "publish", "intervals",
                              "backfill", "freshness", "triggers", "webhook-token", "lineage"})


def check_names(root: Path, name: str, text: str) -> None:
    """Misuse when the command names a pipeline (or `build` a namespace) the project does not have."""
    if name not in NEEDS_A_PIPELINE and name != "build":
        return
    from ..core.errors import RatError
    from ..core.project.graph import GraphCache
    from ..core.project.model import Project
    from ..core.run.selection import check_namespaces

    [line] = parse_script(text, COMMANDS)
    parsed = COMMANDS[name].parse_args(name, line.args, line.rest)
    named = getattr(parsed, "pipeline", None) or getattr(parsed, "selector", None)
    try:
        if name == "build":
            check_namespaces(GraphCache(Project(root)).graph(), parsed.namespaces)
        elif named:
            Project(root).find_pipeline(named.strip().removeprefix("+").removesuffix("+"))
    except RatError as exc:
        raise Misuse(exc.sentence()) from None


def find_project(start: Path) -> Path:
    """The project as git finds a repository: `start` or the nearest folder above it with a rat.yaml."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / "rat.yaml").is_file():
            return folder
    raise Misuse(f"no rat.yaml in {start} or any folder above it; run inside a project, pass -p DIR, "
                 f"or make one with: rat-tui init DIR")
