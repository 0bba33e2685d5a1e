"""A project on a versioned S3 bucket, behind the storage seam: connect, status, pull, push, landing before runs."""
from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..project.model import PipelineRef, Project
from ..storage import Storage
from ..store.state import StateDB
from ..store.versions import PublishedVersion, VersionStore
from .bucket import Bucket, ObjectInfo
from .config import S3Config
from .landing_archive import BucketLandingArchive
from .objects import SyncedObjects
from .published import PublishedSync
from .sync import ProjectSync, RemoteChange


@dataclass(frozen=True)
class Connected:
    """The bucket checked; the files new to this folder it brought in, and each namespace's landing sync."""

    bucket: str
    pulled: list[dict[str, Any]]
    landing: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {"bucket": self.bucket, "pulled": self.pulled, "landing": self.landing}


@dataclass(frozen=True)
class Pushed:
    pipelines: list[str]  # the pipeline files uploaded
    landing: dict[str, Any]  # per namespace, its landing zones' sync

    def as_dict(self) -> dict[str, Any]:
        return {"pipelines": self.pipelines, "landing": self.landing}


class BucketStorage(Storage):
    """Built bottom-up: the bucket, what this folder knows of its objects, the version store that keeps
    file versions there (`versions`, the workbench's), then the sync and the shared published versions."""

    is_bucket = True

    def __init__(self, project: Project, state: StateDB, config: S3Config, objects_dir: Path):
        super().__init__(project)
        self.config = config
        self.bucket = Bucket(config)
        self.objects = SyncedObjects(project, self.bucket, state)
        self.versions = VersionStore(state, objects_dir, remote=self.objects)
        self.sync = ProjectSync(project, self.objects, self.versions)
        self.landing_archive = BucketLandingArchive(project, self.sync)
        self.published = PublishedSync(self.bucket, self.versions, state, project.root)
        self.changes: dict[str, str] = {}  # the last known remote changes, by path (no network to read)
        self._connected = False
        self._lock = threading.Lock()

    # -- the storage seam ------------------------------------------------------------------
    def warehouse_uri(self, namespace: str) -> str:
        return self.config.uri(f"{namespace}/warehouse") if self.config.direct else super().warehouse_uri(namespace)

    def landing_uri(self, path: Path) -> str:
        """In direct mode Spark reads the object itself; otherwise the local cache."""
        return self.config.uri(self.project.rel(path)) if self.config.direct else super().landing_uri(path)

    def spark_conf(self) -> dict[str, str]:
        return self.config.s3a_conf() if self.config.direct else {}

    def pull_published(self) -> None:
        """Versions colleagues published since the last look (one listing)."""
        self.ensure_connected()
        self.published.pull()

    def file_replaced(self, relpath: str, data: bytes) -> None:
        """The bucket's working copy follows, as a new object version."""
        self.versions.record(relpath, data)

    def file_deleted(self, relpath: str) -> None:
        self.objects.delete(relpath)

    def zone_changed(self, namespace: str, zone: str) -> None:
        """The file and its sample go to the bucket, where the team's runs read them."""
        self.ensure_connected()
        self.sync.sync_zone(namespace, zone)

    def processed_objects(self, zone_relpath: str) -> dict[str, ObjectInfo]:
        return self.bucket.list(f"{zone_relpath}/_processed/")

    def delete_object(self, relpath: str) -> None:
        self.bucket.delete(relpath)

    def publish(self, ref: PipelineRef, pin: Callable[[], PublishedVersion], keep: int) -> PublishedVersion:
        return self.published.publish(ref, pin, keep)

    def connect(self) -> Connected:
        """Check the bucket (credentials, versioning); bring in files this folder has never seen."""
        with self._lock:
            self.bucket.check()
            pulled = self.refresh()
            landing = {ns: self.sync.sync_landing(ns) for ns in self.sync.namespaces()}
            self._connected = True
        return Connected(self.bucket.where, pulled, landing)

    def refresh(self) -> list[dict]:
        """Look for remote changes; files new to this folder come in at once (nothing here to lose)."""
        self.published.pull()
        new = [c.path for c in self.status() if c.state == "new"]
        return self.pull(new, force=False) if new else []

    @property
    def connected(self) -> bool:
        return self._connected

    def ensure_connected(self) -> None:
        if not self._connected:
            self.connect()

    def status(self) -> list[RemoteChange]:
        changes = self.sync.remote_changes()
        self.changes = {c.path: c.state for c in changes}
        return changes

    def pull(self, paths: list[str] | None, force: bool) -> list[dict]:
        pulled = self.sync.pull(paths, force)
        self.status()
        return pulled

    def push(self) -> Pushed:
        pushed = self.sync.push_pipelines()
        landing = {ns: self.sync.sync_landing(ns) for ns in sorted(set(self.sync.namespaces()) | self._local_namespaces())}
        self.status()
        return Pushed(pushed, landing)

    def _local_namespaces(self) -> set[str]:
        return {ns.name for ns in self.project.scan().namespaces}

    def prepare_run(self, ref: PipelineRef) -> None:
        """Before a run: the landing cache of its namespace matches the bucket (by ETag)."""
        self.ensure_connected()
        self.sync.sync_landing(ref.namespace)

    def pipeline_state(self, ref: PipelineRef) -> str | None:
        """new / changed / conflict when the bucket holds a version of this pipeline not pulled yet."""
        base = f"{ref.relpath.as_posix()}/"
        states = {state for path, state in self.changes.items() if path.startswith(base)}
        for state in ("conflict", "changed", "new"):
            if state in states:
                return state
        return None
