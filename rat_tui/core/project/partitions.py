"""`partitions:` in a pipeline's config.yaml: the time column, its grain, where the data starts and how many
done intervals a normal run redoes (`lookback`). Intervals are half-open, `[start, end)`, in UTC."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Any

GRAINS = ("day", "hour", "month")
KEYS = ("column", "grain", "start", "lookback")
# What the graph, the lineage and validate render `{{ interval_start }}` as: any one interval will do.
PLACEHOLDER_INTERVAL = {"interval_start": "2000-01-01", "interval_end": "2000-01-02"}


@dataclass(frozen=True)
class Interval:
    start: datetime
    end: datetime
    grain: str

    def text(self, moment: datetime) -> str:
        """As the pipeline's SQL sees it: a date for day and month grains, a timestamp for hours."""
        return moment.strftime("%Y-%m-%d %H:%M:%S" if self.grain == "hour" else "%Y-%m-%d")

    @property
    def start_text(self) -> str:
        return self.text(self.start)

    @property
    def end_text(self) -> str:
        return self.text(self.end)

    def label(self) -> str:
        return f"[{self.start_text}, {self.end_text})"


@dataclass(frozen=True)
class Partitions:
    column: str
    grain: str
    start: datetime
    lookback: int = 0
    # Where `partitions.column` is set (config.yaml and its line), for the sentence when the result lacks it
    column_path: str = field(default="", compare=False)
    column_line: int | None = field(default=None, compare=False)

    def missing_column(self, source_relpath: str, columns: list[str]) -> str | None:
        """Why `column` cannot cut the result of `source_relpath` into intervals; None when the result has it."""
        if self.column.lower() in {c.lower() for c in columns}:
            return None
        return (f"partitions.column '{self.column}' is not a column of {source_relpath}'s result "
                f"(it makes {', '.join(columns)})")

    def floor(self, moment: datetime) -> datetime:
        """The start of the interval holding `moment`."""
        moment = moment.astimezone(timezone.utc) if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
        if self.grain == "hour":
            return moment.replace(minute=0, second=0, microsecond=0)
        if self.grain == "day":
            return moment.replace(hour=0, minute=0, second=0, microsecond=0)
        return moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0)

    def step(self, moment: datetime, count: int = 1) -> datetime:
        """`count` intervals later (earlier when negative), from an interval's start."""
        if self.grain == "hour":
            return moment + timedelta(hours=count)
        if self.grain == "day":
            return moment + timedelta(days=count)
        months = moment.year * 12 + moment.month - 1 + count
        return moment.replace(year=months // 12, month=months % 12 + 1)

    def interval_at(self, start: datetime) -> Interval:
        """The interval that starts at `start`."""
        return Interval(start, self.step(start), self.grain)

    def intervals(self, start: datetime | None, end: datetime) -> list[Interval]:
        """Every whole interval from `start` (at the earliest the configured start) up to `end` (exclusive)."""
        at = self.floor(max(start, self.start) if start is not None else self.start)
        out = []
        while (interval := self.interval_at(at)).end <= end:
            out.append(interval)
            at = interval.end
        return out

    def as_dict(self) -> dict[str, Any]:
        return {"column": self.column, "grain": self.grain, "start": self.interval_at(self.start).start_text,
                "lookback": self.lookback}


def parse_moment(value: Any) -> datetime | None:
    """A date or a timestamp (YAML may hand either over already parsed), as UTC; None if it is neither."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    else:
        text = str(value).strip().replace("Z", "+00:00")
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            return None
    return moment.astimezone(timezone.utc) if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def parse_partitions(value: Any) -> tuple[Partitions | None, list[tuple[str | None, str]]]:
    """The typed setting, or one sentence per bad value, each with the key it is about (None: the section)."""
    if not isinstance(value, dict):
        return None, [(None, "partitions must be a mapping like {column: order_date, grain: day, start: 2024-01-01}, "
                             f"not '{value}'")]
    errors: list[tuple[str | None, str]] = [
        (str(key), f"partitions has an unknown key '{key}' (known: {', '.join(KEYS)})") for key in value
        if key not in KEYS]
    column = value.get("column")
    if not isinstance(column, str) or not column.strip():
        errors.append(("column" if "column" in value else None,
                       "partitions needs a column: the date or timestamp column the intervals cut"))
    grain = str(value.get("grain", "day")).strip().lower()
    if grain not in GRAINS:
        errors.append(("grain", f"partitions grain must be one of {', '.join(GRAINS)}, not '{value.get('grain')}'"))
    start = parse_moment(value["start"]) if value.get("start") is not None else None
    if start is None:
        errors.append(("start", f"partitions start must be a date like 2024-01-01, not '{value.get('start')}'")
                      if "start" in value else
                      (None, "partitions needs a start: the first interval's date, like 2024-01-01"))
    lookback = value.get("lookback", 0)
    if isinstance(lookback, bool) or not isinstance(lookback, int) or lookback < 0:
        errors.append(("lookback",
                       f"partitions lookback must be a whole number of intervals, 0 or more, not '{lookback}'"))
    if errors:
        return None, errors
    assert isinstance(column, str) and start is not None
    return Partitions(column.strip(), grain, Partitions(column, grain, start).floor(start), lookback), []
