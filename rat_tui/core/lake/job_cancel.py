"""Cancelling a Spark job group so that a job submitted a moment after the cancel stops too.

`cancelJobGroup` only reaches jobs already running: a worker between two jobs (or between
`setJobGroup` and its first job) would start its next job unharmed. So the cancel repeats
until the work says it has stopped."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)


def cancel_until_stopped(session: Callable[[], "SparkSession"], group: str, stopped: Callable[[], bool],
                         interval: float = 0.2, rounds: int | None = None) -> None:
    """Cancels the group now and again every `interval` seconds, in a daemon thread, until
    `stopped()` (or after `rounds` cancels)."""

    def repeat() -> None:
        done = 0
        while not stopped() and (rounds is None or done < rounds):
            try:
                session().sparkContext.cancelJobGroup(group)
            except Exception:
                log.exception("cancelling job group %s failed", group)
                return
            done += 1
            time.sleep(interval)

    threading.Thread(target=repeat, name=f"cancel-{group}", daemon=True).start()
