"""Reading one zone's files into one DataFrame, right or with one clear refusal.

Each CSV file is read with its own dialect (dialect.py); files of one dialect and header share
one Spark reader, JSON arrays and JSON Lines each theirs, and the readers are joined by column
name: a column one file lacks is NULL in its rows, and the run log says which file lacks it.
CSV types come from a sample (schema.py), over which `schema:` in the zone settings pins
columns; a value the sampled type cannot hold makes `widen` infer over the whole files once
(widening.py says what changed and why). `bad_rows: quarantine` sets unparseable rows aside
(quarantine.py) instead of failing the run.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import reduce
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import RatError
from ..lake.table import quote
from ..notes import RunNote
from .arrival import file_name
from .checks import holds_only_a_header, is_json_array, one_format
from .cleaning import cleaned, empty_rows_note, formulas_note, read_uri
from .dialect import (Dialect, body_text, detect, either_order, open_text_bytes, order_proof, read_date,
                      swapped_order)
from .encodings import bom_encoding, check_text, shown
from .quarantine import read_setting_aside, write_rejected
from .numbers import REFUSED, Said, in_zone
from .spark_reader import FileGroup, csv_frame, list_locally, typed_schema
from .schema import sampled_csv_schema
from .widening import does_not_cast, explain, first_misfit, line_of, malformed, records, widen
from .zone_settings import ZoneReadSettings

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession
    from pyspark.sql.types import DataType

CONVENTION_FILES = 16  # the zone's latest files not read by a run that tell its number convention
RAGGED_CHECK_RECORDS = 2000  # records of each file checked for their width before Spark reads it
TwinsOf = Callable[[list[Path], Dialect], "list[Any] | None"]  # twins.twins_for of a zone


def plan_groups(files: list[Path], fmt: str, settings: ZoneReadSettings,
                others: list[Path] = ()) -> tuple[list[FileGroup], Said]:
    """The zone's files in reader groups, in the order of their first file, and what the run tells of how
    they write numbers; RatError for a file that cannot be read right (dialect.py's sentences). `others`: files
    of the zone this run does not read (loaded before), whose numbers still tell the zone's convention: a
    later file of `1.500` alone read 1.5 beside the `12,50` of the file loaded before it."""
    groups: dict[tuple, FileGroup] = {}
    dialects = {f: detect(f, settings) for f in files} if fmt == "csv" else {}
    if dialects:
        for other in sorted(others, key=_modified, reverse=True)[:CONVENTION_FILES]:
            try:
                dialects.setdefault(other, detect(other, settings))
            except (RatError, OSError):
                continue  # a run that reads it says why
    dialects, said = in_zone(dialects, settings.csv.decimal, settings.csv.thousands, settings.types)
    for file in files:
        if fmt == "csv":
            dialect = dialects[file]
            check_text(file, dialect.encoding, settings.label)  # mojibake never reaches a table
            key: tuple = ("csv", dialect.read_key())
            groups.setdefault(key, FileGroup("csv", [], dialect)).files.append(file)
        elif fmt == "json":
            array = is_json_array(file)
            groups.setdefault(("json", array), FileGroup("json", [], json_array=array)).files.append(file)
        else:
            groups.setdefault((fmt,), FileGroup(fmt, [])).files.append(file)
    if fmt == "csv":
        _refuse_swapped_day_month(list(groups.values()), settings)
    refused = next((text for kind, text in said if kind == REFUSED), None)
    if refused is not None:
        raise RatError(f"zone {settings.label}: {refused}")
    return list(groups.values()), said


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _refuse_swapped_day_month(groups: list[FileGroup], settings: ZoneReadSettings) -> None:
    """Files of one zone whose dates were detected in opposite orders (dd/MM beside MM/dd), or a file whose
    order is the opposite of the one the zone's earlier loads had: each file is sniffed alone, and a file
    whose days are all 12 or less is taken day-first, so a US export's 02/01/2024 became 2 January beside
    another file's 12/25/2024. One clear refusal, not a swap."""
    # a key rat.yaml pins reads every file one way: the earlier loads' order does not count against it
    seen: dict[tuple[str, str], FileGroup | None] = {
        (key, pattern): None for key, pattern in settings.date_orders if getattr(settings.csv, key) is None}
    for group in groups:
        for key in ("date_format", "timestamp_format"):
            pattern = getattr(group.dialect, key)
            swapped = swapped_order(pattern)
            if swapped and (key, swapped) in seen:
                other = seen[(key, swapped)]
                first = "the zone's earlier loads" if other is None else other.names()
                raise RatError(
                    f"the files of zone {settings.label} write dates in two orders: {first} as {swapped}"
                    f"{_why(other, key, settings)}, {group.names()} as {pattern}{_why(group, key, settings)}; set "
                    f"the zone's {key} in rat.yaml (zones: {{{settings.label}: {{csv: {{{key}: '{swapped}'}}}}}}, or "
                    f"'{pattern}')")
            if pattern:
                seen.setdefault((key, pattern), group)


def _why(group: FileGroup | None, key: str, settings: ZoneReadSettings) -> str:
    """` (b.csv line 2, column day: 25/12/2024)`: where a file of the group shows its order; or that none does
    (a file whose days are all 12 or less was read in one order, and reads the other as well). Nothing for the
    zone's earlier loads (None)."""
    if group is None:
        return ""
    for file in group.files:
        found = order_proof(body_text(file, group.dialect, settings.label), group.dialect, key)
        if found is not None:
            line, column, value = found
            return f" ({file.name} line {line}, column {column}: {value})"
    return " (no day above 12: it reads either way)"


@dataclass
class ZoneReader:
    """What a run (or a preview) reads of one zone; kept by the run so a retry reads it the same way."""

    spark: "SparkSession"
    zone_dir: Path
    label: str
    files: list[Path]
    uri_of: Callable[[Path], str]
    settings: ZoneReadSettings
    twins_of: TwinsOf | None = None
    run_id: str | None = None  # where quarantined rows go; None (a preview): nowhere
    others: list[Path] = field(default_factory=list)  # the zone's files it does not read (plan_groups)
    groups: list[FileGroup] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # logged by the run
    # what a green run tells about the data it read (kept as text, rows with no value, number formats,
    # encodings): each also one of `notes`
    run_notes: list[RunNote] = field(default_factory=list)
    rejected_rows: int = 0
    columns: list[str] = field(default_factory=list)  # those every file read had (after read())

    def __post_init__(self) -> None:
        self.groups, said = plan_groups(self.files, one_format(self.label, self.files), self.settings, self.others)
        for kind, text in said:
            self.tell(kind, text)
        self._leave_out_lines_that_are_no_rows()
        self._refuse_ragged_records()
        if self.twins_of is not None:
            for group in self.groups:
                if group.fmt == "csv" and all(self.uri_of(f).startswith("file:") for f in group.files):
                    group.twins = self.twins_of(group.files, group.dialect)
        described: dict[str, list[str]] = {}  # groups that differ only in what a description leaves out are one
        for group in self.groups:
            if group.fmt == "csv" and group.dialect is not None:
                described.setdefault(group.dialect.describe(), []).append(group.names())
        if len(described) > 1:
            self.note("files read with different dialects: " + "; ".join(
                f"{', '.join(names)}: {description}" for description, names in described.items()))
        self._tell_encodings()
        self._tell_dates_either_way()

    def _tell_dates_either_way(self) -> None:
        """A file whose dates all read either way (01/02/2024) is read in the order the sniffer took, day first,
        unless rat.yaml pins one or the zone's earlier loads settled it (then later files follow that order):
        a first load says the order it took and the setting for the other, once per zone and key."""
        settled = {key for key, _ in self.settings.date_orders} | {
            key for key in ("date_format", "timestamp_format") if getattr(self.settings.csv, key) is not None}
        files = [(file, group.dialect) for group in self.groups if group.fmt == "csv" and group.dialect is not None
                 for file in group.files]
        texts: dict[Path, str] = {}

        def text(file: Path, dialect: Dialect) -> str:
            if file not in texts:
                texts[file] = body_text(file, dialect, self.settings.label)
            return texts[file]

        for key in ("date_format", "timestamp_format"):
            # one file of the load that proves the order settles it for all (the zone's files share one order,
            # or _refuse_swapped_day_month refused them)
            if key in settled or any(order_proof(text(file, dialect), dialect, key) for file, dialect in files):
                continue
            found = next(((file, dialect, hit) for file, dialect in files
                          if (hit := either_order(text(file, dialect), dialect, key))), None)
            if found is None:
                continue
            file, dialect, (line, column, value) = found
            pattern = getattr(dialect, key)
            swapped = swapped_order(pattern)
            other = "month first" if swapped.index("M") < swapped.index("d") else "day first"
            read = read_date(value, pattern)
            shown_as = read.date().isoformat() if key == "date_format" else read.isoformat(sep=" ")
            self.tell("dates_either_way", f"{file.name}: its {column} {'dates' if key == 'date_format' else 'times'} "
                      f"read either way ({value} on line {line}): read as {pattern}, so {value} is {shown_as}; if they "
                      f"are {other}, set the zone's {key} in rat.yaml (zones: {{{self.settings.label}: {{csv: "
                      f"{{{key}: '{swapped}'}}}}}})", file, line)

    def _leave_out_lines_that_are_no_rows(self) -> None:
        """Spark reads a file with a title above its header, or rows with no value, from a copy without them."""
        dialects = {f: g.dialect for g in self.groups if g.fmt == "csv" and g.dialect is not None for f in g.files}
        for file, dialect in dialects.items():
            found = cleaned(file, dialect)
            if dialect.skip_rows:
                lines = "line 1" if dialect.skip_rows == 1 else f"lines 1-{dialect.skip_rows}"
                self.tell("other", f"{file.name}: {lines} above the header (a title) not loaded", file, 1)
            if found.empty_count:
                self.tell("empty_rows", empty_rows_note(file, found), file, found.empty_rows[0])
            if found.formulas:
                self.tell("excel_text", formulas_note(file, found), file, found.formula_line)
        if any(cleaned(f, d).copy for f, d in dialects.items()):
            plain = self.uri_of
            self.uri_of = lambda f: read_uri(f, dialects[f], plain) if f in dialects else plain(f)

    def _refuse_ragged_records(self) -> None:
        """A record of another width than its header in a file's first records fails the run here, with the
        sentence Spark's failure gets later: that took a read, a full pass and a second read, 11-28 s for a
        five-line file. Past these records Spark finds them (and `bad_rows: quarantine` sets them aside)."""
        if self.settings.quarantine:
            return
        for group in self.groups:
            if group.fmt != "csv" or group.dialect is None or not group.dialect.names:
                continue
            width = len(group.dialect.names) + group.dialect.unnamed_last
            for file in group.files:
                found = islice(records(file, group.dialect), int(group.dialect.header), RAGGED_CHECK_RECORDS)
                for line, record in found:
                    if record and len(record) != width:
                        raise RatError(malformed(file, line, len(group.dialect.names),
                                                 group.dialect.delimiter.join(record)))

    def _tell_encodings(self) -> None:
        """A file read in another encoding than the zone's (its BOM or its UTF-8 settled it), or a zone read in several."""
        zone = self.settings.csv.encoding
        read = [(f, g.dialect.encoding) for g in self.groups if g.dialect is not None for f in g.files]
        if len({e for _, e in read}) < 2 and all(zone in (None, e) for _, e in read):
            return
        for file, encoding in read:
            if encoding == (zone or "utf-8"):
                why = "the zone's encoding"
            elif bom_encoding(open_text_bytes(file, 4)) is not None:
                why = "its byte-order mark"
            else:
                why = f"it is valid UTF-8 with letters beyond ASCII, which {zone} would garble"
            self.tell("encoding", f"{file.name} read as {shown(encoding)} ({why})", file)

    def date_orders(self) -> list[tuple[str, str]]:
        """The (key, pattern) the zone's dates were read with where day and month could trade places: what
        the load history keeps for the zone's later files."""
        return list(dict.fromkeys((key, getattr(g.dialect, key)) for g in self.groups if g.dialect is not None
                                  for key in ("date_format", "timestamp_format")
                                  if swapped_order(getattr(g.dialect, key))))

    def note(self, message: str) -> None:
        if message not in self.notes:
            self.notes.append(message)

    def tell(self, kind: str, text: str, file: Path | None = None, line: int | None = None) -> None:
        """A fact the run's result shows (a RunNote, its file named from the project's root), logged too."""
        where = f"{self.label}/{file.relative_to(self.zone_dir).as_posix()}" if file is not None else None
        note = RunNote(kind, text, where, line)
        if note not in self.run_notes:
            self.run_notes.append(note)
        self.note(text)

    # -- reading ---------------------------------------------------------------------
    def read(self) -> tuple["DataFrame", "Column"]:
        """The zone as one DataFrame, and a column naming each row's file (its base name)."""
        frames = [self._frame(g) for g in self.groups]
        self.columns = [c for c in frames[0].columns if all(c in f.columns for f in frames[1:])]
        return self._by_name(frames), file_name(self.twins())

    def twins(self) -> list:
        """The typed twins (twins.Twin) the reader reads in place of their CSV files."""
        return [t for g in self.groups for t in (g.twins or [])]

    def _frame(self, group: FileGroup) -> "DataFrame":
        reader = self.spark.read
        if group.twins:
            folders = ["file:" + str(t.folder) for t in group.twins]
            list_locally(self.spark, folders)
            return reader.schema(group.twins[0].schema()).parquet(*folders)
        uris = [self.uri_of(f) for f in group.files]
        list_locally(self.spark, uris)
        if group.fmt == "json":
            return reader.options(mode="FAILFAST", multiLine=group.json_array).json(uris)
        if group.fmt == "parquet":
            # by default Spark takes one file's schema for all: a column only a later file has was dropped
            return reader.option("mergeSchema", "true").parquet(*uris)
        if group.schema is None:
            group.schema = typed_schema(sampled_csv_schema(self.spark, group.files, group.dialect), group.dialect,
                                        self.settings)
            self._tell_renamed_columns(group)
            self._tell_numbers_read_as_text(group, uris)
        if self.settings.quarantine:
            return self._set_aside(group, uris)
        return csv_frame(self.spark, uris, group.dialect, group.schema, "FAILFAST", self.settings.pinned)

    def _tell_renamed_columns(self, group: FileGroup) -> None:
        """A header that names a column twice (`id,name,ID`): Spark reads every such column under its name and
        position (`id0`, `ID2`), so `SELECT id` finds nothing. Said, with what to select instead."""
        dialect = group.dialect
        if dialect is None or not dialect.header or group.schema is None:
            return
        seen = Counter(name.lower() for name in dialect.names)
        renamed = [(position, name, field.name) for position, (name, field)
                   in enumerate(zip(dialect.names, group.schema.fields), start=1)
                   if name != field.name and seen[name.lower()] > 1]  # not an empty name Spark calls _c3
        if renamed:
            listed = ", ".join(f"{name!r} (column {position}) as {read}" for position, name, read in renamed)
            self.tell("renamed_columns", f"{group.names()} name{'s' if len(group.files) == 1 else ''} a column more "
                                         f"than once in the header; read {listed}: select those names, or rename the "
                                         "columns in the files", group.files[0], 1 + dialect.skip_rows)

    def _tell_numbers_read_as_text(self, group: FileGroup, uris: list[str]) -> None:
        """A column whose first lines are numbers that Spark's pass over the whole files typed as text (`1.50`
        for 100,000 lines, then `1.500,25`): said, with the value and line that made it text."""
        from pyspark.sql.types import DoubleType, StringType

        dialect = group.dialect
        if dialect is None or not dialect.samples or group.schema is None:
            return
        for column in group.schema.fields:
            sample = dialect.samples.get(column.name)
            if (not isinstance(column.dataType, StringType) or sample is None
                    or not (sample.numeric or sample.numbers_but)
                    or column.name in dialect.text_columns or column.name in self.settings.pinned):
                continue
            found = first_misfit(self.spark, group, uris, column.name, DoubleType())
            if found is None:
                continue
            value, path = found
            line = line_of(path, dialect, group.schema, column.name, value)
            if value in sample.numbers_but:
                words = ", ".join(repr(w) for w in sample.numbers_but)
                remedy = (f"if {value!r} means no value, set null_values: {value!r} under zones: {self.settings.label}: csv: "
                          "in rat.yaml to read the column as numbers" if len(sample.numbers_but) == 1 else
                          f"a zone takes one null marker (csv null_values): read it with try_cast({column.name} AS DOUBLE) "
                          "in the pipeline, which gives NULL for each of them")
                text = f"{column.name} kept as text: its values are numbers but for {words}; {remedy}"
            else:
                text = (f"{column.name} kept as text: the files' first lines hold numbers, but {value!r} is not one; fix "
                        f"that line, or pin the column (schema: {{{column.name}: string}}) to keep it as text without "
                        "this note")
            self.tell("kept_as_text", text, path, line)

    def _by_name(self, frames: list["DataFrame"]) -> "DataFrame":
        if len(frames) == 1:
            return frames[0]
        every = list(dict.fromkeys(c for df in frames for c in df.columns))
        for group, df in zip(self.groups, frames):
            missing = [c for c in every if c not in df.columns]
            if missing and all(holds_only_a_header(f) for f in group.files):  # no rows to hold NULL
                self.note(f"{group.names()}: only a header, no row loaded")
            elif missing:
                self.note(f"{group.names()} lack{'s' if len(group.files) == 1 else ''} column(s) "
                          f"{', '.join(missing)}: NULL in their rows")
        frames = self._text_wins(frames)
        try:
            return reduce(lambda a, b: a.unionByName(b, allowMissingColumns=True), frames)
        except Exception as exc:
            from ..lake.spark_errors import summarise

            raise RatError(f"the files of landing zone {self.label} disagree on a column's type "
                           f"({summarise(exc)[0]}); pin it with schema: in the zone settings") from None

    def _text_wins(self, frames: list["DataFrame"]) -> list["DataFrame"]:
        """A column one file reads as text and another as numbers, dates or booleans is text in every file when
        a value of the text doesn't fit the other type (a file's `N/A`): the union would cast it and fail at
        that value, deep in the write, with a remedy the pipeline cannot apply. So is one a file's numbers kept
        as text on purpose (`00789`, `1.500` that may be 1500): the union's cast would read it as the very number
        the run declined to guess. Other text that fits (an empty column) is left to the union's cast."""
        from pyspark.sql import functions as F
        from pyspark.sql.types import AtomicType, StringType

        typed: dict[str, "DataType"] = {}
        for df in frames:
            for f in df.schema.fields:
                if isinstance(f.dataType, AtomicType) and not isinstance(f.dataType, StringType):
                    typed.setdefault(f.name, f.dataType)
        text = set()
        for column, dtype in sorted(typed.items()):
            kept = [group.names() for group in self.groups if group.dialect and column in group.dialect.text_columns]
            if kept:
                text.add(column)
                self.note(f"{column} is text in every file: its numbers in {'; '.join(kept)} are kept as text")
                continue
            misfits = [(group.names(), found) for group, df in zip(self.groups, frames) if column in df.columns
                       and isinstance(df.schema[column].dataType, StringType)
                       and (found := _first_misfit(df, column, dtype)) is not None]
            if misfits:
                text.add(column)
                where = "; ".join(f"{names} holds {value!r}" for names, value in misfits)
                self.note(f"{column} is text in every file: not every value is {dtype.simpleString()} ({where})")
        if not text:
            return frames
        return [df.select(*(F.col(quote(c)).cast("string").alias(c) if c in text else F.col(quote(c))
                            for c in df.columns)) for df in frames]

    # -- after a failed read, and rows set aside ------------------------------------------
    def widen(self) -> list[str]:
        """Infer the text groups read from a sample over their whole files; notes on what changed
        (widening.py). RatError when a value does not fit a pinned type."""
        notes = widen(self.spark, self.groups, self.uri_of, self.settings)
        for note in notes:
            self.note(f"widened {note}")
        return notes

    def explain(self, exc: BaseException) -> str | None:
        return explain(self.groups, self.label, exc)

    def _set_aside(self, group: FileGroup, uris: list[str]) -> "DataFrame":
        df, rejected = read_setting_aside(self.spark, group, uris)
        if rejected and not group.full_pass and self.widen():  # never reject a row a full pass reads
            df, rejected = read_setting_aside(self.spark, group, uris)
        if rejected:
            self.rejected_rows += len(rejected)
            where = write_rejected(self.zone_dir, self.run_id, group, rejected)
            self.note(f"{len(rejected)} row(s) of {group.names()} did not parse and were set aside"
                      + (f" in {where}" if where else ""))
        return df


def _first_misfit(df: "DataFrame", column: str, dtype: "DataType") -> str | None:
    """A value of a text column that does not cast to `dtype` (a Spark job; asked only when files disagree)."""
    rows = df.where(does_not_cast(column, dtype)).select(quote(column)).limit(1).collect()
    return rows[0][0] if rows else None
