"""The landing archive: `_processed/<run_id>/` holds the files a successful run read, and kept copies."""
from __future__ import annotations

import logging
import os
import shutil
import time
from pathlib import Path

from .. import testpoints
from ..errors import RatError
from .twins import twin_folder

log = logging.getLogger(__name__)


# `_processed/` also keeps copies the product promised to keep, in folders named by why:
# a file replaced by `upload --replace`, a local edit set aside when the bucket's copy won.
# They belong to no run; only their zone's processed_max_age_days removes them.
KEPT_COPY_KINDS = ("replaced", "local")


def kept_copy_folder(zone_dir: Path, kind: str) -> Path:
    assert kind in KEPT_COPY_KINDS
    return zone_dir / "_processed" / f"{kind}-{time.strftime('%Y%m%dT%H%M%S')}"


def is_kept_copy_folder(name: str) -> bool:
    return any(name.startswith(f"{kind}-") for kind in KEPT_COPY_KINDS)


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
            twin = twin_folder(zone_dir, source)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, target)
        except FileNotFoundError:
            log.warning("landing file %s vanished before it could be archived", source)
            continue
        except OSError as exc:
            restore_archived(zone_dir, run_id)
            raise RatError(
                f"archiving {relative} failed after {len(moved)} file(s) were moved: {exc.strerror}; "
                "all of them were put back, nothing was merged", zone_dir
            ) from None
        moved.append(relative.as_posix())
        # The typed twin goes with its file; if the run fails and the file comes back, it is read as CSV.
        shutil.rmtree(twin, ignore_errors=True)
        testpoints.reached("during:archive")
    return moved


def restore_archived(zone_dir: Path, run_id: str) -> list[str]:
    """Put a run's archived files back into the zone (its merge failed, or it crashed before merging).

    A file whose name is taken again in the zone (a newer upload) stays archived, so nothing
    is overwritten.
    """
    folder = zone_dir / "_processed" / run_id
    if not folder.is_dir():
        return []
    restored = []
    for source in sorted(p for p in folder.rglob("*") if p.is_file()):
        relative = source.relative_to(folder)
        target = zone_dir / relative
        if target.exists():
            log.warning("%s came back into the zone meanwhile; the archived copy stays in %s", relative, folder)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(source, target)
        restored.append(relative.as_posix())
    for empty in sorted((p for p in folder.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        if not any(empty.iterdir()):
            empty.rmdir()
    if not any(folder.iterdir()):
        folder.rmdir()
    return restored


class LandingArchive:
    """How runs archive landing files; the bucket-backed subclass moves the objects as well."""

    def archive(self, zone_dir: Path, files: list[Path], run_id: str) -> list[str]:
        return archive_files(zone_dir, files, run_id)

    def restore(self, zone_dir: Path, run_id: str) -> list[str]:
        return restore_archived(zone_dir, run_id)
