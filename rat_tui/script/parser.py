"""Parsing a script into commands before anything runs (unknown commands fail the whole script)."""
from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ScriptLine:
    line: int
    cmd: str
    args: list[str]
    body: str | None = None  # heredoc content for `write PATH <<EOF`
    rest: str | None = None  # the free text of a FreeText command, verbatim


@dataclass(frozen=True)
class FreeText:
    """A command whose last argument is free text (SQL, screen text), taken verbatim: shell-style
    splitting would strip the quotes SQL needs (`WHERE city = 'Rome'`)."""

    dest: str  # the argparse attribute that receives the text
    what: str  # for the error when it is missing
    example: str
    leading: int = 0  # shell-split words before the text (export FILE SQL…)
    trailing: tuple[str, ...] = ()  # options that may end the line, each with one value (--timeout S)


_WORD = re.compile(r"""\s*((?:[^\s'"]+|'[^']*'|"(?:[^"\\]|\\.)*")+)""")


class ScriptError(Exception):
    def __init__(self, line: int, message: str):
        self.line = line
        super().__init__(f"line {line}: {message}")


def split_free_text(raw: str, spec: FreeText) -> tuple[list[str], str]:
    """(shell-split arguments, verbatim text) of a free-text command's line after the command word."""
    words = []
    for _ in range(spec.leading):
        match = _WORD.match(raw)
        if match is None:
            break
        words.append(match.group(1))
        raw = raw[match.end():]
    rest, options = raw.strip(), []
    while spec.trailing:
        match = re.search(rf"\s+({'|'.join(map(re.escape, spec.trailing))})\s+(\S+)$", rest)
        if match is None:
            break
        options[:0] = [match.group(1), match.group(2)]
        rest = rest[:match.start()].rstrip()
    return shlex.split(" ".join(words)) + options, rest


def parse_script(text: str, known: Mapping[str, Any]) -> list[ScriptLine]:
    """Commands by line; `known` maps command names to specs (a `free_text` attribute marks verbatim text)."""
    lines = text.splitlines()
    parsed: list[ScriptLine] = []
    index = 0
    while index < len(lines):
        number = index + 1
        raw = lines[index].strip()
        index += 1
        if not raw or raw.startswith("#"):
            continue
        body = None
        if "<<" in raw and raw.split(None, 1)[0] == "write":
            head, _, marker = raw.partition("<<")
            marker = marker.strip().strip("'\"")
            if not marker:
                raise ScriptError(number, "heredoc needs an end marker, as in: write PATH <<EOF")
            collected = []
            while index < len(lines) and lines[index].strip() != marker:
                collected.append(lines[index])
                index += 1
            if index >= len(lines):
                raise ScriptError(number, f"heredoc is not closed: no line '{marker}' follows")
            index += 1
            body = "\n".join(collected) + "\n"
            raw = head
        cmd, tail = (raw.split(None, 1) + [""])[:2]
        if cmd not in known:
            raise ScriptError(number, f"unknown command '{cmd}' (known: {', '.join(sorted(known))})")
        free_text: FreeText | None = getattr(known[cmd], "free_text", None)
        try:
            args, rest = split_free_text(tail, free_text) if free_text else (shlex.split(tail), None)
        except ValueError as exc:
            raise ScriptError(number, f"cannot split the line: {exc}") from None
        parsed.append(ScriptLine(number, cmd, args, body, rest))
    return parsed
