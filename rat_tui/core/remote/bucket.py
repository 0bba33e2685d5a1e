"""One versioned bucket through boto3: every call retried on throttling, 5xx and lost connections.

Retries use exponential backoff with full jitter, bounded by `retry_seconds`; a refused
credential fails at once, since waiting never fixes it.
"""
from __future__ import annotations

import hashlib
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import boto3
import botocore.exceptions
from botocore.config import Config

from ..errors import RatError
from ..fileio import file_sha256
from ..text import one_line
from .config import S3Config

log = logging.getLogger(__name__)
T = TypeVar("T")

_AUTH_CODES = {"InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "ExpiredToken", "InvalidToken",
               "AuthorizationHeaderMalformed", "InvalidClientTokenId", "AccountProblem"}
_RETRY_CODES = {"SlowDown", "Throttling", "ThrottlingException", "RequestTimeout", "ServiceUnavailable",
                "InternalError", "RequestLimitExceeded", "TooManyRequests"}
_CONNECTION_ERRORS = (botocore.exceptions.HTTPClientError, botocore.exceptions.ConnectionError)
_BACKOFF_BASE = 0.2
_BACKOFF_CAP = 5.0
SHA_METADATA = "sha256"  # stored with every object we write, so content is verifiable without downloading


class ObjectMissing(RatError):
    """The object (or version, or bucket) is not there."""


class PreconditionFailed(RatError):
    """A conditional write lost: the object changed since we last saw it."""


@dataclass(frozen=True)
class ObjectInfo:
    key: str
    etag: str
    size: int
    version_id: str | None = None
    sha256: str | None = None
    modified: float | None = None  # seconds since the epoch (from listings)

    def __post_init__(self) -> None:
        object.__setattr__(self, "etag", _etag(self.etag))  # some replies quote it, some do not

    def same_content(self, other: "ObjectInfo") -> bool:
        """Equal content, judged by sha256 when both have it (we wrote them), else by ETag."""
        if self.sha256 and other.sha256:
            return self.sha256 == other.sha256
        return self.etag == other.etag


def _etag(value: str) -> str:
    return value.strip('"')


def error_code(exc: Exception) -> str:
    if isinstance(exc, botocore.exceptions.ClientError):
        return str(exc.response.get("Error", {}).get("Code", ""))
    return ""


def _status(exc: botocore.exceptions.ClientError) -> int:
    return int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0)


def _is_missing(exc: botocore.exceptions.ClientError) -> bool:
    return error_code(exc) in {"NoSuchKey", "NoSuchVersion", "NoSuchBucket", "404", "NotFound"} or _status(exc) == 404


