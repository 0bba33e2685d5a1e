"""How a zone writes its numbers, decided per column over the zone's sample, and identifiers kept as text.

Spark reads `1.500` as the double 1.5 and `12,50` as text: a `;` export's thousands became decimals. Each
file's sample gives, per column, the conventions (decimal mark, thousands separator) every value fits.
Over the zone, a column is read as the numbers its values mean: `1.234,56` and `12,50` say a decimal
comma; `1,234,567` says `,` groups thousands. Where the column cannot tell (every value one separator
and exactly three digits: `1.500`, `6,718`) the zone's own convention decides (a decimal comma or
point elsewhere); without one the column is kept as text, and the run says so. rat.yaml may pin
`decimal` and `thousands`. A column in which a value has a leading zero (`01`, `08123`: state codes,
ZIP codes, account numbers) is text: as numbers they lost the zero.
"""
from __future__ import annotations

import contextlib
import csv
import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DecimalType, StructType

SPACES = " \u00a0\u202f"  # a space, and the no-break spaces French and Swiss exports group with
CONVENTIONS = tuple((decimal, thousands) for decimal in (".", ",")
                    for thousands in (None, ",", ".", " ", "'") if thousands != decimal)
_SEPARATORS = set(".,'" + SPACES)
_MOST_VALUES = 200  # distinct values with a separator kept per column: enough to tell, bounded in cost


def _pattern(decimal: str, thousands: str | None, flavour: str = "python") -> str:
    group = "[" + SPACES + "]" if thousands == " " else re.escape(thousands) if thousands else None
    if flavour == "java" and thousands == " ":
        group = "[ \\u00a0\\u202f]"
    # a grouped number's first group never starts with 0: 0.750 is no 750, only three quarters
    whole = rf"(?:\d+|[1-9]\d{{0,2}}(?:{group}\d{{3}})+)" if group else r"\d+"
    mark = re.escape(decimal)
    return rf"[+-]?(?:{whole}(?:{mark}\d+)?|{mark}\d+)"


# a column's distinct values, one a line, every one a number in the convention (or only spaces)
_COLUMN_MATCHERS = {c: re.compile(rf"[ \t]*(?:{_pattern(*c)})?[ \t]*(?:\n[ \t]*(?:{_pattern(*c)})?[ \t]*)*")
                    for c in CONVENTIONS}
_PLAIN_COLUMN = re.compile(r"[ \t]*(?:[+-]?\d+)?[ \t]*(?:\n[ \t]*(?:[+-]?\d+)?[ \t]*)*")
_SEPARATOR = re.compile("[.,'" + SPACES + "]")
_WRITTEN = re.compile(r"(?m)^[ \t]*([^\n]*?[.,'" + SPACES + r"][^\n]*?)[ \t]*$")  # values holding a separator
_LEADING_ZEROS = re.compile(r"(?m)^[ \t]*([+-]?0\d[^\n]*?)[ \t]*$")
_LONG_NUMBER = re.compile(r"(?m)^[^\d\n]*(?:\d[^\d\n]*){16,}$")  # a value of 16 digits or more
_MOST_LONG = 5


def canonical(value: str, decimal: str, thousands: str | None) -> str:
    """`1.234,5` with (",", ".") -> `1234.5`."""
    out = value.strip()
    if thousands == " ":
        out = re.sub("[" + SPACES + "]", "", out)
    elif thousands:
        out = out.replace(thousands, "")
    return out.replace(decimal, ".") if decimal != "." else out


@dataclass(frozen=True)
class ColumnSample:
    """What one file's sample says of one column."""

    numeric: bool  # every value is a number in some convention (an empty value counts as none)
    fits: frozenset  # the (decimal, thousands) conventions every value fits
    written: tuple[str, ...] = ()  # distinct values holding a separator (at most _MOST_VALUES)
    leading_zero: str | None = None  # the first value with a leading zero
    # A column of numbers but for words that say "no value" (`N/A`, `NULL`): those words, in order. Spark reads
    # the column as text unless the zone's null_values names the one word it holds.
    numbers_but: tuple[str, ...] = ()
    # A column of dates written in more than one way (`31/12/2024` above `2024-12-30`): Spark reads it as text,
    # and the run says so with one value of each way
    dates_two_ways: tuple[str, ...] = ()
    # A column of numbers dressed as text (`12%`, `(45.00)`, `€ 3,50`) or of date-times Spark has no pattern for
    # (`31.12.2024 23:59`): Spark reads it as text; the first such value, said with the way to read it
    dressed: str | None = None
    date_times: str | None = None
    # A value written as Excel's text formula (`="01234"`, cleaning.py reads the text inside): text on purpose,
    # in every file of the zone, as a leading zero is (a union with another file's numbers cast it to 1234)
    formula: bool = False
    whole: bool = False  # every value a whole number without separators: Spark reads bigint, or decimal(p, 0)
    # The first values with more digits than a double holds (more than 15): a column read as double loses them
    long_values: tuple[str, ...] = ()


