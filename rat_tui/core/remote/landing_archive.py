"""Archival of landing files when the zones live in a bucket: the local cache and the objects move together."""
from __future__ import annotations

import logging
from pathlib import Path

from ..errors import RatError
from ..landing.archive import LandingArchive
from ..project.model import Project
from .sync import ProjectSync

log = logging.getLogger(__name__)


class BucketLandingArchive(LandingArchive):
    """Local moves first, then the bucket's; a failure in the bucket undoes both.

    Recovery after a crash runs `restore`, which puts back whatever either side had moved.
    """

    def __init__(self, project: Project, sync: ProjectSync):
        self.project = project
        self.sync = sync

    def archive(self, zone_dir: Path, files: list[Path], run_id: str) -> list[str]:
        moved = super().archive(zone_dir, files, run_id)
        try:
            self.sync.archive(self.project.rel(zone_dir), moved, run_id)
        except Exception as exc:  # whatever broke, the local moves are undone before the run fails
            super().restore(zone_dir, run_id)
            reason = exc.sentence() if isinstance(exc, RatError) else f"{type(exc).__name__}: {exc}"
            raise RatError(f"archiving in the bucket failed ({reason}); the files were put back "
                           "(in the bucket as soon as it answers again), nothing was merged") from None
        return moved

    def restore(self, zone_dir: Path, run_id: str) -> list[str]:
        restored = super().restore(zone_dir, run_id)
        zone = self.project.rel(zone_dir)
        try:
            restored_remote = [p[len(zone) + 1:] for p in self.sync.restore(zone, run_id)]
        except RatError as exc:  # remembered by the sync; retried before the zone is next read
            log.warning("the bucket's copy of %s/_processed/%s goes back later: %s", zone, run_id, exc.sentence())
            return restored
        return sorted(set(restored) | set(restored_remote))
