"""Project files written through the app: atomic writes, saves versioned (and uploaded)."""
from __future__ import annotations

import os
from pathlib import Path

from ..errors import RatError
from ..project import PipelineRef
from .base import WorkbenchParts


class FileCommands(WorkbenchParts):
    def write(self, relpath: str, content: str) -> dict:
        """Write a project file atomically (temp file, then rename), as an editor save would."""
        target = (self.project.root / relpath).resolve()
        if self.project.root not in target.parents:
            raise RatError(f"'{relpath}' is outside the project folder")
        self._atomic_write(target, content.encode("utf-8"))
        relpath = self.project.rel(target)
        owner = self.pipeline_of(relpath)
        if owner is not None:
            self.versions.record(relpath, target.read_bytes())
        return {"path": relpath}

    def record_saves(self, relpaths: list[str]) -> dict[str, str]:
        """Version saved pipeline files (with a bucket: upload them); {path: problem} for those that failed."""
        problems = {}
        for relpath in relpaths:
            file = self.project.root / relpath
            try:
                if file.is_file():
                    self.versions.record(relpath, file.read_bytes())
                elif self.remote:  # deleted in the editor: deleted in the bucket too
                    self.remote.sync.delete(relpath)
            except RatError as exc:
                problems[relpath] = exc.sentence()
        return problems

    def pipeline_of(self, relpath: str) -> PipelineRef | None:
        """The pipeline a project file belongs to, when it is one of its versioned files."""
        parts = relpath.split("/")
        if len(parts) >= 5 and parts[1] == "pipelines":
            name = "/".join(parts[4:])
            if name in ("pipeline.sql", "pipeline.py", "config.yaml") or (
                    name.startswith("tests/quality/") and name.endswith(".sql")):
                return PipelineRef(parts[0], parts[2], parts[3])
        return None

    @staticmethod
    def _atomic_write(target: Path, data: bytes) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        temp = target.with_name(f".{target.name}.rat-tmp-{os.getpid()}")
        temp.write_bytes(data)
        os.replace(temp, target)
