"""The project on a real S3 server when the server fails: outages mid-publish, retries with back-off,
a reply lost after a write, a failed move in the bucket."""
from __future__ import annotations

import threading
from pathlib import Path

import pytest

from devkit.s3server import SeaweedServer
from rat_tui.core.compose import Workbench, open_project
from rat_tui.core.errors import RatError
from tests.conftest import SAMPLE
from tests.s3helpers import FQN, PIPE, bucket_project, keys, new_bucket, versions_of

@pytest.fixture
def own_server(s3_env, tmp_path: Path, monkeypatch):
    server = SeaweedServer(tmp_path / "own-server")
    server.start()
    yield server
    server.stop()


def stop_on_nth_upload(wb: Workbench, server: SeaweedServer, n: int, restart_after: float | None) -> list[str]:
    """Stop the server just before the n-th object upload (and start it again later): a real outage."""
    seen: list[str] = []

    def before_send(request, **_) -> None:
        if request.method == "PUT" and "x-amz-copy-source" not in request.headers:
            seen.append(request.url)
            if len(seen) == n:
                server.stop()
                if restart_after is not None:
                    threading.Timer(restart_after, server.start).start()

    wb.remote.bucket.client.meta.events.register("before-send.s3.PutObject", before_send)
    return seen


def test_server_stopped_mid_publish_then_back_the_retry_succeeds(own_server, tmp_path):
    bucket = new_bucket(own_server)
    wb = open_project(bucket_project(tmp_path / "a", own_server, bucket, SAMPLE, retry_seconds=60))
    wb.bucket.connect_remote()
    uploads = stop_on_nth_upload(wb, own_server, 2, restart_after=1.0)
    result = wb.versions.publish(FQN, "during an outage")
    files = {u for u in uploads if "/.rat/published/" not in u}
    assert len(files) == len(result.files) >= 2 and len(uploads) > len(set(uploads))  # it did retry
    for name, version_id in result.files.items():
        body = own_server.client().get_object(Bucket=bucket, Key=f"{PIPE}/{name}", VersionId=version_id)["Body"].read()
        assert body == (wb.project.root / PIPE / name).read_bytes()
        assert len(versions_of(own_server, bucket, f"{PIPE}/{name}")) == 1  # one version each, none torn


@pytest.mark.parametrize("outage_at", [2, 5], ids=["uploading-files", "sharing-the-pin"])
def test_an_outage_longer_than_the_retries_publishes_nothing(own_server, tmp_path, outage_at):
    bucket = new_bucket(own_server)
    wb = open_project(bucket_project(tmp_path / "a", own_server, bucket, SAMPLE, retry_seconds=2))
    wb.bucket.connect_remote()
    uploads = stop_on_nth_upload(wb, own_server, outage_at, restart_after=None)
    with pytest.raises(RatError, match=r"did not complete the upload of .* after \d+ attempt\(s\) over 2 s"):
        wb.versions.publish(FQN, "lost")
    assert ("/.rat/published/" in uploads[-1]) == (outage_at == 5)  # the 4 files went up, then the list
    assert wb.versions.list_versions(FQN).as_dict() == {"versions": [], "current": None}
    own_server.start()
    assert wb.versions.publish(FQN, "again").version == 1


def test_a_failed_move_in_the_bucket_puts_every_file_back(own_server, tmp_path):
    bucket = new_bucket(own_server)
    wb = open_project(bucket_project(tmp_path / "a", own_server, bucket, SAMPLE, retry_seconds=2))
    wb.bucket.push()
    zone_dir = wb.project.zone_dir("ecommerce", "orders")
    files = sorted(zone_dir.glob("orders_*.csv"))
    copies: list[str] = []

    def before_copy(request, **_) -> None:
        copies.append(request.url)
        if len(copies) == 2:
            own_server.stop()

    wb.remote.bucket.client.meta.events.register("before-send.s3.CopyObject", before_copy)
    with pytest.raises(RatError, match="archiving in the bucket failed .* put back"):
        wb.storage.landing_archive.archive(zone_dir, files, "r9")
    assert sorted(p.name for p in zone_dir.glob("orders_*.csv")) == [f.name for f in files]  # locally at once

    wb.remote.bucket.client.meta.events.unregister("before-send.s3.CopyObject", before_copy)
    own_server.start()
    wb.remote.sync.sync_zone("ecommerce", "orders")  # the remembered restore runs first
    stored = keys(own_server, bucket, "ecommerce/landing/orders/")
    assert [k for k in stored if "_processed" in k] == []
    assert sorted(k.rsplit("/", 1)[-1] for k in stored if k.count("/") == 3) == [f.name for f in files]


def test_retries_back_off_exponentially_with_jitter_and_stop_at_the_deadline(s3_env):
    import socket

    from rat_tui.core.remote.bucket import Bucket
    from rat_tui.core.remote.config import S3Config

    with socket.socket() as sock:  # a port nobody listens on: every attempt is refused at once
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    now = [0.0]
    pauses: list[float] = []

    def sleep(seconds: float) -> None:
        pauses.append(seconds)
        now[0] += seconds

    bucket = Bucket(S3Config("nowhere", endpoint=f"http://127.0.0.1:{port}", retry_seconds=20),
                    sleep=sleep, clock=lambda: now[0])
    with pytest.raises(RatError, match=r"did not complete reading x.csv after \d+ attempt\(s\) over 20 s"):
        bucket.head("x.csv")
    assert len(pauses) >= 5 and sum(pauses) <= 20
    for attempt, pause in enumerate(pauses, start=1):
        assert 0 <= pause <= min(5.0, 0.2 * 2 ** attempt)  # full jitter under a capped exponential
    assert len(set(pauses)) == len(pauses)  # jittered, not a fixed schedule


def test_a_write_whose_reply_was_lost_is_recognised_on_the_retry(pushed, s3_env):
    import botocore.exceptions

    wb, bucket = pushed
    lost: list[str] = []

    def lose_the_first_reply(http_response, parsed, model, **_) -> None:
        if not lost:
            lost.append(model.name)
            raise botocore.exceptions.ConnectionClosedError(endpoint_url=s3_env.endpoint)

    wb.remote.bucket.client.meta.events.register("after-call.s3.PutObject", lose_the_first_reply)
    published = wb.versions.publish(FQN, "lost reply")  # the shared list's conditional write is retried: 412, yet ours
    assert lost == ["PutObject"] and published.version == 1
    assert [v["message"] for v in wb.versions.list_versions(FQN).as_dict()["versions"]] == ["lost reply"]
