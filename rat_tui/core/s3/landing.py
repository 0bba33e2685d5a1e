"""Archival of landing files when the zones live in a bucket: the local cache and the objects move together."""
from __future__ import annotations

from pathlib import Path

from ..archive import LandingArchive
from ..errors import RatError
from ..project import Project
from .sync import ProjectSync


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
        except RatError as exc:
            super().restore(zone_dir, run_id)
            raise RatError(f"archiving in the bucket failed, all files were put back: {exc.sentence()}") from None
        return moved

    def restore(self, zone_dir: Path, run_id: str) -> list[str]:
        zone = self.project.rel(zone_dir)
        restored_remote = [p[len(zone) + 1:] for p in self.sync.restore(zone, run_id)]
        return sorted(set(super().restore(zone_dir, run_id)) | set(restored_remote))
