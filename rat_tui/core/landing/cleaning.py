"""Lines of a landing file that are no rows: a report's title above the header, and rows with no value.

Spark's CSV reader drops one header line and nothing else: a title above the header became a row (or
failed the read), and a trailing `,,,,,,,,,` became a row of NULLs. Such a file is read from a copy
without those lines, made once per version of the file under the zone's `_cleaned/` folder (the copy
keeps the file's name, so each row still names its file); the run's notes count the rows dropped.
Every file is scanned for rows with no value: bytes matched by one regular expression, so a file without
any costs a scan at memory speed; a file of quoted values spanning lines has its matches confirmed record
by record (a line of commas inside a quoted value is no row).
"""
from __future__ import annotations

import gzip
import hashlib
import itertools
import os
import re
import shutil
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from .dialect import Dialect, text_lines
from .encodings import wide
from .identity import FileIdentity

CLEANED_FOLDER = "_cleaned"
_CHUNK = 16 << 20
_cache: OrderedDict[tuple, "Cleaned"] = OrderedDict()
_lock = threading.Lock()


@dataclass(frozen=True)
class Cleaned:
    copy: Path | None  # what Spark reads instead of the file; None: the file itself
    empty_rows: tuple[int, ...] = ()  # lines holding a row with no value (at most the first 1,000 are named)
    empty_count: int = 0
    formulas: int = 0  # values written as Excel's text formula, `="01234"`: the copy holds the text inside
    formula_line: int | None = None  # the first one's line
    formula: str | None = None  # and that value as written


def cleaned(path: Path, dialect: Dialect) -> Cleaned:
    """The file as Spark should read it; cached by the file's identity and its dialect."""
    key = (str(path), FileIdentity.of(path), dialect.read_key())
    with _lock:
        if key in _cache:
            return _cache[key]
    lines = _empty_rows(path, dialect)
    formulas, formula_line, formula = _formula_text(path, dialect)
    copy = _copy(path, dialect, set(lines), bool(formulas)) if lines or dialect.skip_rows or formulas else None
    found = Cleaned(copy, tuple(lines[:1000]), len(lines), formulas, formula_line, formula)
    with _lock:
        _cache[key] = found
        while len(_cache) > 1024:
            _cache.popitem(last=False)
    return found


def _empty_rows(path: Path, dialect: Dialect) -> list[int]:
    """The lines below the header that hold a row with no value (delimiters, spaces, empty quotes)."""
    cell = r'[ \t]*(?:""[ \t]*)?' if dialect.quote == '"' else r"[ \t]*"
    pattern = cell + "(?:" + re.escape(dialect.delimiter) + cell + ")+\r?(?:\n|$)"
    if wide(dialect.encoding) or path.name.lower().endswith(".gz"):
        lines = _text_matches(path, dialect, pattern)
    else:
        first = "[" + re.escape(dialect.delimiter) + ' \t"]'  # how a line of an empty row starts
        lines = _byte_matches(path, re.compile(pattern.encode()), re.compile(("\n" + first).encode()))
    lines = [n for n in lines if n > dialect.skip_rows + int(dialect.header)]
    if lines and dialect.multiline:  # a line of commas inside a quoted value is no row
        from .widening import records

        wanted = set(lines)
        lines = [n for n, record in records(path, dialect) if n in wanted and not any(v.strip() for v in record)]
    return lines


def _byte_matches(path: Path, compiled: re.Pattern, starts: re.Pattern) -> list[int]:
    """Numbers of the lines the pattern matches whole. Only lines that start as an empty row does (a line end,
    then the delimiter, a space or a quote) are tried: a scan at memory speed for the usual file, whose lines
    start with a value. Read in chunks cut at line ends (the delimiter is ASCII in the encodings read here)."""
    found, line, rest = [], 1, b""
    with open(path, "rb") as fh:
        while True:
            chunk = fh.read(_CHUNK)
            data = rest + chunk
            cut = data.rfind(b"\n") + 1 if chunk else len(data)
            data, rest = data[:cut], data[cut:]
            counted = 0
            # the chunk starts a line (position -1 stands for a line end before it)
            for position in itertools.chain([-1], (m.start() for m in starts.finditer(data))):
                if compiled.match(data, position + 1):
                    line += data.count(b"\n", counted, position + 1)
                    counted = position + 1
                    found.append(line)
            line += data.count(b"\n", counted)
            if not chunk:
                return found


def _text_matches(path: Path, dialect: Dialect, pattern: str) -> list[int]:
    compiled = re.compile(pattern)
    return [number for number, text in enumerate(text_lines(path, dialect.encoding), 1) if compiled.fullmatch(text)]


