"""The storage seam: where the project's files, file versions and landing archive live.

`Storage` is a purely local project: the folder is the only copy. `remote.storage.BucketStorage`
adds a versioned S3 bucket behind the same methods. `open_storage` (core/compose.py) is
the one place that chooses; everything else (runs, versions, purge, the commands) talks to this
interface and never to the bucket, so a local project never imports boto3.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .fileio import resolved
from .landing.archive import LandingArchive

if TYPE_CHECKING:
    from .project.model import PipelineRef, Project
    from .store.versions import PublishedVersion


class Storage:
    """A project kept only in its local folder."""

    is_bucket = False

    def __init__(self, project: Project):
        self.project = project
        self.landing_archive = LandingArchive()

    # -- what Spark reads and writes ------------------------------------------------------
    def warehouse_uri(self, namespace: str) -> str:
        return self.project.warehouse_dir(namespace).resolve().as_uri()

    def landing_uri(self, path: Path) -> str:
        # Not `as_uri()`: Spark does not decode its %-escapes (`my%20file.csv` does not exist);
        # Hadoop's glob characters are escaped so `a[1].csv` is that file, not a pattern.
        return "file:" + re.sub(r"([\\{}\[\]*?])", r"\\\1", str(resolved(path)))

    def spark_conf(self) -> dict[str, str]:
        """Extra Spark settings the storage needs (S3A, in direct mode)."""
        return {}

    # -- published versions and pipeline files --------------------------------------------
    def pull_published(self) -> None:
        """Bring in versions published elsewhere (nothing to do for a local folder)."""

    def publish(self, ref: PipelineRef, pin: Callable[[], PublishedVersion], keep: int) -> PublishedVersion:
        return pin()

    def file_replaced(self, relpath: str, data: bytes) -> None:
        """A pipeline file the app rewrote (a restore): a bucket records it as a new object version."""

    def file_deleted(self, relpath: str) -> None:
        """A pipeline file deleted here (in the editor, or by a restore)."""

    def pipeline_state(self, ref: PipelineRef) -> str | None:
        """new / changed / conflict when a newer version of the pipeline waits elsewhere."""
        return None

    # -- landing --------------------------------------------------------------------------
    def prepare_run(self, ref: PipelineRef) -> None:
        """Before a run, in its thread: the landing files it reads are in place."""

    def zone_changed(self, namespace: str, zone: str) -> None:
        """Files were uploaded into a zone."""

    def processed_objects(self, zone_relpath: str) -> dict[str, Any]:
        """Archived landing objects kept outside this folder: {relpath: info with .size and .modified}."""
        return {}

    def delete_object(self, relpath: str) -> None:
        raise NotImplementedError("a local project keeps no objects outside its folder")

