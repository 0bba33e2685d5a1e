"""A CSV file's dialect, detected from its first bytes without the JVM, as the options Spark reads it with.

Spark's CSV reader detects nothing: a `;`, tab or `|` file reads as one column, a header-less
file loses its first row, `""` inside quotes is misread (Spark's escape is a backslash) and a
quoted value spanning lines fails the read. DuckDB's `sniff_csv` detects delimiter, quote,
escape and header from a sample in a few milliseconds; whether a quoted value spans lines is
read here from the same sample, since `multiLine` costs Spark its file splitting and is set
only for the files that need it. What the zone pins in rat.yaml (zone_settings.py) wins.
"""
from __future__ import annotations

import contextlib
import csv
import gzip
import io
import itertools
import os
import re
import tempfile
import threading
import zlib
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from ..errors import RatError
from ..project.model import active_landing_files, landing_format
from ..text import one_line
from .encodings import file_encoding, refusal, shown, wide
from .identity import FileIdentity
from .numbers import ColumnSample, NumberColumn, ZoneNumbers, column_samples, in_zone
from .zone_settings import ZoneReadSettings

SAMPLE_BYTES = 256 << 10
NUMBERS_BYTES = 64 << 10  # what a file's number formats and leading zeros are read from (about 1,000 rows)
SNIFF_BYTES = 16 << 10  # what DuckDB's sniffer reads of the sample: its cost grows with it (64 KB: 4x 16 KB)
SNIFF_LINES = 10  # and at least this many of its lines, however wide
_SUSPECT_SEPARATORS = (";", "\t", "|")
_CACHE_SIZE = 4096
_cache: OrderedDict[tuple, "Dialect"] = OrderedDict()
# Dialects by header line: files that start with the same header (hourly exports of one system) are
# written alike, so only the first of them is sniffed; each still gets its own multi-line check
_by_header: OrderedDict[tuple, "Dialect"] = OrderedDict()
_lock = threading.Lock()
_database = None
# Spark's names for Python's codecs (Java knows most of Python's names; these differ)
_JAVA_CHARSETS = {"utf-8": "UTF-8", "utf-16": "UTF-16", "utf-16-le": "UTF-16LE", "utf-16-be": "UTF-16BE",
                  "latin-1": "ISO-8859-1", "iso8859-1": "ISO-8859-1", "iso8859-15": "ISO-8859-15",
                  "cp1252": "windows-1252", "cp1250": "windows-1250", "ascii": "US-ASCII"}
_STRFTIME_TO_SPARK = {"%Y": "yyyy", "%y": "yy", "%m": "MM", "%d": "dd", "%H": "HH", "%I": "hh", "%M": "mm",
                      "%S": "ss", "%f": "SSSSSS", "%p": "a", "%b": "MMM", "%B": "MMMM", "%a": "EEE",
                      "%A": "EEEE", "%j": "DDD", "%z": "Z", "%Z": "z", "%%": "%"}
_SPARK_TO_STRFTIME = {spark: strftime for strftime, spark in _STRFTIME_TO_SPARK.items()}
_ISO_FORMATS = {"%Y-%m-%d", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S.%f",
                "%Y-%m-%dT%H:%M:%S.%f"}


