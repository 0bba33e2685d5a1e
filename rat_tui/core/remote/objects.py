"""Pipeline files as object versions in the bucket, and what this folder last knew of each object.

`s3_synced` remembers, per project path, the object (ETag, VersionId) and the local content
(sha256, size, mtime) last known to be equal; comparing both sides against it tells a local
edit from a remote one. The version store keeps file versions here (`RemoteVersions`) and the
folder sync (sync.py) reads and updates the same record. Their one lock serialises every bucket
operation of both: syncs, pulls, uploads and archival moves of different threads (runs, TUI
workers) never interleave.
"""
from __future__ import annotations

import hashlib
import threading

from ..errors import RatError
from ..fileio import file_sha256
from ..project.model import Project
from ..store.state import StateDB
from .bucket import Bucket, ObjectInfo, PreconditionFailed

_SCHEMA = """
CREATE TABLE IF NOT EXISTS s3_synced (
    relpath TEXT PRIMARY KEY,
    etag TEXT NOT NULL,
    version_id TEXT,
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,          -- -1: compare by sha256 (the local file was not the uploaded content)
    mtime_ns INTEGER NOT NULL
);
"""


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class SyncedObjects:
    """Implements `RemoteVersions` for the version store, on the record the folder sync shares."""

    def __init__(self, project: Project, bucket: Bucket, state: StateDB):
        self.project = project
        self.bucket = bucket
        self.state = state
        self.lock = threading.RLock()
        state.script(_SCHEMA)

    # -- the record ------------------------------------------------------------------
    def synced(self, relpath: str):
        return self.state.query_one("SELECT * FROM s3_synced WHERE relpath = ?", (relpath,))

    def remember(self, relpath: str, info: ObjectInfo, digest: str) -> None:
        """The object we wrote or read; the local file's size and mtime only if it holds that content."""
        path = self.project.root / relpath
        size, mtime = -1, 0
        if path.is_file():
            stat = path.stat()
            if file_sha256(path) == digest:
                size, mtime = stat.st_size, stat.st_mtime_ns
        self.state.execute("INSERT OR REPLACE INTO s3_synced VALUES (?, ?, ?, ?, ?, ?)",
                           (relpath, info.etag, info.version_id, digest, size, mtime))

    def forget(self, relpath: str) -> None:
        self.state.execute("DELETE FROM s3_synced WHERE relpath = ?", (relpath,))

    def local_unchanged(self, relpath: str, row) -> bool:
        path = self.project.root / relpath
        if not path.is_file():
            return False
        stat = path.stat()
        if row["size"] >= 0 and (stat.st_size, stat.st_mtime_ns) == (row["size"], row["mtime_ns"]):
            return True
        return file_sha256(path) == row["sha256"]

    # -- RemoteVersions ----------------------------------------------------------------
    def put(self, relpath: str, data: bytes) -> str:
        """Upload a saved file as a new object version, unless someone else changed the object meanwhile.

        The write is conditional on the ETag last seen (or on there being no object), so a
        colleague's upload that lands between our check and our write is never overwritten.
        """
        digest = sha(data)
        with self.lock:
            row = self.synced(relpath)
            if row is not None and row["sha256"] == digest and row["version_id"]:
                return row["version_id"]  # the bucket already has exactly this content
            current = self.bucket.head(relpath)
            if current is not None and current.sha256 == digest and current.version_id:
                self.remember(relpath, current, digest)
                return current.version_id
            if current is not None and (row is None or current.etag != row["etag"]):
                raise self._conflict(relpath)
            try:
                info = self.bucket.put(relpath, data, expected=current)
            except PreconditionFailed:
                raise self._conflict(relpath) from None
            if not info.version_id or info.version_id == "null":
                raise RatError(f"{self.bucket.where} returned no object version for {relpath}: versioning is off")
            self.remember(relpath, info, digest)
            return info.version_id

    def _conflict(self, relpath: str) -> RatError:
        return RatError(f"{relpath} was changed in {self.bucket.where} since this copy was pulled; "
                        "pull it first (your edit is kept as a local version), then save again")

    def get(self, relpath: str, version_id: str) -> bytes:
        data, _ = self.bucket.get(relpath, version_id)
        return data

    def delete(self, relpath: str) -> None:
        """A pipeline file removed here is removed in the bucket (its versions stay until they expire)."""
        with self.lock:
            row = self.synced(relpath)
            if row is None:
                return
            current = self.bucket.head(relpath)
            if current is not None and current.etag != row["etag"]:
                raise self._conflict(relpath)
            if current is not None:
                self.bucket.delete(relpath)
            self.forget(relpath)
