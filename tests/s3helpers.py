"""Projects whose shared copy lives in a bucket of the test S3 server."""
from __future__ import annotations

import itertools
import os
import shutil
from pathlib import Path

from devkit.s3server import SeaweedServer, storage_yaml

_buckets = itertools.count(1)


# The sample pipeline the bucket tests publish and edit.
PIPE = "ecommerce/pipelines/silver/clean_orders"
FQN = "ecommerce.silver.clean_orders"


def new_bucket(server: SeaweedServer, versioned: bool = True) -> str:
    return server.make_bucket(f"rat-{os.getpid()}-{next(_buckets)}", versioned)


def bucket_project(folder: Path, server: SeaweedServer, bucket: str, source: Path | None = None,
                   retry_seconds: float = 20) -> Path:
    """A working folder on `bucket`: a copy of `source` (to push), or empty (to pull into)."""
    if source is not None:
        shutil.copytree(source, folder, ignore=shutil.ignore_patterns(".rat", "warehouse", "__pycache__"))
    folder.mkdir(parents=True, exist_ok=True)
    settings = folder / "rat.yaml"
    kept = settings.read_text() if settings.exists() else ""
    settings.write_text(kept + storage_yaml(server, bucket, retry_seconds))
    return folder


def keys(server: SeaweedServer, bucket: str, prefix: str = "") -> list[str]:
    pages = server.client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
    return sorted(item["Key"] for page in pages for item in page.get("Contents", []))


def versions_of(server: SeaweedServer, bucket: str, key: str) -> list[dict]:
    reply = server.client().list_object_versions(Bucket=bucket, Prefix=key)
    return [v for v in reply.get("Versions", []) if v["Key"] == key]
