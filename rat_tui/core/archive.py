"""Moving the landing files a successful run read into `_processed/<run_id>/`."""
from __future__ import annotations

import logging
import os
from pathlib import Path

from . import testpoints
from .errors import RatError

log = logging.getLogger(__name__)


def archive_files(zone_dir: Path, files: list[Path], run_id: str) -> list[str]:
    """Move exactly `files` (sub-paths kept); a file is always in one of the two places.

    `os.replace` within one file system is atomic, so a crash between two moves leaves
    every file either active or archived, never lost or doubled.
    """
    moved: list[str] = []
    target_root = zone_dir / "_processed" / run_id
    for source in files:
        relative = source.relative_to(zone_dir)
        target = target_root / relative
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, target)
        except FileNotFoundError:
            log.warning("landing file %s vanished before it could be archived", source)
            continue
        except OSError as exc:
            raise RatError(
                f"archiving {relative} failed after {len(moved)} file(s) were moved: {exc.strerror}; "
                "the remaining files stay active", zone_dir
            ) from None
        moved.append(relative.as_posix())
        testpoints.reached("during:archive")
    return moved
