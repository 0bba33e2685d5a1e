"""Messages that workers, core threads and panels post to the app (Textual's post_message is thread-safe).

An outcome is a sentence (logged, and toasted unless `toast` is off); what else it changes is said by
typed fields — `reload` the tree and the detail, `then` a callback the app runs on its own thread — never
by a string the app switches on."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.message import Message

from ..core.events import Event


@dataclass
class CoreEvent(Message):
    """An event from the core's stream (runs, the Spark session)."""

    event: Event


@dataclass
class WatchNotice(Message):
    """A notice of the core's watcher service (`core/background/watching.py`)."""

    notice: Event


@dataclass
class ActionDone(Message):
    action: str  # the toast's title
    summary: str  # "" says nothing
    toast: bool = True
    reload: bool = False  # the tree and the detail panel show what it changed
    then: Callable[[], None] | None = None


@dataclass
class ActionFailed(Message):
    action: str
    error: str
    then: Callable[[], None] | None = None


@dataclass
class UploadProgress(Message):
    name: str
    copied: int
    total: int
