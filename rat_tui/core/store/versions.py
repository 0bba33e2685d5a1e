"""File versions and published pipeline versions, S3-style, for a local folder.

Every distinct content of a pipeline file gets an immutable version (a content-addressed
blob in `.rat/objects/` plus a row in state.db). Publishing pins the version ids of all
of a pipeline's files; rolling back re-pins an earlier set as a new version. History is
never rewritten: a rollback adds a version, it does not remove one.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..errors import RatError

log = logging.getLogger(__name__)
from ..project.model import PipelineRef
from .state import StateDB

_SCHEMA = """
CREATE TABLE IF NOT EXISTS file_versions (
    version_id TEXT PRIMARY KEY,
    relpath TEXT NOT NULL,          -- relative to the project root
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS file_versions_by_path ON file_versions (relpath, created_at);
CREATE TABLE IF NOT EXISTS published_versions (
    pipeline TEXT NOT NULL,
    version INTEGER NOT NULL,
    message TEXT NOT NULL,
    published_at REAL NOT NULL,
    files TEXT NOT NULL,            -- {path relative to the pipeline folder: version_id}
    pinned_from INTEGER,
    PRIMARY KEY (pipeline, version)
);
"""


@dataclass(frozen=True)
class FileVersion:
    version_id: str
    relpath: str
    sha256: str
    size: int
    created_at: float


@dataclass(frozen=True)
class PublishedVersion:
    pipeline: str
    version: int
    message: str
    published_at: float
    files: dict[str, str]
    pinned_from: int | None

    def as_dict(self) -> dict:
        return {"version": self.version, "message": self.message, "published_at": self.published_at,
                "files": self.files, "pinned_from": self.pinned_from}


class RemoteVersions(Protocol):
    """Where file versions really live when the project is on a versioned bucket."""

    def put(self, relpath: str, data: bytes) -> str:
        """Store a new version; its id (the S3 VersionId)."""

    def get(self, relpath: str, version_id: str) -> bytes: ...


LOCAL_ONLY = "local-"  # ids of versions kept only on this machine (a working copy set aside by a pull)


class VersionStore:
    """Version rows in state.db; content in local blobs and, with a bucket, in its object versions.

    With a remote, a version's id is the bucket's VersionId and the local blob is a cache
    (and a safety net should the bucket's lifecycle rule expire a pinned version).
    """

    def __init__(self, state: StateDB, objects: Path, clock=time.time, remote: RemoteVersions | None = None):
        self.state = state
        self.objects = objects
        self.clock = clock
        self.remote = remote
        state.script(_SCHEMA)

    # -- blobs ----------------------------------------------------------------------
    def _blob_path(self, sha: str) -> Path:
        return self.objects / sha[:2] / sha[2:]

    def _write_blob(self, sha: str, data: bytes) -> None:
        path = self._blob_path(sha)
        if path.exists() and hashlib.sha256(path.read_bytes()).hexdigest() == sha:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        with temp.open("wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temp, path)  # a crash leaves a stray temp file, never a torn blob under its name

    def read(self, version_id: str) -> bytes:
        version = self.get(version_id)
        path = self._blob_path(version.sha256)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            if self.remote is None or version_id.startswith(LOCAL_ONLY):
                raise RatError(f"file version {version_id} of {version.relpath} has lost its content (blob missing)") from None
            data = self.remote.get(version.relpath, version_id)
            if hashlib.sha256(data).hexdigest() == version.sha256:
                self._write_blob(version.sha256, data)
        if hashlib.sha256(data).hexdigest() != version.sha256:
            raise RatError(f"file version {version_id} of {version.relpath} is damaged (checksum mismatch); not served")
        return data

    def blob_ok(self, version: FileVersion) -> bool:
        path = self._blob_path(version.sha256)
        return path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == version.sha256

    # -- file versions ----------------------------------------------------------------
    def _row(self, row) -> FileVersion:
        return FileVersion(row["version_id"], row["relpath"], row["sha256"], row["size"], row["created_at"])

    def get(self, version_id: str) -> FileVersion:
        row = self.state.query_one("SELECT * FROM file_versions WHERE version_id = ?", (version_id,))
        if row is None:
            raise RatError(f"no file version {version_id}")
        return self._row(row)

    def latest(self, relpath: str) -> FileVersion | None:
        row = self.state.query_one(
            "SELECT * FROM file_versions WHERE relpath = ? ORDER BY created_at DESC, rowid DESC LIMIT 1", (relpath,))
        return self._row(row) if row else None

    def history(self, relpath: str) -> list[FileVersion]:
        rows = self.state.query("SELECT * FROM file_versions WHERE relpath = ? ORDER BY created_at, rowid", (relpath,))
        return [self._row(r) for r in rows]

    def all_versions(self) -> list[FileVersion]:
        return [self._row(r) for r in self.state.query("SELECT * FROM file_versions ORDER BY created_at, rowid")]

    def record(self, relpath: str, data: bytes) -> str:
        """The version id of this content; a new version only when the content changed.

        With a remote the bucket decides (its current object, or an upload); a failed upload
        records nothing.
        """
        sha = hashlib.sha256(data).hexdigest()
        if self.remote is not None:
            version_id = self.remote.put(relpath, data)
            self.adopt(relpath, version_id, data)
            return version_id
        latest = self.latest(relpath)
        if latest is not None and latest.sha256 == sha and self.blob_ok(latest):
            return latest.version_id
        self._write_blob(sha, data)
        version_id = self._new_id()
        self._insert(version_id, relpath, data)
        return version_id

    def keep_local(self, relpath: str, data: bytes) -> str:
        """Set a working copy aside on this machine only (before a pull overwrites it)."""
        self._write_blob(hashlib.sha256(data).hexdigest(), data)
        version_id = f"{LOCAL_ONLY}{self._new_id()}"
        self._insert(version_id, relpath, data)
        return version_id

    def adopt(self, relpath: str, version_id: str, data: bytes) -> None:
        """Know a version that is already in the bucket (ours or someone else's), without uploading it."""
        self._write_blob(hashlib.sha256(data).hexdigest(), data)
        self._insert(version_id, relpath, data)

    def _new_id(self) -> str:
        return f"{int(self.clock() * 1000):x}{secrets.token_hex(4)}"

    def _insert(self, version_id: str, relpath: str, data: bytes) -> None:
        self.state.execute("INSERT OR IGNORE INTO file_versions VALUES (?, ?, ?, ?, ?)",
                           (version_id, relpath, hashlib.sha256(data).hexdigest(), len(data), self.clock()))

    def delete_versions(self, version_ids: list[str]) -> int:
        """Forget file versions (purge); blobs no other version uses are removed too."""
        doomed = [self.get(v) for v in version_ids]
        for version in doomed:
            self.state.execute("DELETE FROM file_versions WHERE version_id = ?", (version.version_id,))
        for sha in {v.sha256 for v in doomed}:
            if self.state.query_one("SELECT 1 FROM file_versions WHERE sha256 = ?", (sha,)) is None:
                self._blob_path(sha).unlink(missing_ok=True)
        return len(doomed)

    # -- published versions --------------------------------------------------------------
    def _published(self, row) -> PublishedVersion:
        return PublishedVersion(row["pipeline"], row["version"], row["message"], row["published_at"],
                                json.loads(row["files"]), row["pinned_from"])

    def published(self, ref: PipelineRef) -> list[PublishedVersion]:
        rows = self.state.query("SELECT * FROM published_versions WHERE pipeline = ? ORDER BY version", (ref.fqn,))
        return [self._published(r) for r in rows]

    def current(self, ref: PipelineRef) -> PublishedVersion | None:
        versions = self.published(ref)
        return versions[-1] if versions else None

    def all_published(self) -> list[PublishedVersion]:
        return [self._published(r) for r in self.state.query("SELECT * FROM published_versions")]

    def pin(self, ref: PipelineRef, files: dict[str, str], message: str, pinned_from: int | None) -> PublishedVersion:
        current = self.current(ref)
        number = (current.version if current else 0) + 1
        self.state.execute(
            "INSERT INTO published_versions VALUES (?, ?, ?, ?, ?, ?)",
            (ref.fqn, number, message, self.clock(), json.dumps(files, sort_keys=True), pinned_from),
        )
        return self.current(ref)  # type: ignore[return-value]

    def prune(self, ref: PipelineRef, keep: int) -> None:
        """Keep the newest `keep` published versions (retention.max_versions)."""
        current = self.current(ref)
        if current is not None:
            self.state.execute("DELETE FROM published_versions WHERE pipeline = ? AND version <= ?",
                               (ref.fqn, current.version - keep))

    def unpin(self, ref: PipelineRef, number: int) -> None:
        """Take back a pin that could not be shared (the bucket refused it)."""
        self.state.execute("DELETE FROM published_versions WHERE pipeline = ? AND version = ?", (ref.fqn, number))

    def export_published(self, ref: PipelineRef, keep: int) -> list[dict]:
        """The newest `keep` published versions with what a reader needs to fetch and verify each pinned file."""
        exported = []
        for version in self.published(ref)[-keep:]:
            content = {}
            for version_id in version.files.values():
                known = self.get(version_id)
                content[version_id] = {"relpath": known.relpath, "sha256": known.sha256, "size": known.size}
            exported.append({**version.as_dict(), "content": content})
        return exported

    def import_published(self, fqn: str, versions: list[dict]) -> int:
        """Published versions made elsewhere (through the bucket, which is the authority: a local
        version with the same number but other pins is replaced); returns how many changed here."""
        changed = 0
        for version in versions:
            for version_id, known in version.get("content", {}).items():
                self.state.execute("INSERT OR IGNORE INTO file_versions VALUES (?, ?, ?, ?, ?)",
                                   (version_id, known["relpath"], known["sha256"], known["size"], version["published_at"]))
            files = json.dumps(version["files"], sort_keys=True)
            row = self.state.query_one("SELECT files FROM published_versions WHERE pipeline = ? AND version = ?",
                                       (fqn, version["version"]))
            if row is not None and row["files"] == files:
                continue
            if row is not None:
                log.warning("published version %s of %s differs from the bucket's; the bucket's is kept",
                            version["version"], fqn)
            self.state.execute("INSERT OR REPLACE INTO published_versions VALUES (?, ?, ?, ?, ?, ?)", (
                fqn, version["version"], version["message"], version["published_at"], files, version.get("pinned_from")))
            changed += 1
        return changed

    def pinned_ids(self) -> set[str]:
        return {vid for p in self.all_published() for vid in p.files.values()}

    def read_pinned(self, ref: PipelineRef, version: PublishedVersion) -> dict[str, bytes]:
        base = ref.relpath.as_posix()
        files = {}
        for name, version_id in version.files.items():
            data = self.read(version_id)
            if self.get(version_id).relpath != f"{base}/{name}":
                raise RatError(f"published version {version.version} of {ref.fqn} pins {version_id} for {name}, "
                               "but that version belongs to another file")
            files[name] = data
        return files
