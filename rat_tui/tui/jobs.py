"""Commands the keys start, off the UI thread: each reports its outcome as one sentence (`ActionDone`,
`ActionFailed`), and hands its result to a typed callback when a panel shows it.

The callbacks stay here, under the job's number, which the outcome message carries: the app settles the
job once it has shown the outcome, on its own thread, so a message is data, never code."""
from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from textual.app import App

from ..core.failures import failure_sentence
from .messages import ActionDone, ActionFailed

T = TypeVar("T")
Summary = str | Callable[[Any], str]


class Jobs:
    def __init__(self, app: App) -> None:
        self.app = app
        self._numbers = itertools.count(1)
        self._after: dict[int, Callable[[], None]] = {}
        self._lock = threading.Lock()

    def run(self, action: str, call: Callable[[], T], done: Summary = "", *, toast: bool = True,
            reload: bool = False, then: Callable[[T], None] | None = None,
            ended: Callable[[], None] | None = None) -> None:
        """`call` in a thread worker; `done` is the sentence (or makes it from the result), `then` gets the
        result on the UI thread, `ended` runs there after success or failure alike."""
        self.app.run_worker(partial(self._work, action, call, done, toast, reload, then, ended), thread=True,
                            group="actions")

    def settle(self, job: int) -> None:
        """On the UI thread, once the job's outcome is shown: what was to run after it (nothing for job 0)."""
        with self._lock:
            after = self._after.pop(job, None)
        if after is not None:
            after()

    def _keep(self, after: Callable[[], None] | None) -> int:
        if after is None:
            return 0
        with self._lock:
            job = next(self._numbers)
            self._after[job] = after
        return job

    def _work(self, action: str, call: Callable[[], T], done: Summary, toast: bool, reload: bool,
              then: Callable[[T], None] | None, ended: Callable[[], None] | None) -> None:
        try:
            result = call()
            summary = done(result) if callable(done) else done
        except Exception as exc:
            self.app.post_message(ActionFailed(action, failure_sentence(action, exc), job=self._keep(ended)))
            return

        def after() -> None:
            if then is not None:
                then(result)
            if ended is not None:
                ended()

        self.app.post_message(ActionDone(action, summary, toast, reload,
                                         job=self._keep(after if then or ended else None)))
