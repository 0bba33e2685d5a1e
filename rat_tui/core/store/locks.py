"""Locks shared by every process on a project: `.rat/locks/<name>.lock`, held with flock for as long as
the work lasts. The kernel drops a lock when its process ends, however it ends (SIGKILL included), so a
crash never leaves one behind. The holder writes who it is into the file, so a waiter can say whom it
waits for.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from ..errors import RunCancelled

LOCKS = "locks"
POLL_SECONDS = 0.2  # how often a waiter tries again (and looks whether it was cancelled)


def _try_lock(path: Path) -> int | None:
    """The locked file's descriptor, or None while another holds it."""
    path.parent.mkdir(parents=True, exist_ok=True)  # `.rat/` may have been deleted meanwhile
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    with contextlib.suppress(FileNotFoundError):
        if os.stat(path).st_ino == os.fstat(fd).st_ino:
            return fd
    os.close(fd)  # the file was deleted between open and lock: the next try locks the one on disk
    return None


def holder(path: Path) -> str:
    """What the holder wrote ("" when unknown)."""
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return ""


def hold_now(state_dir: Path, name: str, who: str) -> int | None:
    """Lock `name` without waiting, writing `who` into it: its descriptor (close it to let go), or None while
    another process holds it."""
    fd = _try_lock(state_dir / LOCKS / f"{name}.lock")
    if fd is not None:
        _write_holder(fd, who)
    return fd


def is_free(state_dir: Path, name: str) -> bool:
    """Whether no one holds lock `name` now. It leaves the holder's name in the file: a probe that wrote its own
    (none) made a holder that had just locked read as unknown."""
    fd = _try_lock(state_dir / LOCKS / f"{name}.lock")
    if fd is None:
        return False
    os.close(fd)
    return True


def _write_holder(fd: int, who: str) -> None:
    """Over the last holder's name, then cut to length: a reader never sees the file empty in between."""
    data = who.encode()
    os.pwrite(fd, data, 0)
    os.ftruncate(fd, len(data))


def lock_holder(state_dir: Path, name: str) -> str:
    return holder(state_dir / LOCKS / f"{name}.lock")


@contextlib.contextmanager
def held(state_dir: Path, name: str, who: str, cancelled: threading.Event,
         on_wait: Callable[[str], None]) -> Iterator[str | None]:
    """Hold lock `name` for the block; yields the name of the holder it waited for (None when it did not
    wait). While another process holds it, `on_wait(holder)` is called once and the wait goes on until the
    lock is free or `cancelled` is set (RunCancelled)."""
    path = state_dir / LOCKS / f"{name}.lock"
    waited = False
    while (fd := _try_lock(path)) is None:
        if not waited:
            waited = True
            on_wait(holder(path))
        if cancelled.wait(POLL_SECONDS):
            raise RunCancelled()
    try:
        last = holder(path) if waited else None  # the last holder's name, before ours goes over it
        _write_holder(fd, who)
        yield last
    finally:
        os.close(fd)
