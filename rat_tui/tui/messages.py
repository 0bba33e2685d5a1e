"""Messages that workers, core threads and panels post to the app (Textual's post_message is thread-safe).

An outcome is a sentence (logged, and toasted unless `toast` is off); what else it changes is said by
typed fields — `reload` the tree and the detail, `job` the number of the job (`jobs.py`) whose callbacks
the app then runs on its own thread — never by a string the app switches on, nor by code in a message."""
from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from ..core.events import Event


@dataclass
class CoreEvent(Message):
    """An event from the project's one stream (`Workbench.events`: runs, the Spark session, the long-running
    services' notices), posted from the publisher's thread; the app dispatches it by type (reactions.py)."""

    event: Event


@dataclass
class ActionDone(Message):
    action: str  # the toast's title
    summary: str  # "" says nothing
    toast: bool = True
    reload: bool = False  # the tree and the detail panel show what it changed
    job: int = 0  # the job it ends (0: none), settled once the outcome is shown


@dataclass
class ActionFailed(Message):
    action: str
    error: str
    job: int = 0


@dataclass
class UploadProgress(Message):
    name: str
    copied: int
    total: int
