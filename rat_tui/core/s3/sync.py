"""The local working folder and the bucket, kept in step.

The folder stays the editing surface. Pipeline files are pushed when saved (each push is a
new S3 object version) and pulled on request when someone else changed them. Landing
zones live in the bucket; runs read a local cache of them, refreshed by ETag.

`s3_synced` remembers, per project path, the object (ETag, VersionId) and the local content
(sha256, size, mtime) last known to be equal; comparing both sides against it tells a local
edit from a remote one.
"""
from __future__ import annotations

import contextlib
import hashlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import RatError
from ..project import Project
from ..state import StateDB
from ..versions import VersionStore
from .bucket import Bucket, ObjectInfo, file_sha as _file_sha

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS s3_synced (
    relpath TEXT PRIMARY KEY,
    etag TEXT NOT NULL,
    version_id TEXT,
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS s3_pending_restores (   -- archival undone locally, not yet in the bucket
    zone TEXT NOT NULL,
    run_id TEXT NOT NULL,
    PRIMARY KEY (zone, run_id)
);
"""


@dataclass(frozen=True)
class RemoteChange:
    path: str
    state: str  # new | changed | conflict (changed on both sides)

    def as_dict(self) -> dict:
        return {"path": self.path, "state": self.state}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _is_pipeline_file(relpath: str) -> bool:
    parts = relpath.split("/")
    return len(parts) >= 5 and parts[1] == "pipelines" and not any(p.startswith(".") for p in parts)


class ProjectSync:
    """Implements `RemoteVersions` for the version store, plus pull/push of files and landing zones."""

    def __init__(self, project: Project, bucket: Bucket, state: StateDB):
        self.project = project
        self.bucket = bucket
        self.state = state
        self.versions: VersionStore | None = None  # set by the owner once the store exists
        state.script(_SCHEMA)

    # -- bookkeeping -----------------------------------------------------------------
    def _synced(self, relpath: str):
        return self.state.query_one("SELECT * FROM s3_synced WHERE relpath = ?", (relpath,))

    def _remember(self, relpath: str, info: ObjectInfo, sha: str) -> None:
        stat = (self.project.root / relpath).stat()
        self.state.execute(
            "INSERT OR REPLACE INTO s3_synced VALUES (?, ?, ?, ?, ?, ?)",
            (relpath, info.etag, info.version_id, sha, stat.st_size, stat.st_mtime_ns))

    def _forget(self, relpath: str) -> None:
        self.state.execute("DELETE FROM s3_synced WHERE relpath = ?", (relpath,))

    def _local_unchanged(self, relpath: str, row) -> bool:
        path = self.project.root / relpath
        if not path.is_file():
            return False
        stat = path.stat()
        if (stat.st_size, stat.st_mtime_ns) == (row["size"], row["mtime_ns"]):
            return True
        return _sha(path.read_bytes()) == row["sha256"]

    # -- RemoteVersions ----------------------------------------------------------------
    def put(self, relpath: str, data: bytes) -> str:
        """Upload a saved file as a new object version, unless someone else changed the object meanwhile."""
        row = self._synced(relpath)
        current = self.bucket.head(relpath)
        if current is not None and (row is None or current.etag != row["etag"]) and current.sha256 != _sha(data):
            raise RatError(f"{relpath} was changed in {self.bucket.where} since this copy was pulled; "
                           "pull it first (your edit is kept as a local version), then save again")
        info = self.bucket.put(relpath, data)
        if not info.version_id or info.version_id == "null":
            raise RatError(f"{self.bucket.where} returned no object version for {relpath}: versioning is off")
        if (self.project.root / relpath).is_file() and _sha((self.project.root / relpath).read_bytes()) == info.sha256:
            self._remember(relpath, info, info.sha256 or _sha(data))
        return info.version_id

    def get(self, relpath: str, version_id: str) -> bytes:
        data, _ = self.bucket.get(relpath, version_id)
        return data

    # -- pipeline files ----------------------------------------------------------------
    def namespaces(self) -> list[str]:
        """Namespaces in the bucket (top-level folders that hold pipelines or landing zones)."""
        keys = self.bucket.list("")
        return sorted({k.split("/", 1)[0] for k in keys if k.count("/") >= 2 and k.split("/")[1] in ("pipelines", "landing")})

    def remote_changes(self) -> list[RemoteChange]:
        """Pipeline files the bucket holds in another state than this folder last saw."""
        changes = []
        for relpath, info in sorted(self.bucket.list("").items()):
            if not _is_pipeline_file(relpath):
                continue
            row = self._synced(relpath)
            local = self.project.root / relpath
            if row is not None and row["etag"] == info.etag:
                continue
            if not local.exists():
                changes.append(RemoteChange(relpath, "new"))
            elif row is not None and self._local_unchanged(relpath, row):
                changes.append(RemoteChange(relpath, "changed"))
            elif row is None and self.bucket.head(relpath).sha256 == _sha(local.read_bytes()):
                self._adopt_equal(relpath)
            else:
                changes.append(RemoteChange(relpath, "conflict"))
        return changes

    def _adopt_equal(self, relpath: str) -> None:
        data, info = self.bucket.get(relpath)
        self._remember(relpath, info, _sha(data))
        if self.versions is not None and info.version_id:
            self.versions.adopt(relpath, info.version_id, data)

    def pull(self, paths: list[str] | None = None, force: bool = False) -> list[dict]:
        """Bring the bucket's current objects into the folder; a local edit is never silently lost."""
        changes = self.remote_changes()
        if paths is not None:
            wanted = tuple(p.rstrip("/") for p in paths)
            changes = [c for c in changes if c.path in wanted or c.path.startswith(tuple(f"{w}/" for w in wanted))]
        conflicts = [c.path for c in changes if c.state == "conflict"]
        if conflicts and not force:
            raise RatError(f"{conflicts[0]} was edited here and in the bucket; pull with --force to take the "
                           "bucket's copy (yours is kept as a local version) or save yours over it after a pull")
        pulled = []
        for change in changes:
            local = self.project.root / change.path
            if change.state == "conflict" and self.versions is not None and local.exists():
                self.versions.keep_local(change.path, local.read_bytes())
            data, info = self.bucket.get(change.path)
            _atomic_write(local, data)
            self._remember(change.path, info, _sha(data))
            if self.versions is not None and info.version_id:
                self.versions.adopt(change.path, info.version_id, data)
            pulled.append({"path": change.path, "state": change.state, "version_id": info.version_id})
        return pulled

    def local_pipeline_files(self) -> list[str]:
        found = []
        for ns in self.project.scan().namespaces:
            for ref in ns.pipelines:
                base = ref.relpath.as_posix()
                found += [f"{base}/{name}" for name in self.project.read_pipeline_files(ref)]
        return found

    def push_pipelines(self) -> list[str]:
        """Upload every pipeline file whose content the bucket does not have yet."""
        assert self.versions is not None
        pushed = []
        for relpath in self.local_pipeline_files():
            row = self._synced(relpath)
            if row is not None and self._local_unchanged(relpath, row):
                continue
            self.versions.record(relpath, (self.project.root / relpath).read_bytes())
            pushed.append(relpath)
        return pushed

    # -- landing zones -------------------------------------------------------------------
    def zones(self, namespace: str) -> list[str]:
        local = {z.name for ns in self.project.scan().namespaces if ns.name == namespace for z in ns.zones}
        remote = {k.split("/")[2] for k in self.bucket.list(f"{namespace}/landing/") if k.count("/") >= 3}
        return sorted(local | remote)

    def sync_zone(self, namespace: str, zone: str) -> dict:
        """Make the zone's active files and samples equal on both sides; `_processed/` moves itself."""
        self.retry_restores()
        prefix = f"{namespace}/landing/{zone}/"
        remote = {k: v for k, v in self.bucket.list(prefix).items() if not _archived(k, prefix)}
        zone_dir = self.project.root / prefix
        local = {self.project.rel(p) for p in zone_dir.rglob("*") if p.is_file()} if zone_dir.is_dir() else set()
        local = {p for p in local if not _archived(p, prefix) and not Path(p).name.startswith(".")}
        downloaded, uploaded, removed = [], [], []
        for relpath, info in sorted(remote.items()):
            row = self._synced(relpath)
            here = relpath in local
            if here and row is not None and row["etag"] == info.etag:
                if not self._local_unchanged(relpath, row):  # replaced locally: the bucket gets the new file
                    self._upload(relpath)
                    uploaded.append(relpath)
                continue
            if here and row is None:
                head = self.bucket.head(relpath)
                if head is not None and head.sha256 == _file_sha(self.project.root / relpath):
                    self._remember(relpath, head, head.sha256)
                    continue
            info = self.bucket.download(relpath, self.project.root / relpath)
            self._remember(relpath, info, _file_sha(self.project.root / relpath))
            downloaded.append(relpath)
        for relpath in sorted(local - set(remote)):
            if self._synced(relpath) is not None:  # it came from the bucket and is gone there: archived elsewhere
                (self.project.root / relpath).unlink(missing_ok=True)
                self._forget(relpath)
                removed.append(relpath)
            else:
                self._upload(relpath)
                uploaded.append(relpath)
        return {"downloaded": downloaded, "uploaded": uploaded, "removed": removed}

    def sync_landing(self, namespace: str) -> dict:
        totals: dict[str, list[str]] = {"downloaded": [], "uploaded": [], "removed": []}
        for zone in self.zones(namespace):
            for key, paths in self.sync_zone(namespace, zone).items():
                totals[key] += paths
        return totals

    def _upload(self, relpath: str) -> None:
        info = self.bucket.put(relpath, self.project.root / relpath)
        self._remember(relpath, info, info.sha256 or _file_sha(self.project.root / relpath))

    # -- archival in the bucket ------------------------------------------------------------
    def archive(self, zone_relpath: str, names: list[str], run_id: str) -> None:
        """Move objects into `_processed/<run_id>/` (copy, then delete); undone entirely on failure."""
        try:
            for name in names:
                source, target = f"{zone_relpath}/{name}", f"{zone_relpath}/_processed/{run_id}/{name}"
                if self.bucket.head(source) is None:
                    log.warning("%s is not in %s; archived locally only", source, self.bucket.where)
                    continue
                self.bucket.move(source, target)
                self._forget(source)
        except RatError:
            with contextlib.suppress(RatError):  # unreachable: remembered and retried before the next sync
                self.restore(zone_relpath, run_id)
            raise

    def restore(self, zone_relpath: str, run_id: str) -> list[str]:
        """Put a run's archived objects back; an object whose name is taken again stays archived.

        When the bucket cannot be reached the restore is remembered and retried by
        `retry_restores` (before the next sync), so the zone never stays half-archived.
        """
        try:
            restored = self._restore(zone_relpath, run_id)
        except RatError:
            self.state.execute("INSERT OR IGNORE INTO s3_pending_restores VALUES (?, ?)", (zone_relpath, run_id))
            raise
        self.state.execute("DELETE FROM s3_pending_restores WHERE zone = ? AND run_id = ?", (zone_relpath, run_id))
        return restored

    def retry_restores(self) -> list[str]:
        restored = []
        for row in self.state.query("SELECT zone, run_id FROM s3_pending_restores"):
            restored += self.restore(row["zone"], row["run_id"])
        return restored

    def _restore(self, zone_relpath: str, run_id: str) -> list[str]:
        prefix = f"{zone_relpath}/_processed/{run_id}/"
        restored = []
        for relpath in sorted(self.bucket.list(prefix)):
            original = f"{zone_relpath}/{relpath[len(prefix):]}"
            present = self.bucket.head(original)
            if present is None:
                self.bucket.copy(relpath, original)
                restored.append(original)
            elif present.sha256 != self.bucket.head(relpath).sha256:
                log.warning("%s came back into the zone meanwhile; the archived copy stays in %s", original, prefix)
                continue
            self.bucket.delete(relpath)  # the original is in place (or was never deleted by a crashed move)
        return restored


def _archived(relpath: str, zone_prefix: str) -> bool:
    return relpath[len(zone_prefix):].startswith("_processed/")


def _atomic_write(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(f".{target.name}.s3-pull")
    temp.write_bytes(data)
    os.replace(temp, target)
