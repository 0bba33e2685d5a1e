"""Deterministic pause points for crash tests: `RAT_TEST_PAUSE_AT=<point>` stops the process there.

When the named point is reached the runner writes `RAT_TEST_PAUSE_FILE` and sleeps, so a
test can SIGKILL it at exactly that point instead of relying on timing. With
`RAT_TEST_RESUME_FILE` set it goes on once that file exists, so a test can let another
process act in the gap (a race made deterministic).
"""
from __future__ import annotations

import os
import time
from pathlib import Path


def reached(point: str) -> None:
    if os.environ.get("RAT_TEST_PAUSE_AT") != point:
        return
    marker = os.environ.get("RAT_TEST_PAUSE_FILE")
    if marker:
        # write-then-rename: the test polls for the file and must never see it empty
        partial = Path(f"{marker}.partial")
        partial.write_text(point)
        partial.replace(marker)
    resume = os.environ.get("RAT_TEST_RESUME_FILE")
    while not (resume and Path(resume).exists()):
        time.sleep(0.05 if resume else 3600)
