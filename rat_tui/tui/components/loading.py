"""What the panels share about loading what they show in their own thread workers."""
from __future__ import annotations

from collections.abc import Callable

from textual.app import App
from textual.message import Message
from textual.widget import Widget
from textual.worker import get_current_worker

from ...core.errors import RatError
from ..messages import ActionFailed


def app_closing(app: App) -> bool:
    """The app stops running as its shutdown begins: from then on Textual prunes the panels while
    messages and workers may still arrive, and what they would fill is dropped."""
    return not app.is_running


def post_loaded(view: Widget, what: str, load: Callable[[], Message]) -> None:
    """In a panel's loader thread: post the message `load` builds to the panel, or the failure's sentence
    (`what` failed) to the app; nothing when a newer load of the panel replaced this one."""
    try:
        message = load()
    except RatError as exc:
        view.post_message(ActionFailed(what, exc.sentence()))
        return
    if not get_current_worker().is_cancelled:
        view.post_message(message)