@dataclass(frozen=True)
class Dialect:
    delimiter: str = ","
    quote: str = '"'
    escape: str = '"'
    header: bool = True
    multiline: bool = False
    encoding: str = "utf-8"  # Python's codec name
    null_value: str | None = None
    date_format: str | None = None  # Spark's pattern letters
    timestamp_format: str | None = None
    names: tuple[str, ...] = ()  # the header's names, or those a header-less file gets
    skip_rows: int = 0  # lines above the header (a report's title): Spark reads a copy without them (cleaning.py)
    # Every line ends with the delimiter (`id;name;`): the header's last cell and the sample's last values
    # are empty, and that column is not one of the file's (reader.csv_frame drops it, refusing a value in it)
    unnamed_last: bool = False
    # How the zone writes numbers (numbers.py), set over all its files: columns read as text and turned into
    # numbers, numeric-looking columns kept as text, and the zone's convention (what pinning writes)
    numbers: tuple[NumberColumn, ...] = ()
    text_columns: tuple[str, ...] = ()
    decimal: str | None = None
    thousands: str | None = None
    # what this file's sample says of each column's numbers: the zone's reading is made of every file's
    samples: dict[str, ColumnSample] | None = field(default=None, compare=False, hash=False, repr=False)

    def number_column(self, name: str) -> NumberColumn | None:
        """How the zone writes column `name`'s numbers, None when Spark reads them its own way."""
        return next((c for c in self.numbers if c.name == name), None)

    def with_numbers(self, zone: ZoneNumbers) -> "Dialect":
        return replace(self, numbers=tuple(c for c in zone.columns if c.name in self.names),
                       text_columns=tuple(n for n in zone.text if n in self.names),
                       decimal=zone.decimal, thousands=zone.thousands)

    def spark_options(self) -> dict[str, str]:
        # Spaces outside quotes around a delimiter are always trimmed, header and values: they are how a file
        # was laid out (`1 , a`), not data (a value whose spaces matter is quoted, and quoted spaces are
        # kept). Kept, they named columns `id ` and typed `1 ` DOUBLE (Java's number parsing trims, Spark's
        # integer check does not). Always, not only for files whose sample looks padded: a zone's files
        # must read alike, and padding past the sample would go unseen.
        options = {"sep": self.delimiter, "quote": self.quote, "escape": self.escape,
                   "header": str(self.header).lower(),
                   # Spark's line reader splits at the byte 0x0A, inside UTF-16's characters; the multi-line
                   # reader decodes the whole stream first
                   "multiLine": str(self.multiline or wide(self.encoding)).lower(),
                   "encoding": java_charset(self.encoding), "ignoreLeadingWhiteSpace": "true",
                   "ignoreTrailingWhiteSpace": "true"}
        for key, value in (("nullValue", self.null_value), ("dateFormat", self.date_format),
                           ("timestampFormat", self.timestamp_format)):
            if value is not None:
                options[key] = value
        return options

    def read_key(self) -> tuple:
        """Files with equal keys are read by one Spark reader (same options, same header)."""
        numbers = tuple((c.name, c.decimal, c.thousands, c.integral) for c in self.numbers)  # JSON for twins' keys
        return (tuple(sorted(self.spark_options().items())), self.names, self.unnamed_last, numbers,
                self.text_columns, self.skip_rows)

    def pinned(self) -> dict:
        """This dialect as the zone's `csv:` settings in rat.yaml (zone_settings.py's keys), for pinning.
        `multiline` only when true: a sample whose values stay on one line says nothing of later files,
        and pinning false would fail the first one whose values span lines."""
        values: dict = {"delimiter": self.delimiter, "quote": self.quote, "escape": self.escape,
                        "header": self.header, "encoding": self.encoding}
        for key, value in (("null_values", self.null_value), ("date_format", self.date_format),
                           ("timestamp_format", self.timestamp_format), ("multiline", self.multiline or None),
                           ("decimal", self.decimal), ("thousands", self.thousands),
                           ("skip_rows", self.skip_rows or None)):
            if value is not None:
                values[key] = value
        return values

    def describe(self) -> str:
        """`';'-separated, no header, quoted values span lines`: what the zone panel and the run log show."""
        separator = {"\t": "tab", ",": "comma", ";": "';'", "|": "'|'"}.get(self.delimiter, repr(self.delimiter))
        parts = [f"{separator}-separated", "header" if self.header else "no header"]
        if self.quote != '"' or self.escape not in ('"',):
            parts.append(f"quote {self.quote!r} escape {self.escape!r}")
        if self.multiline:
            parts.append("quoted values span lines")
        if self.decimal == ",":
            parts.append("decimal comma")
        if self.thousands:
            parts.append("thousands " + ("space" if self.thousands == " " else repr(self.thousands)))
        if self.encoding != "utf-8":
            parts.append(shown(self.encoding))
        if self.skip_rows:
            parts.append(f"{self.skip_rows} line(s) above the header")
        parts += [f"{what} {pattern}" for what, pattern in (("dates", self.date_format),
                                                             ("timestamps", self.timestamp_format)) if pattern]
        return ", ".join(parts)