def _formula_pattern(dialect: Dialect) -> re.Pattern:
    """A value written `="01234"`, whole between delimiters: how files made for Excel keep a code's leading
    zeros (Excel shows the text the formula gives); or that quoted by a CSV writer (in quotes, its own quotes
    doubled). Spark reads it as it is written. The text inside is group 2 or 3."""
    d = re.escape(dialect.delimiter)
    return re.compile(rf'(^|{d})[ \t]*(?:="((?:[^"\r\n]|"")*)"|"=""([^"\r\n]*)""")[ \t]*(?={d}|\r?\n|\r?$)')


def _unwrapped(found: re.Match) -> str:
    inside = found.group(2) if found.group(2) is not None else found.group(3)
    return f'{found.group(1)}"{inside}"'


def _formula_text(path: Path, dialect: Dialect) -> tuple[int, int | None, str | None]:
    """How many values below the header are Excel text formulas, the first one's line, and that value. A file
    without `="` is one scan at memory speed; a file of values spanning lines is left as it is (a line inside a
    quoted value)."""
    if dialect.quote != '"' or dialect.multiline:
        return 0, None, None
    if not wide(dialect.encoding) and not path.name.lower().endswith(".gz") and not _holds(path, b'="'):
        return 0, None, None
    pattern, count, first, example = _formula_pattern(dialect), 0, None, None
    for number, text in enumerate(text_lines(path, dialect.encoding), 1):
        if number > dialect.skip_rows + int(dialect.header) and (found := list(pattern.finditer(text))):
            count += len(found)
            if first is None:
                first, example = number, found[0].group(0).lstrip(dialect.delimiter).strip()
    return count, first, example


def _holds(path: Path, needle: bytes) -> bool:
    with open(path, "rb") as fh:
        rest = b""
        while chunk := fh.read(_CHUNK):
            if needle in rest + chunk:
                return True
            rest = chunk[-len(needle) + 1:]
    return False


def _copy(path: Path, dialect: Dialect, empty: set[int], formulas: bool = False) -> Path:
    """The file without the lines above its header and its rows with no value, its Excel text formulas as the
    text inside (`="01234"` as `"01234"`), in its own encoding."""
    identity = FileIdentity.of(path)
    version = "-".join(str(v) for v in identity) + f"-{dialect.skip_rows}" + ("-formulas" if formulas else "")
    folder = path.parent / CLEANED_FOLDER / hashlib.sha256(f"{path.name} {version}".encode()).hexdigest()[:24]
    copy = folder / path.name  # its name: each row names its file
    if copy.exists():
        return copy
    _remove_stale(path)
    folder.mkdir(parents=True, exist_ok=True)
    temp = folder / f".{copy.name}.{os.getpid()}-{threading.get_ident()}"
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    pattern = _formula_pattern(dialect) if formulas else None
    with opener(temp, "wt", encoding=dialect.encoding, newline="") as out:
        for number, text in enumerate(text_lines(path, dialect.encoding), 1):
            if number > dialect.skip_rows and number not in empty:
                out.write(pattern.sub(_unwrapped, text) if pattern and number > dialect.skip_rows + int(dialect.header)
                          else text)
    os.replace(temp, copy)
    return copy


def _remove_stale(path: Path) -> None:
    """Copies of earlier versions of the file, and of files no longer in the folder (archived, deleted)."""
    root = path.parent / CLEANED_FOLDER
    if not root.is_dir():
        return
    for folder in root.iterdir():
        names = [f.name for f in folder.iterdir() if not f.name.startswith(".")] if folder.is_dir() else []
        if path.name in names or not any((path.parent / name).exists() for name in names):
            shutil.rmtree(folder, ignore_errors=True)


def read_uri(path: Path, dialect: Dialect, uri_of) -> str:
    """Where Spark reads the file: its copy without the lines that are no rows, or the file itself."""
    return uri_of(cleaned(path, dialect).copy or path)


def formulas_note(path: Path, found: Cleaned) -> str:
    return (f"{found.formulas:,} value(s) of {path.name} written as Excel text formulas loaded as the text inside "
            f"({found.formula} on line {found.formula_line:,})")


def empty_rows_note(path: Path, found: Cleaned) -> str:
    shown = ", ".join(f"{n:,}" for n in found.empty_rows[:5]) + (", …" if found.empty_count > 5 else "")
    return f"{found.empty_count} row(s) of {path.name} with no value not loaded (line {shown})"
