"""The project's bucket: connect, status, pull, push."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import RatError

if TYPE_CHECKING:
    from ..remote.storage import BucketStorage


class Bucket:
    def __init__(self, remote: BucketStorage | None):
        self.remote = remote  # None: the project keeps its files in its folder

    def _remote(self) -> BucketStorage:
        if self.remote is None:
            raise RatError("this project has no bucket: set storage.type: s3 (and storage.bucket) in rat.yaml")
        return self.remote

    def connect_remote(self) -> dict:
        return self._remote().connect()

    def remote_status(self) -> dict:
        remote = self._remote()
        remote.ensure_connected()
        return {"bucket": remote.bucket.where, "changes": [c.as_dict() for c in remote.status()]}

    def pull(self, paths: list[str] | None = None, force: bool = False) -> dict:
        remote = self._remote()
        remote.ensure_connected()
        return {"pulled": remote.pull(paths, force)}

    def push(self) -> dict:
        """Upload the working folder's pipelines and landing zones (e.g. a project moving to a bucket)."""
        remote = self._remote()
        remote.bucket.check()
        return remote.push()