def java_charset(python_name: str) -> str:
    return _JAVA_CHARSETS.get(python_name, python_name)


def spark_pattern(strftime: str | None) -> str | None:
    """DuckDB's strftime format as Spark's pattern (`%d/%m/%Y` -> `dd/MM/yyyy`); None for ISO formats,
    which Spark reads without one."""
    if not strftime or strftime in _ISO_FORMATS:
        return None
    out, i = [], 0
    while i < len(strftime):
        token = strftime[i:i + 2]
        if token in _STRFTIME_TO_SPARK:
            out.append(_STRFTIME_TO_SPARK[token])
            i += 2
        elif strftime[i].isalpha():
            out.append(f"'{strftime[i]}'")  # a literal letter (the T of ISO 8601) is quoted in Spark's patterns
            i += 1
        else:
            out.append(strftime[i])
            i += 1
    return "".join(out)


@contextlib.contextmanager
def unreadable_as_sentence(path: Path) -> Iterator[None]:
    """A file that cannot be read (a gzip stream cut short or corrupt, a vanished file) as one sentence."""
    try:
        yield
    except (OSError, EOFError, zlib.error) as exc:
        raise RatError(f"{path.name} cannot be read: {exc}") from None


def open_text_bytes(path: Path, limit: int) -> bytes:
    """The file's first `limit` bytes, decompressed when gzip."""
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    with unreadable_as_sentence(path), opener(path, "rb") as fh:
        return fh.read(limit)


def text_lines(path: Path, encoding: str):
    """The file's lines as text, streamed (gzip decompressed, a BOM dropped, line ends kept)."""
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    with opener(path, "rt", encoding=encoding, errors="replace", newline="") as fh:
        first = True
        for line in fh:
            yield line.lstrip("\ufeff") if first else line
            first = False


def sample_text(path: Path, encoding: str, label: str, limit: int = SAMPLE_BYTES) -> str:
    """The file's first lines as text (a line cut by `limit` is left out, a BOM is dropped)."""
    data = open_text_bytes(path, limit + 1)
    if len(data) > limit:
        data = data[: data.rfind(b"\n") + 1] or data[:limit]
    try:
        text = data.decode(encoding, errors="strict")
    except UnicodeDecodeError as exc:
        if exc.start >= len(data) - 4 and len(data) > limit - 4:  # a character cut by the limit
            text = data[: exc.start].decode(encoding)
        else:
            raise refusal(path, encoding, label, data, exc.start) from None
    return text.lstrip("\ufeff")


def body_text(path: Path, dialect: "Dialect", label: str, limit: int = SAMPLE_BYTES) -> str:
    """The file's first lines from its header on (the lines above it, a title, left out)."""
    return after_lines(sample_text(path, dialect.encoding, label, limit), dialect.skip_rows)


def detect(path: Path, settings: ZoneReadSettings) -> Dialect:
    """The dialect Spark reads `path` with; RatError (naming the file and the setting) when it cannot
    be read right. Cached by the file's identity and the zone's settings."""
    key = (str(path), FileIdentity.of(path), settings.csv, settings.columns, settings.date_orders)
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    dialect = _detect(path, settings)
    _remember(_cache, key, dialect)
    return dialect


def _remember(cache: OrderedDict, key: tuple, value: "Dialect") -> None:
    with _lock:
        cache[key] = value
        while len(cache) > _CACHE_SIZE:
            cache.popitem(last=False)


