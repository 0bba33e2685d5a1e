"""What makes a landing file the same file: path, size, modification time, inode and change time.

`rsync -a`, `cp -p` and `tar x` keep a file's size and modification time when they replace it,
so those alone let a run read a replaced file through its old typed twin, or archive a file it
never read. No copy tool can set the inode or the change time: a replaced file always differs there.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple


class FileIdentity(NamedTuple):
    size: int
    mtime_ns: int
    ino: int
    ctime_ns: int

    @classmethod
    def of(cls, path: Path | str) -> "FileIdentity":
        """FileNotFoundError when the file is gone."""
        stat = os.stat(path)
        return cls(stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_ctime_ns)

    def as_dict(self) -> dict:
        return self._asdict()
