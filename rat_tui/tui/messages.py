"""Small messages that workers and core threads post to the app (Textual's post_message is thread-safe)."""
from __future__ import annotations

from typing import Any

from textual.message import Message

from ..core.events import Event
from ..core.project.watch import Change


class CoreEvent(Message):
    """An event from the core's stream (runs, the Spark session)."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


class FilesChanged(Message):
    def __init__(self, changes: list[Change]) -> None:
        super().__init__()
        self.changes = changes


class ActionFailed(Message):
    def __init__(self, action: str, error: str) -> None:
        super().__init__()
        self.action, self.error = action, error


class ActionDone(Message):
    def __init__(self, action: str, summary: str, result: Any = None) -> None:
        super().__init__()
        self.action, self.summary, self.result = action, summary, result


class UploadProgress(Message):
    def __init__(self, name: str, copied: int, total: int) -> None:
        super().__init__()
        self.name, self.copied, self.total = name, copied, total
