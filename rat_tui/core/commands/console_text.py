"""The console's text work that needs no catalog: which statement the cursor is in, and the
names a statement mentions. Pure functions, so the editor can call them on every key."""
from __future__ import annotations

import re
from dataclasses import dataclass


_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def sql_name(*parts: str) -> str:
    """A dotted name as a statement must spell it: parts that are not plain identifiers (`my-pipe`,
    `order id`) back-quoted."""
    return ".".join(p if _PLAIN_NAME.fullmatch(p) else f"`{p.replace('`', '``')}`" for p in parts)


@dataclass(frozen=True)
class Statement:
    start: int  # offsets into the buffer's text
    end: int
    text: str


def split_statements(text: str) -> list[Statement]:
    """Statements separated by `;` outside quotes and comments (a `;` in 'a;b' or -- a;b does not split)."""
    found: list[Statement] = []
    start, i, n = 0, 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "'\"`":
            close = text.find(ch, i + 1)
            i = n if close < 0 else close + 1
            continue
        if text.startswith("--", i):
            close = text.find("\n", i)
            i = n if close < 0 else close + 1
            continue
        if text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = n if close < 0 else close + 2
            continue
        if ch == ";":
            found.append(Statement(start, i, text[start:i]))
            start = i + 1
        i += 1
    found.append(Statement(start, n, text[start:n]))
    return [s for s in found if _code(s.text)]


def _code(text: str) -> str:
    """The statement without comments and surrounding blanks (a buffer of comments runs nothing)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"--[^\n]*", " ", text).strip()


def statement_at(text: str, offset: int) -> str:
    """The statement under the cursor: the one containing `offset`, else the nearest one before it."""
    statements = split_statements(text)
    if not statements:
        return ""
    before = [s for s in statements if s.start <= offset]
    chosen = next((s for s in statements if s.start <= offset <= s.end), before[-1] if before else statements[0])
    return chosen.text.strip()


def offset_of(text: str, row: int, column: int) -> int:
    """A (row, column) location of the editor as an offset into its text."""
    lines = text.split("\n")
    return sum(len(line) + 1 for line in lines[:row]) + column


_NAME = re.compile(r"`?([A-Za-z_][\w-]*)`?\.`?([A-Za-z_][\w-]*)`?\.`?([A-Za-z_][\w-]*)`?")


def tables_named(sql: str) -> list[str]:
    """The `ns.layer.table` names a statement mentions, in order, without duplicates."""
    seen: dict[str, None] = {}
    for match in _NAME.finditer(sql):
        seen[".".join(match.groups()).lower()] = None
    return list(seen)