# What exports write for "no value" in a column of numbers (compared without case or surrounding spaces)
NO_VALUE_WORDS = frozenset({"n/a", "na", "null", "none", "nan", "-", "--", "?", "#n/a", "nil"})


def column_samples(records, names: tuple[str, ...], null_value: str | None,
                   timestamp_format: bool = False) -> dict[str, ColumnSample]:
    """Per column name, what the records (a file's sample, header left out) say of its numbers. Each column's
    distinct values are matched at once, one line each (a 256 KB sample: milliseconds, not a loop a value).
    `timestamp_format`: the zone sets one, so date-times are its to read."""
    rows = []
    try:
        rows.extend(records)
    except csv.Error:  # a record the sample cut: what came before decides
        pass
    columns = list(itertools.zip_longest(*rows, fillvalue=""))[:len(names)] if rows else []
    out = {}
    for name, values in zip(names, columns):
        if not name:
            continue
        distinct = dict.fromkeys(values)  # in the order they came
        distinct.pop("", None)
        distinct.pop(null_value, None)
        blob = "\n".join(distinct)
        if _PLAIN_COLUMN.fullmatch(blob):  # whole numbers only (ids, counts): one match, not eight
            zero = _LEADING_ZEROS.search(blob)
            out[name] = ColumnSample(True, frozenset(CONVENTIONS), (), zero.group(1) if zero else None, whole=True,
                                     long_values=_long_values(blob))
            continue
        fits = frozenset(c for c, whole in _COLUMN_MATCHERS.items() if whole.fullmatch(blob)) \
            if _SEPARATOR.search(blob) else frozenset()
        if not fits:
            if _SEPARATOR.search(blob) and _each_a_number(distinct):  # `1.234,50` above `1234.50`: told, not guessed
                out[name] = ColumnSample(True, fits, tuple(v for v in distinct if _SEPARATOR.search(v))[:_MOST_VALUES])
            else:
                out[name] = ColumnSample(False, fits, numbers_but=_no_value_words(distinct),
                                         dates_two_ways=_dates_two_ways(distinct), dressed=_dressed(distinct),
                                         date_times=None if timestamp_format else _date_times(distinct),
                                         formula=any(_FORMULA_VALUE.fullmatch(v.strip()) for v in distinct))
            continue
        zero = _LEADING_ZEROS.search(blob)
        written = tuple(m.group(1) for m in itertools.islice(_WRITTEN.finditer(blob), _MOST_VALUES))
        out[name] = ColumnSample(True, fits, written, zero.group(1) if zero else None, long_values=_long_values(blob))
    return out


def _long_values(blob: str) -> tuple[str, ...]:
    return tuple(m.group(0).strip() for m in itertools.islice(_LONG_NUMBER.finditer(blob), _MOST_LONG))


def _numbers_one_way(blob: str) -> bool:
    """Whether the values (one a line) are all numbers in one convention."""
    return bool(_PLAIN_COLUMN.fullmatch(blob) or any(whole.fullmatch(blob) for whole in _COLUMN_MATCHERS.values()))


def _each_a_number(distinct: dict[str, None]) -> bool:
    """Every value a number in some convention, though no one convention reads them all."""
    return all(_numbers_one_way(v) for v in distinct)


_DATE_WAYS = tuple(re.compile(p) for p in (r"\d{4}-\d{1,2}-\d{1,2}", r"\d{1,2}/\d{1,2}/\d{2,4}",
                                            r"\d{1,2}\.\d{1,2}\.\d{2,4}", r"\d{1,2}-\d{1,2}-\d{2,4}"))


