"""An error in a handler, key or worker is a bug: its traceback goes to app.log, the screen says it once,
and the app stays open (Textual would close it)."""
from __future__ import annotations

import time

from textual.app import App
from textual.message_pump import active_message_pump
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import WorkerFailed

from ..core.failures import failure_sentence

REPEAT_SECONDS = 10  # the same error again within this long is logged, not shown again


class InternalErrors:
    def __init__(self, app: App) -> None:
        self.app = app
        self._shown: dict[str, float] = {}

    def report(self, exc: BaseException, where: str) -> None:
        """Log `exc` with its traceback and show one notice (not again for a repeat soon after)."""
        if isinstance(exc, WorkerFailed):
            exc = exc.error
        sentence = failure_sentence(where, exc)  # logs the traceback
        now = time.monotonic()
        if now - self._shown.get(sentence, -REPEAT_SECONDS) >= REPEAT_SECONDS:
            self._shown[sentence] = now
            self.app.notify(sentence, title=f"{where} failed", severity="error", timeout=10, markup=False)

    @property
    def app_runs(self) -> bool:
        """Started and not closing: an error at start-up still closes the app, as one while it closes would."""
        return self.app.is_running and bool(self.app.screen_stack)

    def survivable(self, exc: BaseException) -> bool:
        """An error Textual hands the app: a worker's, or one that ended a widget's message loop (not a
        screen's: that one would leave nothing to press keys in)."""
        pump = active_message_pump.get(None)
        return self.app_runs and (isinstance(exc, WorkerFailed) or (isinstance(pump, Widget)
                                                                   and not isinstance(pump, Screen)))

    @staticmethod
    def failed_widget() -> Widget | None:
        pump = active_message_pump.get(None)
        return pump if isinstance(pump, Widget) and not isinstance(pump, Screen) else None
