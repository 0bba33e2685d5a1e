"""Times and ranges a command's parser checks before anything runs: a bad value is misuse, one sentence naming
the option and the value (a shell command exits 2 with it; in a script its line fails with it). Light: an
attached shell client checks them without the cron and zone libraries."""
from __future__ import annotations

import argparse

from ..core.project.partitions import parse_moment

MOMENT_EXAMPLE = "2024-01-01 or 2024-01-01T06:00:00Z"


def clock_time(text: str) -> float:
    """`--at`: an ISO 8601 date or time (UTC without a zone) as seconds since the epoch."""
    moment = parse_moment(text)
    if moment is None:
        raise argparse.ArgumentTypeError(f"'{text}' is not an ISO 8601 time such as 2025-10-26T06:00:00Z")
    return moment.timestamp()


def moment_text(text: str) -> str:
    """`--start`, `--end`: a date or a time, kept as written (the command layer reads it again)."""
    if parse_moment(text) is None:
        raise argparse.ArgumentTypeError(f"'{text}' is not a date or time like {MOMENT_EXAMPLE}")
    return text


def start_before_end(parsed: argparse.Namespace) -> str | None:
    """Why [--start, --end) holds nothing, when both are given and the start is not before the end."""
    if parsed.start is None or parsed.end is None:
        return None
    start, end = parse_moment(parsed.start), parse_moment(parsed.end)
    if start is not None and end is not None and start >= end:
        return f"--start {parsed.start} is not before --end {parsed.end} (the end is exclusive)"
    return None