def _dates_two_ways(distinct: dict[str, None]) -> tuple[str, ...]:
    """One value of each way, when every value is a date written one of `_DATE_WAYS` and they take more than one."""
    first: dict[int, str] = {}
    for value in itertools.islice(distinct, _MOST_VALUES):
        way = next((i for i, pattern in enumerate(_DATE_WAYS) if pattern.fullmatch(value.strip())), None)
        if way is None:
            return ()
        first.setdefault(way, value)
    return tuple(first.values()) if len(first) > 1 else ()


_FORMULA_VALUE = re.compile(r'="[^"]*"')
_DRESSED = re.compile(r"[-+]?[$€£¥]?\s?\(?[-+]?\d[\d.,' ]*\)?\s?[%$€£¥]?")
_DRESS = re.compile(r"[%$€£¥()]")
_DATE_TIME = re.compile(r"\d{1,2}([./-])\d{1,2}\1\d{4}[ T]\d{1,2}:\d{2}(:\d{2})?")


def _dressed(distinct: dict[str, None]) -> str | None:
    """The first value dressed as text, when every value is a number but for a percent sign, a currency symbol or
    an accountant's parentheses around a negative (`12%`, `€ 3,50`, `(45.00)`), and one is."""
    values = [v.strip() for v in itertools.islice(distinct, _MOST_VALUES)]
    if not values or not all(_DRESSED.fullmatch(v) for v in values):
        return None
    return next((v for v in values if _DRESS.search(v)), None)


def _dress_of(value: str) -> str:
    """What a dressed number carries, and what it means for the number (`(45.00)` is -45.00)."""
    parts = []
    if "(" in value:
        parts.append(f"in parentheses, an accountant's negative ({value} is -{value.strip('()')})")
    if "%" in value:
        parts.append("with a percent sign (12% is 12, or 0.12 as a fraction)")
    if any(sign in value for sign in "$€£¥"):
        parts.append("with a currency sign")
    if re.search(r"\d,\d{1,2}(?!\d)", value) and "." not in value:
        parts.append("with a decimal comma")
    return " and ".join(parts)


def _date_times(distinct: dict[str, None]) -> str | None:
    """The first value, when every value is a date-time written day or month first (`31.12.2024 23:59`), which
    Spark reads as a timestamp only with the zone's timestamp_format."""
    values = [v.strip() for v in itertools.islice(distinct, _MOST_VALUES)]
    return values[0] if values and all(_DATE_TIME.fullmatch(v) for v in values) else None


def _no_value_words(distinct: dict[str, None]) -> tuple[str, ...]:
    """The words for "no value" of a column that is numbers (in one convention) without them, else ()."""
    words = tuple(v for v in distinct if v.strip().lower() in NO_VALUE_WORDS)
    rest = "\n".join(v for v in distinct if v not in words)
    if not words or not rest:
        return ()
    return words if _numbers_one_way(rest) else ()


@dataclass(frozen=True)
class NumberColumn:
    """A column read as text and turned into numbers written (decimal, thousands)."""

    name: str
    decimal: str
    thousands: str | None
    integral: bool

    def describe(self) -> str:
        grouping = {None: "no", " ": "space", "'": "'", ",": "','", ".": "'.'"}[self.thousands]
        return f"decimal {self.decimal!r}, {grouping} thousands separator"


Said = tuple[tuple[str, str], ...]  # (kind, sentence): what a run tells of the numbers it read
REFUSED = "refused"  # a kind of Said: the run cannot read the column right, and stops
_NUMBER_TYPE = re.compile(r"\s*(tinyint|smallint|int|integer|bigint|long|short|byte|float|double|real|decimal|numeric)\b",
                          re.I)


@dataclass(frozen=True)
class ZoneNumbers:
    """How the zone's numbers are read: per column, and the zone's convention (for pinning)."""

    decimal: str | None = None
    thousands: str | None = None
    columns: tuple[NumberColumn, ...] = ()
    text: tuple[str, ...] = ()  # numeric-looking columns kept as text (leading zeros, ambiguous)
    said: Said = ()