class Bucket:
    def __init__(self, config: S3Config, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic):
        self.config = config
        self.sleep, self.clock = sleep, clock  # injectable so the backoff can be checked without waiting
        self.where = f"bucket {config.bucket}" + (f" at {config.endpoint}" if config.endpoint else "")
        session = boto3.session.Session()  # credentials from the AWS environment variables or profile
        self.client = session.client(
            "s3", endpoint_url=config.endpoint, region_name=config.region,
            config=Config(s3={"addressing_style": "path" if config.path_style else "auto"},
                          retries={"total_max_attempts": 1}, connect_timeout=5, read_timeout=60),
        )

    # -- the retry loop --------------------------------------------------------------
    def call(self, what: str, operation: Callable[[], T]) -> T:
        """Run one S3 operation; `what` names it in messages ("the upload of ns/pipelines/...").

        Every failure leaves as a RatError: ObjectMissing, PreconditionFailed, or one sentence.
        """
        deadline = self.clock() + self.config.retry_seconds
        attempt = 0
        while True:
            attempt += 1
            try:
                return operation()
            except botocore.exceptions.NoCredentialsError:
                raise RatError(f"no S3 credentials for {self.where}: set AWS_ACCESS_KEY_ID and "
                               "AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) in the environment") from None
            except botocore.exceptions.ClientError as exc:
                code = error_code(exc)
                if code in _AUTH_CODES or _status(exc) == 403:
                    raise RatError(f"{self.where} refused the credentials ({code or 'HTTP 403'}) during {what}: "
                                   "check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or AWS_PROFILE") from None
                if _is_missing(exc):
                    raise ObjectMissing(f"{what}: not found in {self.where} ({code or 'HTTP 404'})") from None
                if code == "PreconditionFailed" or _status(exc) == 412:
                    raise PreconditionFailed(f"{what}: the object changed in {self.where} meanwhile") from None
                if not (code in _RETRY_CODES or _status(exc) >= 500 or _status(exc) == 429):
                    message = exc.response.get("Error", {}).get("Message", "")
                    raise RatError(f"{self.where} rejected {what}: {code} {message}".rstrip()) from None
                reason = f"{code} (HTTP {_status(exc)})"
            except botocore.exceptions.EndpointConnectionError:
                reason = "the endpoint cannot be reached"
            except _CONNECTION_ERRORS as exc:
                reason = one_line(str(exc))
            pause = random.uniform(0, min(_BACKOFF_CAP, _BACKOFF_BASE * 2 ** attempt))
            if self.clock() + pause > deadline:
                raise RatError(f"{self.where} did not complete {what} after {attempt} attempt(s) over "
                               f"{self.config.retry_seconds:g} s: {reason}") from None
            log.warning("%s: %s failed (%s); retry %d in %.1f s", self.where, what, reason, attempt, pause)
            self.sleep(pause)

    # -- bucket ----------------------------------------------------------------------
    def check(self) -> None:
        """The bucket exists, the credentials work and versioning is on; otherwise one clear sentence."""
        try:
            self.call("a bucket check", lambda: self.client.head_bucket(Bucket=self.config.bucket))
        except ObjectMissing:
            raise RatError(f"{self.where} does not exist; create it (docker-compose.minio.yml does)") from None
        status = self.call("reading the versioning status",
                           lambda: self.client.get_bucket_versioning(Bucket=self.config.bucket)).get("Status")
        if status != "Enabled":
            raise RatError(
                f"{self.where} does not have versioning enabled (status: {status or 'never enabled'}); "
                "publish and rollback pin object versions, so enable it: "
                f"`mc version enable ALIAS/{self.config.bucket}` or `aws s3api put-bucket-versioning "
                f"--bucket {self.config.bucket} --versioning-configuration Status=Enabled`")

    # -- objects -------------------------------------------------------------------
    def put(self, relpath: str, body: bytes | Path, expected: ObjectInfo | None | bool = False) -> ObjectInfo:
        """Write an object (a new version of it) with its sha256 in the metadata.

        `expected` makes the write conditional: an ObjectInfo means "only over that ETag", None
        means "only if there is no object yet"; a lost race raises PreconditionFailed.
        """
        key = self.config.key(relpath)
        sha = hashlib.sha256(body).hexdigest() if isinstance(body, bytes) else file_sha256(body)
        condition: dict[str, str] = {}
        if expected is None:
            condition["IfNoneMatch"] = "*"
        elif isinstance(expected, ObjectInfo):
            condition["IfMatch"] = expected.etag

        def attempt() -> dict:
            if isinstance(body, bytes):
                return self.client.put_object(Bucket=self.config.bucket, Key=key, Body=body,
                                              Metadata={SHA_METADATA: sha}, **condition)
            with body.open("rb") as fh:  # reopened on every attempt: a retry starts from byte 0
                return self.client.put_object(Bucket=self.config.bucket, Key=key, Body=fh,
                                              Metadata={SHA_METADATA: sha}, **condition)

        try:
            reply = self.call(f"the upload of {relpath}", attempt)
        except PreconditionFailed:
            landed = self.head(relpath)
            if landed is None or landed.sha256 != sha:
                raise
            return landed  # an earlier attempt was written but its reply was lost: that is our object
        size = len(body) if isinstance(body, bytes) else body.stat().st_size
        return ObjectInfo(relpath, reply["ETag"], size, reply.get("VersionId"), sha)

    def head(self, relpath: str) -> ObjectInfo | None:
        try:
            reply = self.call(f"reading {relpath}", lambda: self.client.head_object(
                Bucket=self.config.bucket, Key=self.config.key(relpath)))
        except ObjectMissing:
            return None
        return ObjectInfo(relpath, reply["ETag"], reply["ContentLength"], reply.get("VersionId"),
                          reply.get("Metadata", {}).get(SHA_METADATA))

    def get(self, relpath: str, version_id: str | None = None) -> tuple[bytes, ObjectInfo]:
        extra = {"VersionId": version_id} if version_id else {}

        def attempt() -> tuple[bytes, dict]:
            reply = self.client.get_object(Bucket=self.config.bucket, Key=self.config.key(relpath), **extra)
            return reply["Body"].read(), reply

        try:
            data, reply = self.call(f"the download of {relpath}", attempt)
        except ObjectMissing:
            which = f"version {version_id} of " if version_id else ""
            raise ObjectMissing(f"{which}{relpath} is not in {self.where} (deleted, or expired by the "
                                "bucket's lifecycle rule)") from None
        return data, ObjectInfo(relpath, reply["ETag"], len(data), reply.get("VersionId"),
                                reply.get("Metadata", {}).get(SHA_METADATA))

    def _objects(self, page: dict) -> dict[str, ObjectInfo]:
        """The objects of one listing page, by project-relative path."""
        found = {}
        for item in page.get("Contents", []):
            if item["Key"].endswith("/"):  # a console-made "folder" marker, not a file
                continue
            relpath = self.config.relpath(item["Key"])
            found[relpath] = ObjectInfo(relpath, item["ETag"], item["Size"], modified=item["LastModified"].timestamp())
        return found

    def list(self, relprefix: str) -> dict[str, ObjectInfo]:
        """Current objects under a prefix, by project-relative path."""
        def attempt() -> dict[str, ObjectInfo]:
            found = {}
            pages = self.client.get_paginator("list_objects_v2").paginate(
                Bucket=self.config.bucket, Prefix=self.config.key(relprefix))
            for page in pages:
                found.update(self._objects(page))
            return found

        return self.call(f"listing {relprefix or 'the bucket'}", attempt)

    def level(self, relprefix: str) -> tuple[dict[str, ObjectInfo], list[str]]:
        """The objects right under a prefix and the names of its sub-folders (not their contents)."""
        def attempt() -> tuple[dict[str, ObjectInfo], list[str]]:
            files, folders = {}, []
            pages = self.client.get_paginator("list_objects_v2").paginate(
                Bucket=self.config.bucket, Prefix=self.config.key(relprefix), Delimiter="/")
            for page in pages:
                files.update(self._objects(page))
                folders += [self.config.relpath(p["Prefix"])[len(relprefix):].rstrip("/")
                            for p in page.get("CommonPrefixes", [])]
            return files, folders

        return self.call(f"listing {relprefix or 'the bucket'}", attempt)

    def folders(self, relprefix: str) -> list[str]:
        return self.level(relprefix)[1]

    def copy(self, source: str, target: str) -> ObjectInfo:
        reply = self.call(f"copying {source} to {target}", lambda: self.client.copy_object(
            Bucket=self.config.bucket, Key=self.config.key(target),
            CopySource={"Bucket": self.config.bucket, "Key": self.config.key(source)}))
        etag = reply.get("CopyObjectResult", {}).get("ETag", "")
        return ObjectInfo(target, etag, 0, reply.get("VersionId"))

    def delete(self, relpath: str) -> None:
        """Delete the current object (a versioned bucket keeps it as a non-current version)."""
        self.call(f"deleting {relpath}", lambda: self.client.delete_object(
            Bucket=self.config.bucket, Key=self.config.key(relpath)))
