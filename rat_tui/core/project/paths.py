"""Names that become paths in the project folder: given by users (`upload --as`, `write`) or read
from the bucket (object keys, published-versions lists). Each must stay inside its folder."""
from __future__ import annotations

from pathlib import Path, PurePosixPath

from ..errors import RatError


def inside(folder: Path, name: str, what: str, where: str) -> Path:
    """`folder / name` resolved, or one sentence when `name` is absolute, climbs with `..` or
    leads out through a link; `what` and `where` name the name and the folder for that sentence."""
    base = folder.resolve()
    target = (folder / name).resolve()
    pure = PurePosixPath(name)
    if not name or pure.is_absolute() or ".." in pure.parts or (target != base and base not in target.parents):
        raise RatError(f"{what} '{name}' is outside {where}; names must stay inside it")
    return target