def zone_numbers(samples: list[dict[str, ColumnSample]], pinned_decimal: str | None = None,
                 pinned_thousands: str | None = None, pinned_types: Mapping[str, str] | None = None) -> ZoneNumbers:
    """The zone's reading of numbers from every file's column samples and what rat.yaml pins (`pinned_types`:
    the types `schema:` gives columns, whose leading zeros are the pin's to keep or lose)."""
    pinned_types = pinned_types or {}
    merged: dict[str, ColumnSample] = {}
    for sample in samples:
        for name, column in sample.items():
            seen = merged.get(name)
            merged[name] = column if seen is None else ColumnSample(
                seen.numeric and column.numeric, seen.fits & column.fits,
                tuple(dict.fromkeys(seen.written + column.written))[:_MOST_VALUES],
                seen.leading_zero or column.leading_zero, dates_two_ways=seen.dates_two_ways or column.dates_two_ways,
                dressed=seen.dressed or column.dressed, date_times=seen.date_times or column.date_times,
                formula=seen.formula or column.formula, whole=seen.whole and column.whole,
                long_values=tuple(dict.fromkeys(seen.long_values + column.long_values))[:_MOST_LONG])
    numeric = {n: c for n, c in merged.items() if c.numeric and c.fits}
    decimal = pinned_decimal or _convention(numeric.values())
    # why the zone cannot tell: its columns show no decimal mark, or some files one and others the other (a column
    # written two ways, `12,50` and `7.25`, shows both)
    both_marks = len(_marks(numeric.values())) > 1 or any(c.numeric and not c.fits for c in merged.values())
    marks_shown = "both decimal marks (',' in some, '.' in others)" if both_marks else "no decimal mark"
    the_zone_shows = "the zone's files show" if both_marks else "the zone shows"
    columns, text, said = [], [], []
    for name, column in merged.items():
        if column.numeric and not column.fits:  # `1.500,25` in one file, `1000.75` in another: no one reading
            shown = ", ".join(column.written[:1] + column.written[-1:])
            if _NUMBER_TYPE.match(pinned_types.get(name, "")):  # read as the pin, `1.234,56` would be 1.23
                said.append((REFUSED, f"{name} is pinned to a number type, but its numbers are written in more than "
                                      f"one way ({shown}); fix the files, or pin decimal and thousands in the zone's "
                                      "csv settings"))
                continue
            text.append(name)
            said.append(("kept_as_text", f"{name} kept as text: its numbers are written in more than one way "
                                         f"({shown}); fix the files, or pin decimal and thousands in the zone's csv "
                                         "settings"))
    for name, column in merged.items():
        if name in pinned_types:
            continue
        if column.formula:
            text.append(name)
        if column.dressed:
            said.append(("kept_as_text", f"{name} kept as text: its numbers are written {_dress_of(column.dressed)}, "
                                         f"which Spark does not read ({column.dressed}); read them in the pipeline "
                                         "(regexp_replace, then CAST), or pin the column (schema: "
                                         f"{{{name}: string}}) to keep it as text without this note"))
        if column.date_times:
            separator = _DATE_TIME.fullmatch(column.date_times).group(1)  # type: ignore[union-attr]
            seconds = ":ss" if column.date_times.count(":") == 2 else ""
            said.append(("kept_as_text", f"{name} kept as text: its date-times ({column.date_times}) are read as "
                                         "timestamps only with the zone's timestamp_format: set it in rat.yaml (csv: "
                                         f"timestamp_format: 'dd{separator}MM{separator}yyyy HH:mm{seconds}', or "
                                         "MM first if the month comes first)"))
    for name, column in merged.items():
        if column.dates_two_ways:
            said.append(("kept_as_text", f"{name} kept as text: its dates are written in more than one way "
                                         f"({', '.join(column.dates_two_ways)}); fix the files, or read each way "
                                         "in the pipeline (to_date with each pattern, in coalesce)"))
    for name, column in numeric.items():
        if column.leading_zero is not None and name not in pinned_types:
            text.append(name)
            said.append(("kept_as_text", f"{name} kept as text: {column.leading_zero!r} has a leading zero "
                                         "(an identifier, which a number would lose)"))
            continue
        if not column.written:
            continue  # whole numbers only: Spark reads them
        fits = [c for c in CONVENTIONS if c in column.fits and (pinned_decimal is None or c[0] == pinned_decimal)
                and (pinned_thousands is None or c[1] in (None, pinned_thousands))]
        if not fits and (pinned_decimal or pinned_thousands):
            # no reading the pin allows: left to Spark, `1.500` beside another file's `10.50` read as 1.5, green
            pin = re.compile(_pattern(pinned_decimal or ".", pinned_thousands))
            misfit = next((v for v in column.written if not pin.fullmatch(v.strip())), column.written[0])
            marks = " and ".join(f"{what} {mark!r}" for what, mark in (("decimal", pinned_decimal),
                                                                       ("thousands", pinned_thousands)) if mark)
            said.append((REFUSED, f"{name}: {misfit} is not a number written with the {marks} the zone's csv settings "
                                  "pin; fix the file, or the settings"))
            continue
        meanings = _meanings(fits, column.written)
        if len(meanings) > 1 and decimal is not None:
            meanings = _meanings([c for c in fits if c[0] == decimal], column.written)
        if len(meanings) != 1:
            shown = ", ".join(column.written[:2])
            if fits and _NUMBER_TYPE.match(pinned_types.get(name, "")):  # the pin would read 1.500 as 1.5
                said.append((REFUSED, f"{name} is pinned to a number type, but {shown} may be thousands or decimals, "
                                      f"and the files show {marks_shown}; pin decimal and thousands in the zone's "
                                      "csv settings too"))
            elif fits:
                text.append(name)
                said.append(("kept_as_text", f"{name} kept as text: {shown} may be thousands or decimals, and "
                                             f"{the_zone_shows} {marks_shown}; pin decimal and thousands in the zone's "
                                             "csv settings"))
            continue
        convention, values = next(iter(meanings.items()))
        if convention == (".", None):
            continue  # Spark's own reading
        integral = all("." not in v for v in values)
        columns.append(NumberColumn(name, convention[0], convention[1], integral))
        if convention[1] is not None and any(_SEPARATORS.intersection(v.replace(convention[0], ""))
                                             for v in column.written):
            example = next(v for v in column.written if convention[1] in v or convention[1] == " ")
            said.append(("number_format", f"{name}: {example} read as {canonical(example, *convention)} "
                                          f"({NumberColumn(name, *convention, integral).describe()})"))
    for name, column in numeric.items():
        if name in text or name in pinned_types or column.whole or not column.long_values:
            continue
        number = next((c for c in columns if c.name == name), None)
        if number is not None and number.integral:
            continue  # whole numbers, thousands grouped: bigint
        inexact = _inexact_as_double(column, number)
        if inexact is not None:
            text.append(name)
            columns = [c for c in columns if c.name != name]
            said.append(("kept_as_text", f"{name} kept as text: {inexact} has more digits than a double holds exactly "
                                         f"(it would read as {_as_double(canonical_in(inexact, number))}); pin "
                                         "the column to a decimal wide enough for its values (schema: {"
                                         f"{name}: '{_decimal_for(column, number)}'}}) to read them as numbers"))
    thousands = pinned_thousands or next((c.thousands for c in columns if c.thousands), None)
    return ZoneNumbers(decimal, thousands, tuple(columns), tuple(text), tuple(said))


