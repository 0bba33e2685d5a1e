"""Pipeline versions: drift, publish, rollback, restore."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from ..errors import RatError
from ..fileio import atomic_write
from ..lineage.compiled import syntax_problem
from ..project.model import PipelineRef, Project
from ..project.pipeline_source import load_pipeline
from ..project.paths import inside
from ..project.validate import validate
from ..storage import Storage
from ..store.versions import PublishedVersion, VersionStore


@dataclass(frozen=True)
class VersionList:
    """A pipeline's published versions, oldest first, and the current one (None: never published)."""

    versions: list[PublishedVersion]

    @property
    def current(self) -> int | None:
        return self.versions[-1].version if self.versions else None

    def as_dict(self) -> dict[str, Any]:
        return {"versions": [v.as_dict() for v in self.versions], "current": self.current}


@dataclass(frozen=True)
class Published:
    """The new published version, and the file version it pins per file (name -> version id)."""

    version: int
    files: dict[str, str]
    warning: str | None = None  # the query does not parse (lineage.compiled.syntax_problem): a run of it fails

    def as_dict(self) -> dict[str, Any]:
        return {"version": self.version, "files": self.files, "warning": self.warning}


@dataclass(frozen=True)
class RolledBack:
    """The new published version, pinning the files of `pinned_from`."""

    version: int
    pinned_from: int

    def as_dict(self) -> dict[str, Any]:
        return {"version": self.version, "pinned_from": self.pinned_from}


class Versions:
    """Publish, roll back and restore a pipeline's files; `version_store` keeps every file version."""

    def __init__(self, project: Project, version_store: VersionStore, storage: Storage):
        self.project, self.version_store, self.storage = project, version_store, storage

    def drift(self, ref: PipelineRef) -> bool:
        """Whether the working copy differs from the current published version."""
        current = self.version_store.current(ref)
        if current is None:
            return False
        working = self.project.read_pipeline_files(ref)
        if set(working) != set(current.files):
            return True
        return any(hashlib.sha256(working[name]).hexdigest() != self.version_store.get(vid).sha256
                   for name, vid in current.files.items())

    def record_working_copy(self, ref: PipelineRef, files: dict[str, bytes] | None = None) -> dict[str, str]:
        """Version every file of the pipeline as it is now (or `files`, just read); {name: version_id}."""
        base = ref.relpath.as_posix()
        files = self.project.read_pipeline_files(ref) if files is None else files
        return {name: self.version_store.record(f"{base}/{name}", data) for name, data in files.items()}

    def publish(self, pipeline: str, message: str = "") -> Published:
        ref = self.project.find_pipeline(pipeline)
        errors = [p for p in validate(self.project, ref) if p.is_error]
        if errors:
            raise RatError(f"cannot publish {ref.fqn}: {errors[0].sentence()}")
        working = self.project.read_pipeline_files(ref)
        pipeline, _ = load_pipeline(ref, working)
        version = self._pin(ref, self.record_working_copy(ref, working), message, None)
        return Published(version.version, version.files, syntax_problem(pipeline) if pipeline is not None else None)

    def list_versions(self, pipeline: str) -> VersionList:
        """What this folder knows (no network: the TUI calls it while browsing; with a bucket,
        colleagues' versions arrive with every check and before publish, rollback and run --published)."""
        ref = self.project.find_pipeline(pipeline)
        return VersionList(self.version_store.published(ref))

    def rollback(self, pipeline: str, version: int | None = None, restore: bool = False) -> RolledBack:
        ref = self.project.find_pipeline(pipeline)
        self.storage.pull_published()
        published = {v.version: v for v in self.version_store.published(ref)}
        current = max(published) if published else None
        if current is None:
            raise RatError(f"{ref.fqn} has no published version to roll back")
        target = version if version is not None else current - 1
        if target not in published:
            known = ", ".join(str(v) for v in sorted(published))
            raise RatError(f"{ref.fqn} has no published version {target} (kept versions: {known})")
        chosen = published[target]
        files = self.version_store.read_pinned(ref, chosen)  # fails before anything changes if a blob is bad
        pinned = self._pin(ref, chosen.files, f"rollback to version {target}", target)
        if restore:  # after the pin stands: a refused pin leaves the working folder as it was
            self.restore_files(ref, files)
        return RolledBack(pinned.version, target)

    def _pin(self, ref: PipelineRef, files: dict[str, str], message: str, pinned_from: int | None):
        """A new published version; with a bucket it is shared there too (or not made at all)."""
        def pin():
            return self.version_store.pin(ref, files, message, pinned_from)

        keep = self.project.settings.max_versions
        version = self.storage.publish(ref, pin, keep)
        self.version_store.prune(ref, keep)  # only once the version stands (shared, with a bucket)
        return version

    def restore_files(self, ref: PipelineRef, files: dict[str, bytes]) -> None:
        """Make the working folder hold exactly `files`; the working copy is versioned first."""
        base = self.project.pipeline_dir(ref)
        for name in files:  # checked before anything is written
            inside(base, name, f"a pinned file of {ref.fqn} has a name", f"pipeline folder {ref.relpath.as_posix()}")
        self.record_working_copy(ref)
        for name in self.project.read_pipeline_files(ref):
            if name not in files:
                (base / name).unlink()
                self.storage.file_deleted(f"{ref.relpath.as_posix()}/{name}")
        for name, data in files.items():
            atomic_write(base / name, data)
            self.storage.file_replaced(f"{ref.relpath.as_posix()}/{name}", data)
