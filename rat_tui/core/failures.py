"""One sentence for a failure a face shows (a toast, a notice): a RatError says its own; anything else is
an internal bug, whose traceback goes to the log."""
from __future__ import annotations

import logging

from .errors import RatError

log = logging.getLogger(__name__)


def failure_sentence(action: str, exc: Exception) -> str:
    if isinstance(exc, RatError):
        return exc.sentence()
    log.error("%s failed", action, exc_info=exc)
    return f"internal error ({type(exc).__name__}: {exc}); see .rat/logs/app.log"
