"""The scheduler lock, as a TUI's scheduler thread and its watcher's cascade use it in one process (no Spark)."""
from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

from rat_tui.core.automation.scheduler import LOCK, other_scheduler
from rat_tui.core.store.locks import hold_now


def test_a_scheduler_of_this_process_taking_the_lock_is_never_taken_for_another_process(tmp_path: Path):
    """The cascade asks whether another process schedules the project while the TUI's scheduler takes the lock
    for each evaluation. Its probe wrote an empty holder, so a scheduler that had just locked read as 'another
    process' until it wrote its name, and the cascade ran nothing."""
    who = f"rat-tui (pid {os.getpid()} on {socket.gethostname()})"
    stop, seen = threading.Event(), []

    def evaluating() -> None:
        while not stop.is_set():
            if (fd := hold_now(tmp_path, LOCK, who)) is not None:
                os.close(fd)

    thread = threading.Thread(target=evaluating)
    thread.start()
    try:
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline and not seen:
            if (other := other_scheduler(tmp_path)) is not None:
                seen.append(other)
    finally:
        stop.set()
        thread.join()
    assert seen == []