def _detect(path: Path, settings: ZoneReadSettings) -> Dialect:
    pinned = settings.csv
    encoding = file_encoding(path, open_text_bytes(path, 4), pinned.encoding)
    text = sample_text(path, encoding, settings.label)
    # what the sniffer decides beyond the header: whether values are quoted, and how quotes are escaped;
    # the zone's label, since two systems may well share a header and not a date order
    header_key = (text.partition("\n")[0], encoding, '"' in text, '\\"' in text, "'" in text, pinned, settings.columns,
                  settings.date_orders, settings.label)
    with _lock:
        alike = _by_header.get(header_key)
    if alike is not None and not _proves_other_order(text, alike, settings):
        multiline = pinned.multiline if pinned.multiline is not None else _spans_lines(text, alike)
        if alike.unnamed_last and not _last_column_empty(text, alike, len(alike.names) + 1):
            alike = replace(alike, names=(*alike.names, f"_c{len(alike.names)}"), unnamed_last=False)
        return _sampled(text, replace(alike, multiline=multiline))
    skip = pinned.skip_rows or 0
    dialect, first = _sniff_all(path, after_lines(text, skip), settings, encoding)
    if pinned.skip_rows is None and (junk := _lines_above_header(path, text, dialect, settings)):
        # a report's title above its header: the sniffer took its empty first line for the header
        skip = junk
        dialect, first = _sniff_all(path, after_lines(text, skip), settings, encoding)
    text = after_lines(text, skip)
    dialect = replace(dialect, skip_rows=skip)
    multiline = pinned.multiline if pinned.multiline is not None else _spans_lines(text, dialect)
    dialect = replace(dialect, multiline=multiline, names=_names(path, first, dialect, settings))
    if dialect.header and len(first) > 1 and _last_column_empty(text, dialect, len(first)):
        dialect = replace(dialect, names=dialect.names[:-1], unnamed_last=True)
    dialect = _in_remembered_order(text, dialect, settings)
    if dialect.header and not skip:  # files alike in their first line may have titles of other lengths
        _remember(_by_header, header_key, dialect)
    return _sampled(text, dialect)


def _sampled(text: str, dialect: Dialect) -> Dialect:
    """The dialect with what its sample says of each column's numbers (numbers.py), read from its first
    NUMBERS_BYTES: parsing the whole 256 KB sample cost more than the rest of detection."""
    if len(text) > NUMBERS_BYTES:
        text = text[: text.rfind("\n", 0, NUMBERS_BYTES) + 1] or text
    records = itertools.islice(_reader(text, dialect), 1 if dialect.header else 0, None)
    return replace(dialect, samples=column_samples(records, dialect.names, dialect.null_value,
                                                   dialect.timestamp_format is not None))


def zone_dialects(zone_dir: Path, settings: ZoneReadSettings) -> dict[Path, Dialect]:
    """The dialect of each active text file of the zone that can be detected, with the zone's numbers (a run
    reads its files with these; typed twins and pinning take them from here)."""
    detected = {}
    for file in active_landing_files(zone_dir):
        if landing_format(file) == "csv":
            try:
                detected[file] = detect(file, settings)
            except (RatError, FileNotFoundError):
                continue  # whoever reads it says why
    return in_zone(detected, settings.csv.decimal, settings.csv.thousands, settings.types)[0]


# A one-column header of words set apart by runs of spaces (`ID  NAME      AMT`): a fixed-width report
_FIXED_WIDTH = re.compile(r"\S {2,}\S.* {2,}\S")


