"""Parsing a script into commands before anything runs (unknown commands fail the whole script)."""
from __future__ import annotations

import shlex
from dataclasses import dataclass


@dataclass(frozen=True)
class ScriptLine:
    line: int
    cmd: str
    args: list[str]
    body: str | None = None  # heredoc content for `write PATH <<EOF`


class ScriptError(Exception):
    def __init__(self, line: int, message: str):
        self.line = line
        super().__init__(f"line {line}: {message}")


def parse_script(text: str, known: set[str]) -> list[ScriptLine]:
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
        try:
            words = shlex.split(raw)
        except ValueError as exc:
            raise ScriptError(number, f"cannot split the line: {exc}") from None
        cmd, args = words[0], words[1:]
        if cmd not in known:
            raise ScriptError(number, f"unknown command '{cmd}' (known: {', '.join(sorted(known))})")
        parsed.append(ScriptLine(number, cmd, args, body))
    return parsed
