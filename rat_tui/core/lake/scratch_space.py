"""Where a local Spark keeps its scratch files: under the project's `.rat/tmp/`, a folder per process.

Spark's default is /tmp, and a JVM that is killed (the app closed with SIGKILL, a machine that sleeps
mid-run) never removes its folders there: each held a 45 MB copy of the Iceberg jar, which local mode
copies for its executor, and the shuffle files of the run it was in. Under `.rat/tmp/<pid>` they are
found again: the next process to start Spark on the project removes the folders of processes that
are gone.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path


def process_scratch(state_dir: Path) -> Path:
    """This process's scratch folder, made empty; the folders of processes no longer running removed."""
    root = state_dir / "tmp"
    root.mkdir(parents=True, exist_ok=True)
    for folder in root.iterdir():
        if folder.name.isdigit() and not _running(int(folder.name)):
            shutil.rmtree(folder, ignore_errors=True)
    mine = root / str(os.getpid())
    mine.mkdir(exist_ok=True)
    return mine


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: running
        return True
    return True