def pin_advised(text: str, column: str) -> str | None:
    """The type a note on `column` kept as text advises pinning it to (`decimal(19,2)`: the sentence above), None
    when the note advises no type."""
    found = re.search(rf"\b{re.escape(column)} kept as text: .*\(schema: \{{{re.escape(column)}: '([^']+)'\}}\)", text)
    return found.group(1) if found else None


def canonical_in(value: str, number: NumberColumn | None) -> str:
    """`value` of a column the zone writes as `number` says (Spark's own way when None), as `canonical` gives it."""
    return canonical(value, number.decimal, number.thousands) if number is not None else value.strip()


def _inexact_as_double(column: ColumnSample, number: NumberColumn | None) -> str | None:
    """The first of the column's long values a double does not hold exactly, as written."""
    for value in column.long_values:
        with contextlib.suppress(InvalidOperation, ValueError):
            exact = canonical_in(value, number)
            if Decimal(exact) != Decimal(repr(float(exact))):
                return value
    return None


def _as_double(exact: str) -> str:
    shown = format(Decimal(repr(float(exact))), "f")
    return shown.removesuffix(".0")


def _decimal_for(column: ColumnSample, number: NumberColumn | None) -> str:
    """decimal(p,s) holding every value the sample kept of the column (its long ones and those with a mark)."""
    whole_digits, scale = 1, 0
    for value in column.long_values + column.written:
        with contextlib.suppress(InvalidOperation, ValueError):
            exact = Decimal(canonical_in(value, number))
            digits, exponent = exact.as_tuple().digits, int(exact.as_tuple().exponent)
            scale = max(scale, -exponent)
            whole_digits = max(whole_digits, len(digits) + exponent)
    return f"decimal({min(whole_digits + scale, 38)},{min(scale, 38)})"


