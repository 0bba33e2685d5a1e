"""Published versions shared through the bucket, so a colleague's `run --published` runs the same pins.

Each pipeline's list lives in `.rat/published/<ns.layer.name>.json` (no namespace folder, so
it is never taken for project content). A publish writes it conditionally on the ETag it
last read: two people publishing the same pipeline at once never overwrite each other.
"""
from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from pathlib import Path

from ..errors import RatError
from ..project.model import PipelineRef
from ..project.names import name_problem
from ..project.paths import inside
from ..store.state import StateDB
from ..store.versions import PublishedVersion, VersionStore
from .bucket import Bucket, PreconditionFailed

log = logging.getLogger(__name__)
PUBLISHED_PREFIX = ".rat/published/"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS s3_published_seen (relpath TEXT PRIMARY KEY, etag TEXT NOT NULL);
"""


class PublishedSync:
    def __init__(self, bucket: Bucket, versions: VersionStore, state: StateDB, root: Path):
        self.bucket, self.versions, self.state = bucket, versions, state
        self.versions_root = root  # the project folder, where pinned files are restored
        self._lock = threading.Lock()
        state.script(_SCHEMA)

    @staticmethod
    def _key(fqn: str) -> str:
        return f"{PUBLISHED_PREFIX}{fqn}.json"

    def _seen(self, relpath: str) -> str | None:
        row = self.state.query_one("SELECT etag FROM s3_published_seen WHERE relpath = ?", (relpath,))
        return row["etag"] if row else None

    def _mark_seen(self, relpath: str, etag: str) -> None:
        self.state.execute("INSERT OR REPLACE INTO s3_published_seen VALUES (?, ?)", (relpath, etag))

    def _import(self, relpath: str) -> int:
        """One pipeline's list; a damaged one is reported in the log and skipped until it changes."""
        data, info = self.bucket.get(relpath)
        try:
            document = json.loads(data)
            self._check_names(relpath, document["pipeline"], document["versions"])
            self._mark_seen(relpath, info.etag)
            return self.versions.import_published(document["pipeline"], document["versions"])
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            self._mark_seen(relpath, info.etag)
            log.error("%s in %s is not a published-versions list (%s); skipped", relpath, self.bucket.where, exc)
            return 0

    def _check_names(self, relpath: str, fqn: str, versions: list[dict]) -> None:
        """Every file a list pins (names and recorded paths) lies in that pipeline's folder: a restore
        writes them there. Otherwise one sentence, and the list is not imported (nor marked seen)."""
        ref = PipelineRef.parse(fqn)
        for part, kind in zip((ref.namespace, ref.name), ("namespace", "pipeline")):
            problem = name_problem(kind, part)
            if problem:
                raise RatError(f"{relpath} in {self.bucket.where}: {problem}")
        folder, base = self.versions_root / ref.relpath, ref.relpath.as_posix()
        where = f"pipeline folder {base}"
        for version in versions:
            what = f"{relpath} in {self.bucket.where} pins a file whose name"
            for name in version["files"]:
                inside(folder, name, what, where)
            for known in version.get("content", {}).values():
                inside(folder, known["relpath"].removeprefix(base + "/"), what, where)
                if not known["relpath"].startswith(base + "/"):
                    raise RatError(f"{what} '{known['relpath']}' is outside {where}; names must stay inside it")

    def pull(self) -> int:
        """Import the versions colleagues published since the last look; how many changed here."""
        with self._lock:
            return sum(self._import(relpath) for relpath, info in sorted(self.bucket.list(PUBLISHED_PREFIX).items())
                       if relpath.endswith(".json") and self._seen(relpath) != info.etag)

    def publish(self, ref: PipelineRef, pin: Callable[[], PublishedVersion], keep: int) -> PublishedVersion:
        """Pin here, then share; a pin the bucket refuses (or that fails to go up) is taken back."""
        key = self._key(ref.fqn)
        with self._lock:
            current = self.bucket.head(key)
            if current is not None and self._seen(key) != current.etag:
                self._import(key)  # number the new version after everything already published
            version = pin()
            try:
                document = {"pipeline": ref.fqn, "versions": self.versions.export_published(ref, keep)}
                info = self.bucket.put(key, json.dumps(document, indent=1, sort_keys=True).encode(), expected=current)
            except PreconditionFailed:
                self.versions.unpin(ref, version.version)
                raise RatError(f"someone else published {ref.fqn} at the same moment; nothing was published, "
                               "publish again") from None
            except BaseException:
                self.versions.unpin(ref, version.version)
                raise
            self._mark_seen(key, info.etag)
            return version
