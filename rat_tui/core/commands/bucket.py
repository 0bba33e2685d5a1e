"""The project's bucket: connect, status, pull, push."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import RatError

if TYPE_CHECKING:
    from ..remote.storage import BucketStorage, Connected, Pushed
    from ..remote.sync import RemoteChange


@dataclass(frozen=True)
class RemoteStatus:
    """What the bucket has that this folder lacks, or that both changed."""

    bucket: str
    changes: list[RemoteChange]

    def as_dict(self) -> dict[str, Any]:
        return {"bucket": self.bucket, "changes": [c.as_dict() for c in self.changes]}


@dataclass(frozen=True)
class Pulled:
    pulled: list[dict[str, Any]]  # the files brought in, as the bucket sync reports them

    def as_dict(self) -> dict[str, Any]:
        return {"pulled": self.pulled}


class Bucket:
    def __init__(self, remote: BucketStorage | None):
        self.remote = remote  # None: the project keeps its files in its folder

    def _remote(self) -> BucketStorage:
        if self.remote is None:
            raise RatError("this project has no bucket: set storage.type: s3 (and storage.bucket) in rat.yaml")
        return self.remote

    def connect_remote(self) -> Connected:
        return self._remote().connect()

    def remote_status(self) -> RemoteStatus:
        remote = self._remote()
        remote.ensure_connected()
        return RemoteStatus(remote.bucket.where, remote.status())

    def pull(self, paths: list[str] | None = None, force: bool = False) -> Pulled:
        remote = self._remote()
        remote.ensure_connected()
        return Pulled(remote.pull(paths, force))

    def push(self) -> Pushed:
        """Upload the working folder's pipelines and landing zones (e.g. a project moving to a bucket)."""
        remote = self._remote()
        remote.bucket.check()
        return remote.push()
