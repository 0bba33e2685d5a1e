"""`storage:` in rat.yaml: where the shared copy of the project lives. Credentials never live here."""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import RatError
from ..project.settings import Settings


@dataclass(frozen=True)
class S3Config:
    bucket: str
    endpoint: str | None = None       # None: AWS itself
    region: str = "us-east-1"
    path_style: bool = True           # MinIO and SeaweedFS want path-style addressing
    prefix: str = ""                  # keys are `{prefix}{namespace}/pipelines/...`
    direct: bool = False              # Spark reads landing and keeps the warehouse on s3a:// itself
    retry_seconds: float = 30.0       # how long throttling, 5xx and lost connections are retried

    def key(self, relpath: str) -> str:
        return f"{self.prefix}{relpath}"

    def relpath(self, key: str) -> str:
        return key[len(self.prefix):]

    def uri(self, relpath: str) -> str:
        return f"s3a://{self.bucket}/{self.key(relpath)}"

    def s3a_conf(self) -> dict[str, str]:
        """Hadoop's S3A settings for direct mode; credentials come from the AWS environment, as for boto3."""
        conf = {"spark.hadoop.fs.s3a.path.style.access": str(self.path_style).lower(),
                "spark.hadoop.fs.s3a.endpoint.region": self.region}
        if self.endpoint:
            conf["spark.hadoop.fs.s3a.endpoint"] = self.endpoint
            conf["spark.hadoop.fs.s3a.connection.ssl.enabled"] = str(self.endpoint.startswith("https")).lower()
        return conf


def s3_config(settings: Settings) -> S3Config | None:
    """The bucket settings, or None for a purely local project."""
    storage = settings.storage
    kind = storage.get("type", "local")
    if kind == "local":
        return None
    if kind != "s3":
        raise RatError(f"storage.type must be local or s3, not {kind!r}", "rat.yaml")
    if not storage.get("bucket"):
        raise RatError("storage.type is s3 but storage.bucket is not set", "rat.yaml")
    prefix = storage.get("prefix", "").strip("/")
    return S3Config(
        bucket=storage["bucket"], endpoint=storage.get("endpoint"), region=storage.get("region", "us-east-1"),
        path_style=storage.get("path_style", True), prefix=f"{prefix}/" if prefix else "",
        direct=storage.get("direct", False), retry_seconds=float(storage.get("retry_seconds", 30.0)),
    )
