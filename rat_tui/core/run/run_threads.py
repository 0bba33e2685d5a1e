"""Threads for runs that wait a while for the next run when theirs ends.

py4j pins each Python thread to a JVM thread of its own, over a connection of its own: a run on a new
thread opened a connection, authenticated it and started a JVM thread, and the thread's end closed both.
A warm run on a thread that ran one before took 4-17 ms less (175 against 179-186 ms, interleaved in one
process). A run never waits for a thread: when none is idle, a new one starts.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

IDLE_SECONDS = 120.0  # an idle thread ends after this long without a run


class RunThreads:
    def __init__(self, idle_seconds: float = IDLE_SECONDS):
        self.idle_seconds = idle_seconds
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []

    def start(self, job: Callable[[], None], name: str) -> None:
        """Run `job` on an idle thread, renamed `name`, or on a new one."""
        with self._lock:
            if self._idle:
                self._idle.pop().hand(job, name)
                return
        worker = _Worker(self, job)
        threading.Thread(target=worker.serve, name=name, daemon=True).start()

    def idle(self) -> int:
        with self._lock:
            return len(self._idle)

    def _wait_for_job(self, worker: "_Worker") -> bool:
        """Whether a job came before the idle time ran out (then it is the worker's)."""
        with self._lock:
            self._idle.append(worker)
        if worker.handed.wait(self.idle_seconds):
            return True
        with self._lock:
            if worker in self._idle:
                self._idle.remove(worker)
                return False
        return True  # handed a job between the time-out and the lock: it is set now


class _Worker:
    def __init__(self, threads: RunThreads, job: Callable[[], None]):
        self.threads, self.job = threads, job
        self.name = ""
        self.handed = threading.Event()

    def hand(self, job: Callable[[], None], name: str) -> None:
        self.job, self.name = job, name
        self.handed.set()

    def serve(self) -> None:
        while True:
            try:
                self.job()
            except Exception:  # a job records its own failures: this one escaped, the thread lives on
                log.exception("a run's thread caught an error")
            self.handed.clear()
            if not self.threads._wait_for_job(self):
                return
            threading.current_thread().name = self.name
