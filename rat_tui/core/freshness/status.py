"""A table's freshness at a moment, as a pure function of its policy and the time its data is from."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from ..errors import RatError
from ..project.freshness_config import FreshnessPolicy
from ..store.intervals import iso
from ..text import age_label

STATUSES = ("fresh", "warn", "error", "never")
# How late each status is, for sorting a project's tables (the latest first)
LATENESS = {"error": 3, "warn": 2, "never": 1, "fresh": 0}


@dataclass(frozen=True)
class Freshness:
    pipeline: str
    last_success_at: datetime | None  # the commit on main of its last successful run
    newest_value: datetime | None  # max(freshness.column) on main, when a column is configured
    age_s: float | None  # at the moment asked: since newest_value if a column is configured, else since last_success_at
    status: str  # fresh | warn | error | never
    warn_after: str | None
    error_after: str | None


def utc(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts, timezone.utc)


def duration_label(seconds: float | None) -> str | None:
    """`6h`, `1d`, `90s`: the largest unit that divides it."""
    if seconds is None:
        return None
    for unit, size in (("w", 604800), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"


def status_of(policy: FreshnessPolicy, since: float | None, at: float) -> tuple[float | None, str]:
    """(age in seconds, status) of data from `since` (None: never), asked at `at`."""
    if since is None:
        return None, "never"
    age = at - since
    if policy.error_after_s is not None and age >= policy.error_after_s:
        return age, "error"
    if policy.warn_after_s is not None and age >= policy.warn_after_s:
        return age, "warn"
    return age, "fresh"


def before_its_data(found: Freshness, at: float) -> RatError:
    """`--at` earlier than the data it judges: the runs and tables are read as they are now, so the age would be
    negative; the question is asked wrong, and no status answers it."""
    since = found.newest_value if found.newest_value is not None else found.last_success_at
    assert since is not None and found.age_s is not None
    return RatError(f"--at {iso(utc(at))} is {age_label(-found.age_s)} before the data of {found.pipeline} "
                    f"({'its newest value' if found.newest_value is not None else 'its last success'}, "
                    f"{iso(since)}): the tables are read as they are now, so ask --at a time after it")


def warn_moment(policy: FreshnessPolicy, since: float | None) -> float | None:
    """When data from `since` turns warn (error when no warn_after is set): a `stale` trigger's tick."""
    after = policy.warn_after_s if policy.warn_after_s is not None else policy.error_after_s
    return None if since is None or after is None else since + after


def judged(pipeline: str, policy: FreshnessPolicy, last_success: float | None, newest: float | None,
           at: float) -> Freshness:
    since = newest if policy.column else last_success
    age, status = status_of(policy, since, at)
    return Freshness(pipeline, utc(last_success), utc(newest), age, status, duration_label(policy.warn_after_s),
                     duration_label(policy.error_after_s))


def by_lateness(found: list[Freshness]) -> list[Freshness]:
    """The latest first: error, warn, never, fresh; the oldest first within each."""
    return sorted(found, key=lambda f: (-LATENESS[f.status], -(f.age_s or 0.0), f.pipeline))