def _marks(columns) -> set[str]:
    """The decimal marks the zone's values show (`12,50`, `1.234,5`: ",")."""
    marks = set()
    for column in columns:
        decimals = {c[0] for c in column.fits}
        if len(decimals) == 1 and column.written:
            marks |= decimals
    return marks


def _convention(columns) -> str | None:
    """The decimal mark the zone's values show, None when none or both."""
    marks = _marks(columns)
    return next(iter(marks)) if len(marks) == 1 else None


def _meanings(fits: list, written: tuple[str, ...]) -> dict:
    """The conventions of `fits` that read the values differently: one per distinct reading (the first)."""
    readings: dict[tuple, tuple] = {}
    for convention in fits:
        try:
            values = tuple(canonical(v, *convention) for v in written)
            key = tuple(Decimal(v) for v in values)
        except InvalidOperation:
            continue
        readings.setdefault(key, (convention, values))
    # Spark's own reading first, when it is one of them
    ordered = sorted(readings.values(), key=lambda cv: cv[0] != (".", None))
    return dict(ordered)


def in_zone(dialects: dict, decimal: str | None, thousands: str | None,
            pinned_types: Mapping[str, str] | None = None) -> tuple[dict, Said]:
    """Each file's dialect (dialect.Dialect, by path) with the numbers of the files it is read among, and what
    the run tells of them ((kind, sentence) pairs). Files of one delimiter decide their numbers together; files
    of another delimiter come from another writer and decide theirs apart (a comma-separated export's `1.500`
    is no 1500 because a `;` export beside it writes `12,50`), unless rat.yaml pins the zone's convention."""
    families: dict[str, dict] = {}
    for path, dialect in dialects.items():
        families.setdefault(dialect.delimiter if decimal is None else "", {})[path] = dialect
    out: dict = {}
    said: list[tuple[str, str]] = []
    for family in families.values():
        numbers = zone_numbers([d.samples for d in family.values() if d.samples], decimal, thousands, pinned_types)
        out.update((path, d.with_numbers(numbers)) for path, d in family.items())
        files = ", ".join(sorted(path.name for path in family)) + ": " if len(families) > 1 else ""
        said.extend((kind, files + text) for kind, text in numbers.said)
    return out, tuple(said)


# -- Spark ---------------------------------------------------------------------------------------------
NUMBER_MISFIT = "rat: a number written unlike its column's others: "
LEADING_ZERO = "rat: a number with a leading zero: "
ROUNDED = "rat: a number with more decimal places than its pinned type: "
LEADING_ZERO_PATTERN = "^[ \\t]*[+-]?0[0-9]"  # as _LEADING_ZEROS: `01`, `-007`; not `0`, `0.5`


def typed(schema: "StructType", numbers: tuple[NumberColumn, ...], text: tuple[str, ...]) -> "StructType":
    """The sampled schema with the zone's number columns typed, and identifier columns as text."""
    from pyspark.sql.types import DoubleType, LongType, NumericType, StringType, StructField, StructType

    by_name = {c.name: c for c in numbers}
    fields = []
    for f in schema.fields:
        if f.name in text and isinstance(f.dataType, NumericType):
            f = StructField(f.name, StringType(), True)
        elif f.name in by_name:
            f = StructField(f.name, LongType() if by_name[f.name].integral else DoubleType(), True)
        fields.append(f)
    return StructType(fields)


def as_read(schema: "StructType", numbers: tuple[NumberColumn, ...], pinned: frozenset[str] | None) -> "StructType":
    """What Spark reads: the zone's number columns as text, turned into numbers by `converted`; with `pinned`
    (the columns the zone pins to a type, read as that type but for decimals, which Spark's parser rounds)
    every other number column too."""
    from pyspark.sql.types import StringType, StructField, StructType

    return StructType([StructField(f.name, StringType(), True) if _read_as_text(f, numbers, pinned) else f
                       for f in schema.fields])


