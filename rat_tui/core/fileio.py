"""Small file helpers every room may use: checksums of large files and writes no reader sees half done."""
from __future__ import annotations

import hashlib
import os
import secrets
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