def _sniff_all(path: Path, text: str, settings: ZoneReadSettings, encoding: str) -> tuple[Dialect, list[str]]:
    """The sniffer's dialect and the text's first record, retried where DuckDB's first answer is one column."""
    pinned = settings.csv
    dialect, first = _sniffed_dialect(path, text, settings, encoding, strict=True)
    if len(first) == 1 and any(c in first[0] for c in (",", *_SUSPECT_SEPARATORS)):
        # DuckDB's strict sniffer gives up on a file quoted two ways (`""` and `\"`) and answers with
        # one column; the lenient one finds the separator
        dialect, first = _sniffed_dialect(path, text, settings, encoding, strict=False)
    if len(first) == 1 and not pinned.delimiter and (suspects := [c for c in _SUSPECT_SEPARATORS if c in first[0]]):
        # DuckDB weighs the rows: a `;` file whose text holds commas (`1;a, b, c`) sniffed as comma-separated,
        # its header one column. The separator the header holds reads it as columns, or it is refused below.
        retry = replace(settings, csv=replace(pinned, delimiter=suspects[0]))
        dialect, first = _sniffed_dialect(path, text, retry, encoding, strict=True)
    if len(first) == 1 and (suspects := [c for c in _SUSPECT_SEPARATORS if c in first[0]]):
        shown = "tab" if suspects[0] == "\t" else f"'{suspects[0]}'"
        setting = "'\\t'" if suspects[0] == "\t" else f"'{suspects[0]}'"
        raise RatError(
            f"{path.name} would read as one column although its first line holds {shown}; set the zone's "
            f"delimiter in rat.yaml (zones: {{{settings.label}: {{csv: {{delimiter: {setting}}}}}}})")
    if len(first) == 1 and not pinned.delimiter and _FIXED_WIDTH.search(first[0]):
        raise RatError(
            f"{path.name} would read as one column: its first line ({first[0][:60]!r}) looks like columns of fixed "
            "width, which a landing zone does not read; send it delimited (CSV), or set the zone's delimiter in "
            f"rat.yaml (zones: {{{settings.label}: {{csv: {{delimiter: ...}}}}}}) if it has one")
    if not dialect.header and pinned.header is None and len(first) > 1 and first[-1] == "":
        dialect = replace(dialect, header=_header_without_the_last_delimiter(path, text, dialect, settings, encoding))
    return dialect, first


def _header_without_the_last_delimiter(path: Path, text: str, dialect: Dialect, settings: ZoneReadSettings,
                                       encoding: str) -> bool:
    """Whether the sniffer finds a header once every line's trailing delimiter is gone: with it, the header's
    last cell is empty, and a file of text columns (`name,city,`) loaded its header as a row, columns _c0, _c1."""
    lines = text.splitlines()
    if not all(line.endswith(dialect.delimiter) for line in lines if line.strip()):
        return False
    trimmed = "\n".join(line[:-1] if line.endswith(dialect.delimiter) else line for line in lines) + "\n"
    return _sniffed_dialect(path, trimmed, settings, encoding, strict=True)[0].header


def sniffed_part(text: str) -> str:
    """The sample's whole lines within SNIFF_BYTES, and at least its first SNIFF_LINES: a wide file's header
    alone passes 16 KB (3,000 columns), and cut to no line the sniffer took it for a header-less file."""
    if len(text) <= SNIFF_BYTES:
        return text
    end = text.rfind("\n", 0, SNIFF_BYTES)
    at = -1
    for _ in range(SNIFF_LINES):
        at = text.find("\n", at + 1)
        if at < 0:
            return text
    return text[: max(end, at) + 1]


def after_lines(text: str, count: int) -> str:
    """The text without its first `count` lines."""
    start = 0
    for _ in range(count):
        start = text.find("\n", start) + 1
        if not start:
            return ""
    return text[start:]


def _lines_above_header(path: Path, text: str, dialect: Dialect, settings: ZoneReadSettings) -> int:
    """How many lines above the header hold no table: empty (`,,,,,,,,`) or one value only, a report's title
    (`Number of … by State During FY 2010,,,,`), in a table of three columns or more; in a table of two, a
    line of one field (`Sales`), since `1,` there is a row with an empty value. RatError naming the lines
    when the first line of several values is narrower than the rows under it (a title of several values:
    Spark would fail on the first row wider than the header)."""
    reader = _reader(text, dialect)
    rows = []  # (last line, values, width) of the first records
    records = []
    try:
        for record in itertools.islice(reader, 50):
            rows.append((reader.line_num, sum(1 for v in record if v.strip()), len(record)))
            records.append(record)
    except csv.Error:
        pass
    widths = Counter(width for _, values, width in rows if values >= 2)
    if not widths or (table := widths.most_common(1)[0][0]) < 2:
        return 0
    skip = 0
    for at, (line, values, width) in enumerate(rows):
        if table == 2 and values == 1 and width > 1:
            return 0
        if values > 1:
            if width < table:  # a title of several values, or a header narrower than the rows
                above = f"lines 1-{line}" if line > 1 else "line 1"
                # the header is likely the first line as wide as the rows: empty lines under a title are above it too
                header = next((first for first, v, w in rows[at + 1:] if v > 1 and w == table), line + 1)
                raise RatError(
                    f"{path.name} {above} hold(s) {width} column(s) where the rows under it have {table}: a title "
                    f"above the header? Set the number of lines above the header in rat.yaml (zones: "
                    f"{{{settings.label}: {{csv: {{skip_rows: {header - 1}}}}}}}), or fix the header")
            return skip or _title_as_wide_as_the_header(records, rows[0][0])
        skip = line
    return 0


