"""Small file helpers every room may use: checksums of large files and writes no reader sees half done."""
from __future__ import annotations

import hashlib
import os
import secrets
from functools import lru_cache
from pathlib import Path


def file_sha256(path: Path) -> str:
    """The sha256 of a file, read in 1 MB chunks (landing files and jars can be large)."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def atomic_write(target: Path, data: bytes) -> None:
    """A hidden temporary name unique to this call, then rename: readers never see half a file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(f".{target.name}.rat-tmp-{secrets.token_hex(4)}")
    temp.write_bytes(data)
    os.replace(temp, target)


def resolved(path: Path) -> Path:
    """`path.resolve()` with each folder resolved once: a run names thousands of landing files in a few
    folders, and resolving each (a system call per path part) cost 2,000 files a second. A symbolic link
    named by `path` itself is still followed; a relative path is resolved from the current folder."""
    if not path.is_absolute() or path.is_symlink():
        return path.resolve()
    return _resolved_folder(path.parent) / path.name


@lru_cache(maxsize=512)
def _resolved_folder(folder: Path) -> Path:
    return folder.resolve()
