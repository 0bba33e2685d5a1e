"""Text the product writes for people: a count with the noun that agrees with it, an error message in one line."""
from __future__ import annotations

import re
from numbers import Integral

# What DuckDB appends to a message that names its own knobs, not the user's file: the "Possible fixes:" list
# (its `* ` bullets), "Possible Solution:" lines, the reader's options (`  delimiter = , (Auto-Detected)`)
# and the pointer into our own SQL (`LINE 1: SELECT …` and its `^^^` line)
_FIXES = re.compile(r"^Possible fixes:?$")
_NOISE = re.compile(r"^(?:Possible Solution:|LINE \d+:|\^+$|[a-z_]+ =(?: |$))")
_DATA_LINE = re.compile(r"^(Original Line: )(.{120}).+")  # a record of the file: its start says which


def count(n: float, one: str, many: str | None = None) -> str:
    """`count(1, "row")` is "1 row", `count(1200, "row")` "1,200 rows", `count(1.5, "day")` "1.5 days";
    `many` for a noun that takes no plain s (`count(2, "copy", "copies")`)."""
    number = f"{n:,}" if isinstance(n, Integral) else f"{n:g}"
    return f"{number} {one if n == 1 else many or one + 's'}"


def one_line(message: str) -> str:
    """A multi-line error message as one line: DuckDB's headline ("CSV Error on Line: 3") with the lines
    that say what went wrong, blank lines and DuckDB's boilerplate dropped, whitespace collapsed."""
    lines: list[str] = []
    in_fixes = False
    for raw in message.splitlines():
        line = " ".join(raw.split())
        in_fixes = (in_fixes and line.startswith("* ")) or bool(_FIXES.match(line))
        if line and not in_fixes and not _NOISE.match(line):
            lines.append(_DATA_LINE.sub(r"\1\2…", line))
    # DuckDB's lines are statements without a full stop: one is added so the joined line reads as sentences
    return joined_lines([ln if i == len(lines) - 1 or ln[-1] in ".:;,!?{" else f"{ln}." for i, ln in enumerate(lines)])


def joined_lines(lines: list[str]) -> str:
    """Lines as one: a schema block `table {` … `}` as `table {a, b}`, `* problem` bullets as `a; b`."""
    out: list[str] = []
    for ln in lines:
        if out and out[-1].endswith("{"):
            out[-1] += ln if ln == "}" else f" {ln}"
        elif out and "{" in out[-1] and not out[-1].endswith("}"):
            out[-1] += f" {ln}" if ln == "}" else f", {ln}"
        elif ln.startswith("* ") and out and out[-1].startswith("* "):
            out[-1] += f"; {ln[2:]}"
        else:
            out.append(ln)
    return " ".join(ln.removeprefix("* ") for ln in out)


def age_label(seconds: float | None) -> str:
    """An age for people: `42s`, `17m`, `5h 12m`, `3d 4h`."""
    if seconds is None:
        return "never"
    whole = int(max(seconds, 0))
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d {hours}h" if hours else f"{days}d"
    if hours:
        return f"{hours}h {minutes}m" if minutes else f"{hours}h"
    return f"{minutes}m" if minutes else f"{secs}s"
