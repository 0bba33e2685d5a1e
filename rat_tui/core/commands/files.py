"""Project files written through the app: atomic writes, saves versioned (and uploaded)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import RatError
from ..fileio import atomic_write
from ..project.model import Project, pipeline_file_owner
from ..project.paths import inside
from ..storage import Storage
from ..store.versions import VersionStore


@dataclass(frozen=True)
class FileWritten:
    path: str  # relative to the project

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path}


class Files:
    def __init__(self, project: Project, version_store: VersionStore, storage: Storage):
        self.project, self.version_store, self.storage = project, version_store, storage

    def write(self, relpath: str, content: str) -> FileWritten:
        """Write a project file atomically (temp file, then rename), as an editor save would."""
        target = inside(self.project.root, relpath, "path", "the project folder")
        atomic_write(target, content.encode("utf-8"))
        relpath = self.project.rel(target)
        if pipeline_file_owner(relpath) is not None:
            self.version_store.record(relpath, target.read_bytes())
        return FileWritten(relpath)

    def record_saves(self, relpaths: list[str]) -> dict[str, str]:
        """Version saved pipeline files (with a bucket: upload them); {path: problem} for those that failed."""
        problems = {}
        for relpath in relpaths:
            file = self.project.root / relpath
            try:
                if file.is_file():
                    self.version_store.record(relpath, file.read_bytes())
                else:  # deleted in the editor
                    self.storage.file_deleted(relpath)
            except RatError as exc:
                problems[relpath] = exc.sentence()
        return problems