_NUMERIC = re.compile(r"[-+]?(\d[\d.,' ]*|[.,]\d+)")
_COLUMN_NAME = re.compile(r"[A-Za-z_][\w .()/#%-]*")


def _title_as_wide_as_the_header(records: list[list[str]], title_lines: int) -> int:
    """`title_lines` when the first record is a title of as many values as the header under it (`Sales export,
    week 1` above `id,amount`): the first two records are words (the second, distinct column names), and a
    column under them holds numbers only. Read with the title as its header, the file loaded green as two text
    columns holding `id`, `amount` and the numbers as text."""
    if len(records) < 3 or len(records[0]) != len(records[1]):
        return 0
    title, header, rows = [v.strip() for v in records[0]], [v.strip() for v in records[1]], records[2:]
    if (not all(v and not _NUMERIC.fullmatch(v) for v in title)
            or not all(_COLUMN_NAME.fullmatch(v) for v in header)
            or len({v.lower() for v in header}) != len(header)
            or [v.lower() for v in title] == [v.lower() for v in header]):
        return 0
    numbers_only = any(all(column < len(row) and _NUMERIC.fullmatch(row[column].strip()) for row in rows)
                       for column in range(len(header)))
    return title_lines if numbers_only else 0


def swapped_order(pattern: str | None) -> str | None:
    """`dd/MM/yyyy` -> `MM/dd/yyyy`: the pattern with day and month trading places; None when they cannot
    (no day or no numeric month, or a month written as a name)."""
    if not pattern or "MMM" in pattern:
        return None
    swapped = pattern.translate(str.maketrans("dM", "Md"))
    return swapped if swapped != pattern else None


def _strftime(pattern: str) -> str | None:
    """Spark's pattern as Python's strptime format (`dd/MM/yyyy` -> `%d/%m/%Y`); None for letters it lacks."""
    out = []
    for i, piece in enumerate(pattern.split("'")):
        if i % 2:  # between quotes: literal text
            out.append(piece.replace("%", "%%"))
            continue
        for letter, run in itertools.groupby(piece):
            token = "".join(run)
            if not letter.isalpha():
                out.append(token.replace("%", "%%"))
            elif token in _SPARK_TO_STRFTIME:
                out.append(_SPARK_TO_STRFTIME[token])
            else:
                return None
    return "".join(out)


def _in_remembered_order(text: str, dialect: Dialect, settings: ZoneReadSettings) -> Dialect:
    """A file whose dates read either way (all days 12 or less) is read in the order the zone's earlier
    loads had (settings.date_orders, from the load history), not in the sniffer's guess (day first).
    A file that proves the other order keeps it: zone_reader.py refuses it, naming where (order_proof)."""
    for key, remembered in settings.date_orders:
        pattern = getattr(dialect, key)
        if getattr(settings.csv, key) is None and swapped_order(pattern) == remembered \
                and order_proof(text, dialect, key) is None:
            dialect = replace(dialect, **{key: remembered})
    return dialect


def _proves_other_order(text: str, dialect: Dialect, settings: ZoneReadSettings) -> bool:
    """Whether the sample holds a date that reads only with day and month of `dialect` swapped (25/12/2024
    where an alike file read 12/25/2024): then it is sniffed on its own, and zone_reader.py refuses the pair.
    Looked for where the sniffer looks (16 KB): the whole 256 KB sample cost 0.1 s a file, many sniffs."""
    text = sniffed_part(text)
    for key in ("date_format", "timestamp_format"):
        swapped = swapped_order(getattr(dialect, key))
        if swapped and getattr(settings.csv, key) is None \
                and order_proof(text, replace(dialect, **{key: swapped}), key):
            return True
    return False


