"""Whether an app has a project open. Every app (the TUI, a script) holds a shared lock on
`.rat/open.lock` while it runs. The kernel drops the lock when the process ends, however it
ends, so a crash leaves no stale mark. Whatever must not happen under a running app (wiping the
project's tables and state) takes the lock exclusively, which fails while any app holds it.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

LOCK_FILE = "open.lock"


class ProjectOpen(Exception):
    """An app has the project open."""


class OpenMark:
    """This process has the project open, until `close()` or the process ends."""

    def __init__(self, state_dir: Path):
        self._state_dir = state_dir
        self._fd: int | None = self._mark()

    def _mark(self) -> int:
        path = self._state_dir / LOCK_FILE
        self._state_dir.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            fcntl.flock(fd, fcntl.LOCK_SH)  # waits out a wipe in progress
            with contextlib.suppress(FileNotFoundError):
                if os.stat(path).st_ino == os.fstat(fd).st_ino:
                    break
            os.close(fd)  # the wipe removed the file we locked: mark the new one
        return fd

    def renew(self) -> None:
        """Mark again if `.rat/` was deleted under the app (the lock held is on a file no one sees)."""
        if self._fd is None:
            return
        with contextlib.suppress(FileNotFoundError):
            if os.stat(self._state_dir / LOCK_FILE).st_ino == os.fstat(self._fd).st_ino:
                return
        os.close(self._fd)
        self._fd = self._mark()

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


@contextlib.contextmanager
def held_closed(state_dir: Path) -> Iterator[None]:
    """The project with no app open, and none able to open it until the block ends; raises ProjectOpen
    when an app has it open."""
    if not state_dir.is_dir():  # no app has ever opened it (an app makes the folder first)
        yield
        return
    fd = os.open(state_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ProjectOpen(f"{state_dir.parent} is open in rat-tui (the app or a script); close it first") from None
        yield
    finally:
        os.close(fd)
