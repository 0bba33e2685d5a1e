"""The checks a landing file must pass before Spark reads it: one set for `upload`, for runs
(files dropped into the folder) and for the zone panel, so all three say the same sentence.

Only cheap checks (the name, the size, the first bytes or line): a run makes them on every
file it reads. The full UTF-8 scan and the zone's expected columns stay with `upload`.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..errors import RatError
from ..project.model import landing_format
from .dialect import open_text_bytes, text_lines

PARQUET_MAGIC = b"PAR1"
_FIRST_LINE_LIMIT = 1 << 20


def one_format(label: str, files: list[Path]) -> str:
    """The one format of a zone's files; RatError when they mix formats, which a run cannot read as one (upload
    refuses a file that would make them mix, with this sentence)."""
    formats = sorted({landing_format(f) or "" for f in files})
    if len(formats) > 1:
        raise RatError(f"landing zone {label} mixes file formats ({', '.join(formats)}); keep one format per zone")
    return formats[0]


def holds_nothing(path: Path) -> str | None:
    """Why this landing file holds no data (said after its name), or None: an empty export, or one still
    being copied in. Upload refuses it; a run leaves it for a later run, once it holds rows."""
    try:
        if path.stat().st_size == 0:
            return "is empty (0 bytes)"
    except OSError:
        return None  # a vanished or unreadable file is reported by whoever reads it next
    if landing_format(path) == "csv" and _only_blank_lines(path):
        return "holds only blank lines (no header, no rows)"
    return None


def file_problem(path: Path) -> str | None:
    """What stops a run from reading this landing file, said after its name; None when it is fine."""
    if ":" in path.name:  # Hadoop's Path takes it for a URI scheme, whatever the quoting
        return "has ':' in its name, which Spark cannot read; rename the file"
    fmt = landing_format(path)
    if nothing := holds_nothing(path):
        return nothing
    try:
        with path.open("rb") as fh:
            head = fh.read(4)
    except OSError:
        return None
    if fmt != "parquet" and head == PARQUET_MAGIC:
        return f"is a Parquet file with a {path.suffix} extension; rename it to .parquet"
    if fmt == "parquet" and head != PARQUET_MAGIC:
        return "is not a Parquet file (it does not start with PAR1)"
    if fmt == "json":
        try:
            text = open_text_bytes(path, _FIRST_LINE_LIMIT).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
        except RatError as exc:
            return exc.message.removeprefix(f"{path.name} ")
        if text.startswith("["):
            return None  # a JSON array: read whole, its elements are the rows
        text = text.partition("\n")[0].strip()
        try:
            is_object = isinstance(json.loads(text), dict)
        except ValueError:
            is_object = False
        if not is_object:
            return ("is neither JSON Lines nor a JSON array (line 1 is not one JSON object); write one object "
                    "per line, or one array of objects")
    return None


def _only_blank_lines(path: Path) -> bool:
    """Whether delimited text holds nothing but line ends and spaces (a BOM too): read up to 4 KB."""
    try:
        data = open_text_bytes(path, 4096)
    except RatError:
        return False  # a broken gzip stream: its reader says so
    return len(data) < 4096 and not data.removeprefix(b"\xef\xbb\xbf").strip()


HEADER_ONLY_BYTES = 64 * 1024  # a delimited file longer than this holds rows (no header is that long)


def holds_only_a_header(path: Path) -> bool:
    """Whether a delimited text file (gzipped too) holds one line with a value, its header, and no row."""
    if landing_format(path) != "csv":
        return False
    try:
        data = open_text_bytes(path, HEADER_ONLY_BYTES)
    except (RatError, OSError):
        return False  # broken or gone: not known to be a header alone
    if len(data) >= HEADER_ONLY_BYTES:
        return False
    lines = [line for line in data.removeprefix(b"\xef\xbb\xbf").splitlines() if line.strip(b" \t\r,;|")]
    return len(lines) == 1


def is_json_array(path: Path) -> bool:
    """A JSON file whose first non-space byte is `[`: Spark reads it whole (multiLine)."""
    return open_text_bytes(path, 64 << 10).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n").startswith("[")


def bad_json_line(path: Path) -> str | None:
    """The file's first line that is not one JSON object, as a sentence (its number as an editor shows it: a
    blank line counts, though Spark skips it); None when every line is one."""
    for number, text in enumerate(text_lines(path, "utf-8"), 1):
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except ValueError as exc:
            why = str(exc).split(":")[0].lower()
            return f"{path.name} line {number:,} is not one JSON object ({why}: {text.strip()[:80]!r}); fix the file"
        if not isinstance(value, dict):
            return f"{path.name} line {number:,} is not one JSON object ({text.strip()[:80]!r}); fix the file"
    return None