def order_proof(text: str, dialect: Dialect, key: str) -> tuple[int, str, str] | None:
    """The first value of the sample that reads only in the dialect's day/month order, not the swapped
    one (25/12/2024 for dd/MM/yyyy): its line, column name and text; None when every value reads either way."""
    return _first_date(text, dialect, key, lambda value, ours, swapped: _reads(value, ours) and not _reads(value, swapped))


def either_order(text: str, dialect: Dialect, key: str) -> tuple[int, str, str] | None:
    """When no value of the sample settles the day/month order (none reads in one order only), the first that
    reads as two different dates (01/02/2024): its line, column name and text; else None."""
    swapped = swapped_order(getattr(dialect, key))
    if swapped is None or order_proof(text, dialect, key) or order_proof(text, replace(dialect, **{key: swapped}), key):
        return None
    return _first_date(text, dialect, key, lambda value, ours, other: _reads(value, ours) and _reads(value, other)
                       and _parsed(value, ours) != _parsed(value, other))


def _first_date(text: str, dialect: Dialect, key: str,
                wanted: Callable[[str, str, str], bool]) -> tuple[int, str, str] | None:
    """The first value of the sample `wanted(value, strptime format, day/month swapped format)` takes."""
    pattern = getattr(dialect, key)
    swapped = swapped_order(pattern)
    formats = (_strftime(pattern), _strftime(swapped)) if pattern and swapped else (None, None)
    if None in formats:
        return None
    # a cheap test first: a value without the pattern's first separator (a number, a name) is no date of it
    separator = next((c for c in pattern if not c.isalnum() and c != "'"), "")
    reader = _reader(text, dialect)
    try:
        for record in itertools.islice(reader, 1 if dialect.header else 0, None):
            for name, value in zip(dialect.names, record):
                if separator in value and wanted(value, *formats):
                    return reader.line_num, name, value
    except csv.Error:  # a record the sample cut: what came before had no proof
        pass
    return None


def _parsed(value: str, strftime: str) -> datetime:
    return datetime.strptime(value.strip(), strftime)


def read_date(value: str, pattern: str) -> datetime:
    """`value` as Spark's `pattern` reads it (one of the day/month patterns swapped_order knows)."""
    return _parsed(value, _strftime(pattern) or "")


def _reads(value: str, strftime: str) -> bool:
    try:
        _parsed(value, strftime)
        return True
    except ValueError:
        return False


def _sniffed_dialect(path: Path, text: str, settings: ZoneReadSettings, encoding: str,
                     strict: bool) -> tuple[Dialect, list[str]]:
    """The dialect from DuckDB's sniffer with the zone's settings over it, and the sample's first record."""
    pinned = settings.csv
    sniffed = _sniff(path, text, settings, strict)
    quote = pinned.quote if pinned.quote is not None else (sniffed["quote"] or '"')
    escape = pinned.escape if pinned.escape is not None else ("\\" if sniffed["escape"] == "\\" else quote)
    dialect = Dialect(
        delimiter=pinned.delimiter or sniffed["delimiter"],
        quote=quote,
        escape=escape,
        header=pinned.header if pinned.header is not None else sniffed["header"],
        encoding=encoding,
        null_value=pinned.null_value,
        date_format=pinned.date_format or spark_pattern(sniffed["date_format"]),
        timestamp_format=pinned.timestamp_format or spark_pattern(sniffed["timestamp_format"]),
    )
    return dialect, _first_record(text, dialect)


