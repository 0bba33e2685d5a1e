"""One scheduler per project: whoever evaluates the triggers holds `.rat/locks/scheduler.lock`.

`serve` holds it for as long as it runs; the TUI takes it for each evaluation and lets go, so a `serve`
started later gets it, and the TUI then only shows what serve does. Ticks are claimed in state.db either
way, so even two schedulers never run a tick twice; the lock keeps the work (and the log) in one place.
"""
from __future__ import annotations

import logging
import os
import socket
import threading
import time
from pathlib import Path

from ..errors import RatError
from ..store.locks import hold_now, is_free, lock_holder
from .evaluate import Decision
from .service import Automation

log = logging.getLogger(__name__)

LOCK = "scheduler"
INTERVAL_SECONDS = 2.0  # how often `serve` (and a TUI without one) evaluates


def other_scheduler(state_dir: Path) -> str | None:
    """Who runs the project's triggers in another process (e.g. `rat-tui serve (pid 12 on host)`), or None."""
    deadline = time.monotonic() + 1
    while not is_free(state_dir, LOCK):
        # empty: its holder locked a new file and has not written its name yet (microseconds)
        if (holder := lock_holder(state_dir, LOCK)) or time.monotonic() > deadline:
            return None if f"(pid {os.getpid()} " in holder else holder or "another process"
        time.sleep(0.01)
    return None


class Scheduler:
    def __init__(self, automation: Automation, state_dir: Path, who: str):
        self.automation, self.state_dir = automation, state_dir
        self.who = f"{who} (pid {os.getpid()} on {socket.gethostname()})"
        self._fd: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def hold(self) -> None:
        """Hold the lock until `stop` (serve); RatError naming the holder when another scheduler has it."""
        deadline = time.monotonic() + 5  # a TUI holds it only for the moment of an evaluation
        while (fd := hold_now(self.state_dir, LOCK, self.who)) is None:
            if time.monotonic() > deadline:
                raise RatError(f"another scheduler runs this project's triggers: {self.held_by() or 'unknown'}")
            time.sleep(0.1)
        self._fd = fd

    def held_by(self) -> str | None:
        """Who else holds the lock now (None: no one, or this scheduler)."""
        return None if self._fd is not None else other_scheduler(self.state_dir)

    def evaluate_once(self, now: float | None = None) -> list[Decision] | None:
        """Evaluate and start what is due; None when another scheduler holds the project."""
        fd = self._fd if self._fd is not None else hold_now(self.state_dir, LOCK, self.who)
        if fd is None:
            return None
        try:
            return [decision for decision, _ in self.automation.evaluate_and_start(now)]
        finally:
            if fd != self._fd:
                os.close(fd)

    def start(self, interval: float = INTERVAL_SECONDS) -> None:
        self._thread = threading.Thread(target=self._loop, args=(interval,), name="scheduler", daemon=True)
        self._thread.start()

    def _loop(self, interval: float) -> None:
        while not self._stop.is_set():
            try:
                self.evaluate_once()
            except Exception:  # a bad evaluation (a file half written) must not end the scheduler
                log.exception("evaluating the triggers failed")
            self._stop.wait(interval)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(30)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
