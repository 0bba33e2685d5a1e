"""Where a local Spark keeps its scratch files: a folder per process under the install's cache folder
(`~/.cache/rat-tui/tmp/<pid>`, or `$RAT_TUI_CACHE/tmp/<pid>`).

Spark's default is /tmp, and a JVM that is killed (the app closed with SIGKILL, a machine that sleeps
mid-run) never removes its folders there: each held a 45 MB copy of the Iceberg jar, which local mode
copies for its executor, and the shuffle files of the run it was in. Here they are found again: the
next process to start Spark removes the folders of processes that are gone. Not in the project's
`.rat/`: a user who deletes that while the app runs must not take a running job's shuffle files with it.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from .class_sharing import cache_root


def process_scratch(root: Path | None = None) -> Path:
    """This process's scratch folder under `root` (the cache's `tmp/`); the folders of processes no longer
    running removed."""
    root = root if root is not None else cache_root() / "tmp"
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
