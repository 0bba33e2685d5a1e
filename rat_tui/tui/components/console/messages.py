"""Messages the console's thread workers post to its panel (small, and nothing but data)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message


@dataclass
class BuffersLoaded(Message):
    texts: list[str]
    active: int
    catalog: dict[str, list[tuple[str, str]]]


@dataclass
class SparkWaiting(Message):
    """The statement waits for the Spark session to start; it runs when the session is ready."""


@dataclass
class StatementDone(Message):
    group: str
    result: Any  # core.commands.console.ConsoleResult


@dataclass
class StatementEnded(Message):
    """A statement, export or profile ended without a result to show: `sentence` says how."""

    group: str
    sentence: str
    ok: bool = False
    cancelled: bool = False


@dataclass
class ExportProgress(Message):
    phase: str
    done: int
    total: int


@dataclass
class HistoryLoaded(Message):
    entries: list  # core.store.console_store.HistoryEntry, newest first


@dataclass
class ProfileDone(Message):
    profile: Any  # core.commands.console.ColumnProfile