def _sniff(path: Path, text: str, settings: ZoneReadSettings, strict: bool) -> dict:
    """DuckDB's reading of the sample (decoded to UTF-8, so every encoding and gzip sniff alike)."""
    import duckdb

    pinned = settings.csv
    # null_padding: a ragged row must not make the sniffer take the header for data
    arguments = {"delim": pinned.delimiter, "quote": pinned.quote, "escape": pinned.escape, "header": pinned.header,
                 "strict_mode": strict, "null_padding": True}
    given = {k: v for k, v in arguments.items() if v is not None}
    sql = "SELECT Delimiter, Quote, Escape, HasHeader, DateFormat, TimestampFormat FROM sniff_csv(?" + "".join(
        f", {k} = ?" for k in given) + ")"
    fd, temp = tempfile.mkstemp(prefix="rat-sniff-", suffix=".csv")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(sniffed_part(text))
        with _connection() as cursor:
            row = cursor.execute(sql, [temp, *given.values()]).fetchone()
    except duckdb.Error as exc:
        if strict:
            return _sniff(path, text, settings, strict=False)
        why = one_line(str(exc).replace(temp, path.name))  # DuckDB names the sample's temporary copy
        raise RatError(f"cannot detect how {path.name} is written ({why}); set the zone's "
                       f"csv settings in rat.yaml (zones: {{{settings.label}: {{csv: {{delimiter: ..., header: ...}}}}}})"
                       ) from None
    finally:
        os.unlink(temp)

    def value(text: str | None) -> str | None:
        return None if text in (None, "(empty)") else text

    return {"delimiter": value(row[0]) or ",", "quote": value(row[1]), "escape": value(row[2]), "header": bool(row[3]),
            "date_format": value(row[4]), "timestamp_format": value(row[5])}


def _connection():
    """A cursor on one DuckDB database for the process: opening a database per sniff cost more than the
    sniff of a small file. (One kept per thread in a threading.local made the JVM's later start fail.)"""
    import duckdb

    global _database
    with _lock:
        if _database is None:
            _database = duckdb.connect(config={"threads": 1})
        return _database.cursor()


def _reader(text: str, dialect: Dialect):
    if not dialect.quote:
        return csv.reader(io.StringIO(text, newline=""), delimiter=dialect.delimiter, quoting=csv.QUOTE_NONE)
    doubled = dialect.escape == dialect.quote
    return csv.reader(io.StringIO(text, newline=""), delimiter=dialect.delimiter, quotechar=dialect.quote,
                      doublequote=doubled, escapechar=None if doubled else dialect.escape)


def _first_record(text: str, dialect: Dialect) -> list[str]:
    try:
        return next(_reader(text, dialect), [])
    except csv.Error:
        return text.splitlines()[0].split(dialect.delimiter) if text else []


def _spans_lines(text: str, dialect: Dialect) -> bool:
    """Whether a quoted value of the sample holds a line break (a quote left open at its end counts)."""
    if not dialect.quote or dialect.quote not in text:
        return False
    if dialect.escape == dialect.quote and all(line.count(dialect.quote) % 2 == 0 for line in text.splitlines()):
        return False  # `""` keeps every line's count even: no quote is open at a line's end
    try:
        return any("\n" in field or "\r" in field for record in _reader(text, dialect) for field in record)
    except csv.Error:
        return True


def _last_column_empty(text: str, dialect: Dialect, width: int) -> bool:
    """Whether the header's last cell (of `width`) and every later record's value there are empty in the
    sample."""
    try:
        return all(len(record) < width or not record[width - 1].strip() for record in _reader(text, dialect))
    except csv.Error:
        return False


def _names(path: Path, first: list[str], dialect: Dialect, settings: ZoneReadSettings) -> tuple[str, ...]:
    if dialect.header:
        # Spark names an empty header cell `_c<i>`, and trims the others (spark_options)
        return tuple(name.strip() or f"_c{i}" for i, name in enumerate(first))
    if settings.columns is None:
        return tuple(f"_c{i}" for i in range(len(first)))
    if len(settings.columns) != len(first):
        raise RatError(f"{path.name} has {len(first)} column(s) but the zone's columns list names "
                       f"{len(settings.columns)} ({', '.join(settings.columns)}); fix {settings.key('columns')} "
                       "in rat.yaml")
    return settings.columns