def _read_as_text(field, numbers: tuple[NumberColumn, ...], pinned: frozenset[str] | None) -> bool:
    from pyspark.sql.types import DecimalType, NumericType

    if not isinstance(field.dataType, NumericType):
        return False
    return (any(c.name == field.name for c in numbers) or pinned is not None
            and (field.name not in pinned or isinstance(field.dataType, DecimalType)))


def _exactly(value: "Column", text: "Column", wanted: "DecimalType", refusal: "Column") -> "Column":
    """`value` (`text` cast to the decimal `wanted`), failing the read where the cast rounded: Spark stores
    `10.005` in a decimal(18,2) as 10.01. Compared with the text cast to a decimal of as many whole digits and
    every place left, which holds any value `value` holds."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import DecimalType

    wide = DecimalType(38, 38 - (wanted.precision - wanted.scale))
    return F.when(value.isNotNull() & (value != text.cast(wide)), refusal).otherwise(value)


def leading_zero(raw: "Column") -> "Column":
    """`01`, `-007`, ` 08` (not `0`, `0.5`): the first character decides for nearly every value, so the
    pattern runs only on values that start with a sign or a space (a regex a value cost 1.6x a load)."""
    from pyspark.sql import functions as F

    first = F.substring(raw, 1, 1)
    return (F.when(first == "0", F.substring(raw, 2, 1).between("0", "9"))
            .when(first.isin("+", "-", " ", "\t"), raw.rlike(LEADING_ZERO_PATTERN)).otherwise(F.lit(False)))


def plain_number(raw: "Column", column: NumberColumn) -> "Column":
    """A value written as the column writes its numbers (`1.234,5`), as Spark's casts read numbers (`1234.5`)."""
    from pyspark.sql import functions as F

    grouping = "[ \u00a0\u202f]" if column.thousands == " " else re.escape(column.thousands or "")
    text = F.regexp_replace(raw, grouping, "") if column.thousands else raw
    return F.translate(text, column.decimal, ".") if column.decimal != "." else text


def converted(df: "DataFrame", schema: "StructType", numbers: tuple[NumberColumn, ...],
              pinned: frozenset[str] | None) -> "DataFrame":
    """The columns `as_read` read as text, as `schema` types them. A value written otherwise fails the read
    (never NULL), and so does one with a leading zero: the sample that typed the column had none (`01234`
    past it, a ZIP code as 1234); widening.py then keeps the column as text. The message names the column
    and value, not the file: input_file_name() in every number column's plan made each scan track its file."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import DecimalType

    by_name = {c.name: c for c in numbers}
    for field in schema.fields:
        wanted = field.dataType
        if not _read_as_text(field, numbers, pinned):
            continue
        raw = F.col(f"`{field.name}`")
        what = F.concat(F.lit(field.name + " "), raw)
        column = by_name.get(field.name)
        misfit = F.raise_error(F.concat(F.lit(NUMBER_MISFIT), what)).cast(wanted)
        zero = F.raise_error(F.concat(F.lit(LEADING_ZERO), what)).cast(wanted)
        blank = raw.isNull() | (F.trim(raw) == "")
        if column is None:  # cast once, and look further only at what did not cast
            number = F.expr(f"try_cast(`{field.name}` AS {wanted.simpleString()})")
            text = raw
            value = (F.when(number.isNotNull(), F.when(leading_zero(raw), zero).otherwise(number))
                     .when(blank, F.lit(None).cast(wanted)).otherwise(misfit))
        else:
            text = plain_number(raw, column)
            fits = raw.rlike("^" + _pattern(column.decimal, column.thousands, "java") + "$")
            value = (F.when(blank, F.lit(None).cast(wanted)).when(leading_zero(raw), zero)
                     .when(fits, text.cast(wanted)).otherwise(misfit))
        if isinstance(wanted, DecimalType):  # a pinned one refuses; a sampled one (whole numbers) is widened
            marker = ROUNDED if pinned is not None and field.name in pinned else NUMBER_MISFIT
            value = _exactly(value, text, wanted, F.raise_error(F.concat(F.lit(marker), what)).cast(wanted))
        df = df.withColumn(field.name, value)
    return df
