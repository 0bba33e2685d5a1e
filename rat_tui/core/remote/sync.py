"""The local working folder and the bucket, kept in step.

The folder stays the editing surface. Pipeline files are pushed when saved (each push is a
new S3 object version) and pulled on request when someone else changed them. Landing
zones live in the bucket; runs read a local cache of them, refreshed by ETag.

What the folder last knew of each object, and the lock every bucket operation takes, are
objects.py's `SyncedObjects`, which this sync shares with the version store.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from .. import testpoints
from ..errors import RatError
from ..fileio import atomic_write, file_sha256
from ..landing.archive import kept_copy_folder
from ..project.model import TYPED_TWIN_FOLDER, Project, pipeline_file_owner
from ..project.paths import inside
from ..store.versions import VersionStore
from .bucket import ObjectInfo, PreconditionFailed
from .objects import SyncedObjects, sha

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS s3_pending_restores (   -- archival being undone in the bucket
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


class ProjectSync:
    """Pull and push of pipeline files, landing zones kept in step, and archival in the bucket."""

    def __init__(self, project: Project, objects: SyncedObjects, versions: VersionStore):
        self.project = project
        self.objects = objects
        self.bucket = objects.bucket
        self.state = objects.state
        self.versions = versions
        self.lock = objects.lock
        self.state.script(_SCHEMA)

    # -- pipeline files ----------------------------------------------------------------
    def namespaces(self) -> list[str]:
        """Namespaces in the bucket: top-level folders holding `pipelines/` or `landing/`."""
        return [ns for ns in self.bucket.folders("")
                if {"pipelines", "landing"} & set(self.bucket.folders(f"{ns}/"))]

    def _remote_pipeline_files(self) -> dict[str, ObjectInfo]:
        found: dict[str, ObjectInfo] = {}
        for ns in self.bucket.folders(""):
            found.update({k: v for k, v in self.bucket.list(f"{ns}/pipelines/").items() if pipeline_file_owner(k)})
        return self._inside(found, "", "the project folder")

    def _inside(self, objects: dict[str, ObjectInfo], prefix: str, where: str) -> dict[str, ObjectInfo]:
        """Object keys become local paths: one that leads out of its folder stops the sync before anything is written."""
        for relpath in objects:
            inside(self.project.root / prefix, relpath.removeprefix(prefix),
                   f"{self.bucket.where} holds object {relpath}, whose name", where)
        return objects

    def remote_changes(self) -> list[RemoteChange]:
        """Pipeline files the bucket holds in another state than this folder last saw."""
        with self.lock:
            changes = []
            for relpath, info in sorted(self._remote_pipeline_files().items()):
                row = self.objects.synced(relpath)
                local = self.project.root / relpath
                if row is not None and row["etag"] == info.etag:
                    continue
                if not local.exists():
                    changes.append(RemoteChange(relpath, "new"))
                elif row is not None and self.objects.local_unchanged(relpath, row):
                    changes.append(RemoteChange(relpath, "changed"))
                elif row is None and self._adopt_if_equal(relpath):
                    continue
                else:
                    changes.append(RemoteChange(relpath, "conflict"))
            return changes

    def _adopt_if_equal(self, relpath: str) -> bool:
        """A local file never synced but equal to the object (e.g. both copied from one project)."""
        data, info = self.bucket.get(relpath)
        if sha(data) != file_sha256(self.project.root / relpath):
            return False
        self._take(relpath, data, info)
        return True

    def _take(self, relpath: str, data: bytes, info: ObjectInfo) -> None:
        self.objects.remember(relpath, info, sha(data))
        if info.version_id:
            self.versions.adopt(relpath, info.version_id, data)

    def pull(self, paths: list[str] | None = None, force: bool = False) -> list[dict]:
        """Bring the bucket's current objects into the folder; a local edit is never silently lost."""
        with self.lock:
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
                if change.state == "conflict" and local.exists():
                    self.versions.keep_local(change.path, local.read_bytes())
                data, info = self.bucket.get(change.path)
                atomic_write(local, data)
                self._take(change.path, data, info)
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
        pushed = []
        for relpath in self.local_pipeline_files():
            row = self.objects.synced(relpath)
            if row is not None and self.objects.local_unchanged(relpath, row):
                continue
            self.versions.record(relpath, (self.project.root / relpath).read_bytes())
            pushed.append(relpath)
        return pushed

    # -- landing zones -------------------------------------------------------------------
    def zones(self, namespace: str) -> list[str]:
        local = {z.name for ns in self.project.scan().namespaces if ns.name == namespace for z in ns.zones}
        return sorted(local | set(self.bucket.folders(f"{namespace}/landing/")))

    def _remote_zone_files(self, prefix: str) -> dict[str, ObjectInfo]:
        """Active files and samples of a zone, without listing its (ever growing) `_processed/`."""
        found, folders = self.bucket.level(prefix)
        for folder in folders:
            if folder not in _UNSYNCED_FOLDERS:
                found.update(self.bucket.list(f"{prefix}{folder}/"))
        return self._inside(found, prefix, f"landing zone {prefix.rstrip('/')}")

    def sync_zone(self, namespace: str, zone: str) -> dict:
        """Make the zone's active files and samples equal on both sides; `_processed/` moves itself.

        A file is deleted or overwritten here only when it is unchanged since it came from the
        bucket; a local file the bucket also changed is set aside under `_processed/`.
        """
        with self.lock:
            self.retry_restores()
            prefix = f"{namespace}/landing/{zone}/"
            remote = self._remote_zone_files(prefix)
            zone_dir = self.project.root / prefix
            local = {self.project.rel(p) for p in zone_dir.rglob("*") if p.is_file()} if zone_dir.is_dir() else set()
            local = {p for p in local if not _unsynced(p, prefix) and not Path(p).name.startswith(".")}
            done: dict[str, list[str]] = {"downloaded": [], "uploaded": [], "removed": [], "set_aside": []}
            for relpath, info in sorted(remote.items()):
                self._sync_remote_file(relpath, info, relpath in local, done)
            for relpath in sorted(local - set(remote)):
                row = self.objects.synced(relpath)
                if row is not None and self.objects.local_unchanged(relpath, row):
                    # it came from the bucket and was archived (or removed) there since
                    (self.project.root / relpath).unlink(missing_ok=True)
                    self.objects.forget(relpath)
                    done["removed"].append(relpath)
                else:
                    self._upload(relpath, None, done)
            return done

    def _sync_remote_file(self, relpath: str, info: ObjectInfo, here: bool, done: dict[str, list[str]]) -> None:
        row = self.objects.synced(relpath)
        path = self.project.root / relpath
        local_same = here and row is not None and self.objects.local_unchanged(relpath, row)
        if here and row is not None and row["etag"] == info.etag:
            if not local_same:  # replaced locally: the bucket gets the new file
                self._upload(relpath, info, done)
            return
        if here and not local_same:
            head = self.bucket.head(relpath)
            if head is not None and head.sha256 == file_sha256(path):
                self.objects.remember(relpath, head, head.sha256)
                return
            self._set_aside(relpath, done)
        self._download(relpath, done)

    def _set_aside(self, relpath: str, done: dict[str, list[str]]) -> None:
        """Both sides changed: the bucket's copy wins, ours is kept under `_processed/`."""
        kept = set_aside(self.project.root / relpath)
        log.warning("%s changed here and in the bucket; the local copy is kept as %s", relpath, kept)
        done["set_aside"].append(self.project.rel(kept))

    def _download(self, relpath: str, done: dict[str, list[str]]) -> None:
        data, fresh = self.bucket.get(relpath)
        atomic_write(self.project.root / relpath, data)
        self.objects.remember(relpath, fresh, sha(data))
        done["downloaded"].append(relpath)

    def sync_landing(self, namespace: str) -> dict:
        totals: dict[str, list[str]] = {"downloaded": [], "uploaded": [], "removed": [], "set_aside": []}
        for zone in self.zones(namespace):
            for key, paths in self.sync_zone(namespace, zone).items():
                totals[key] += paths
        return totals

    def _upload(self, relpath: str, expected: ObjectInfo | None, done: dict[str, list[str]]) -> None:
        """Upload over exactly the object we saw (or none); if someone else's got there first, theirs wins."""
        try:
            info = self.bucket.put(relpath, self.project.root / relpath, expected=expected)
        except PreconditionFailed:
            self._set_aside(relpath, done)
            self._download(relpath, done)
            return
        self.objects.remember(relpath, info, info.sha256 or file_sha256(self.project.root / relpath))
        done["uploaded"].append(relpath)

    # -- archival in the bucket ------------------------------------------------------------
    def archive(self, zone_relpath: str, names: list[str], run_id: str) -> None:
        """Move objects into `_processed/<run_id>/` (copy, then delete); undone entirely on failure."""
        with self.lock:
            try:
                for name in names:
                    source, target = f"{zone_relpath}/{name}", f"{zone_relpath}/_processed/{run_id}/{name}"
                    if self.bucket.head(source) is None:
                        log.warning("%s is not in %s; archived locally only", source, self.bucket.where)
                        continue
                    self.bucket.copy(source, target)
                    testpoints.reached("during:bucket_archive")  # copied, not yet deleted
                    self.bucket.delete(source)
                    self.objects.forget(source)
            except Exception:
                try:
                    self.restore(zone_relpath, run_id)
                except RatError:
                    pass  # unreachable: remembered, and retried before the zone is next read
                raise

    def restore(self, zone_relpath: str, run_id: str) -> list[str]:
        """Put a run's archived objects back; an object whose name is taken again stays archived.

        The intent is written down first, so a restore cut short (unreachable bucket, crash)
        is finished by `retry_restores` before the zone is next read.
        """
        with self.lock:
            self.state.execute("INSERT OR IGNORE INTO s3_pending_restores VALUES (?, ?)", (zone_relpath, run_id))
            restored = self._restore(zone_relpath, run_id)
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
        for relpath, archived in sorted(self.bucket.list(prefix).items()):
            original = f"{zone_relpath}/{relpath[len(prefix):]}"
            present = self.bucket.head(original)
            archived = self.bucket.head(relpath) or archived
            if present is None:
                self.bucket.copy(relpath, original)
                restored.append(original)
            elif not present.same_content(archived):
                log.warning("%s came back into the zone meanwhile; the archived copy stays in %s", original, prefix)
                continue
            self.bucket.delete(relpath)  # the original is in place (or a crashed move never deleted it)
        return restored


# `_processed/` moves itself (archive, restore); typed twins are a local cache, made again where needed.
_UNSYNCED_FOLDERS = ("_processed", TYPED_TWIN_FOLDER)


def _unsynced(relpath: str, zone_prefix: str) -> bool:
    return relpath[len(zone_prefix):].split("/", 1)[0] in _UNSYNCED_FOLDERS


def set_aside(path: Path) -> Path:
    """Move a local landing file out of the way, into `_processed/` like a replaced upload."""
    zone_dir = path.parent
    while zone_dir.parent.name != "landing":
        zone_dir = zone_dir.parent
    target = kept_copy_folder(zone_dir, "local") / path.relative_to(zone_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    path.replace(target)
    return target
