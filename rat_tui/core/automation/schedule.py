"""The project's `schedule:` (rat.yaml) as one value, and the times the automation speaks in.

Times are kept as UTC seconds since the epoch; cron times are read in the schedule's zone (zoneinfo and
tzdata), and every time a face shows is ISO 8601 in UTC with `Z`, or local with its offset.
"""
from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from cronsim import CronSim

from ..project.settings import Settings

# Cron times older than this are missed (nothing evaluated them in time), not due: `serve` evaluates every
# few seconds, so a time it sees within a minute of it is on time.
ON_TIME_SECONDS = 60.0
# Missed times recorded one by one; older ones of the same evaluation share one record that counts them.
RECORD_LIMIT = 500


@dataclass(frozen=True)
class Schedule:
    zone: ZoneInfo
    catch_up: str = "latest"
    max_catch_up: int = 24
    overlap: str = "queue_one"

    @classmethod
    def of(cls, settings: Settings) -> "Schedule":
        zone = ZoneInfo(settings.schedule_timezone) if settings.schedule_timezone else machine_zone()
        return cls(zone, settings.schedule_catch_up, settings.schedule_max_catch_up, settings.schedule_overlap)


def machine_zone() -> ZoneInfo:
    """The machine's zone by name (`TZ`, else /etc/localtime's target), so DST is known; UTC if neither says."""
    names = [os.environ.get("TZ", "").lstrip(":")]
    try:
        names.append(str(Path("/etc/localtime").resolve()).split("zoneinfo/", 1)[1])
    except (OSError, IndexError):
        pass
    for name in names:
        if name:
            try:
                return ZoneInfo(name)
            except (ZoneInfoNotFoundError, ValueError):
                continue
    return ZoneInfo("UTC")


def iso_z(ts: float | None) -> str | None:
    if ts is None:
        return None
    text = datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="seconds" if ts == int(ts) else "milliseconds")
    return text.replace("+00:00", "Z")


def local_text(ts: float | None, zone: ZoneInfo) -> str | None:
    return None if ts is None else datetime.fromtimestamp(ts, zone).isoformat(timespec="seconds")


def duration_text(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"


@dataclass(frozen=True)
class CronWindow:
    """The cron times in (after, until]: the newest `RECORD_LIMIT` of them, and how many older ones there were."""

    times: tuple[float, ...]
    older: int = 0
    oldest: float | None = None


def cron_window(expr: str, zone: ZoneInfo, after: float, until: float) -> CronWindow:
    """Times in UTC; a local time repeated by the autumn's change comes once (cronsim), a time in the spring's
    missing hour comes at the next existing time. cronsim may give, in the repeated hour, a time that is before
    `after` in UTC: it is not in the window."""
    if _first_after(expr, zone.key, after) > until:  # most evaluations: nothing due, and no cronsim to build
        return CronWindow(())
    kept: deque[float] = deque(maxlen=RECORD_LIMIT)
    older, oldest = 0, None
    for moment in CronSim(expr, datetime.fromtimestamp(after, zone)):
        ts = moment.timestamp()
        if ts <= after:
            continue
        if ts > until:
            break
        if len(kept) == RECORD_LIMIT:
            older += 1
            oldest = kept[0] if oldest is None else oldest
        kept.append(ts)
    return CronWindow(tuple(kept), older, oldest)


@lru_cache(maxsize=8192)
def _first_after(expr: str, zone: str, after: float) -> float:
    """The first time after `after`: the same as long as no tick was decided (`after` is a trigger's cursor)."""
    return next_cron(expr, ZoneInfo(zone), after)


def next_cron(expr: str, zone: ZoneInfo, after: float) -> float:
    for moment in CronSim(expr, datetime.fromtimestamp(after, zone)):
        if moment.timestamp() > after:
            return moment.timestamp()
    raise AssertionError("cronsim ends only on a bad expression, which parsing refused")
