"""The project on a versioned bucket of a real S3 server (SeaweedFS), without Spark.

Runs through Spark against the bucket are in test_s3_runs.py.
"""
from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from rat_tui.core.errors import RatError
from rat_tui.core.workbench import Workbench
from tests.conftest import SAMPLE
from tests.helpers import run_script
from tests.s3helpers import bucket_project, keys, new_bucket
from tests.s3server import SECRET_KEY, SeaweedServer

PIPE = "ecommerce/pipelines/silver/clean_orders"
FQN = "ecommerce.silver.clean_orders"


@pytest.fixture
def pushed(s3_env: SeaweedServer, tmp_path: Path) -> tuple[Workbench, str]:
    """The sample project pushed to a fresh bucket from folder `a`."""
    bucket = new_bucket(s3_env)
    wb = Workbench(bucket_project(tmp_path / "a", s3_env, bucket, SAMPLE))
    wb.push()
    return wb, bucket


def clone(server: SeaweedServer, bucket: str, folder: Path) -> Workbench:
    wb = Workbench(bucket_project(folder, server, bucket))
    wb.connect_remote()
    return wb


def versions_of(server: SeaweedServer, bucket: str, key: str) -> list[dict]:
    reply = server.client().list_object_versions(Bucket=bucket, Prefix=key)
    return [v for v in reply.get("Versions", []) if v["Key"] == key]


def test_a_second_folder_gets_namespaces_pipelines_zones_and_landing_files(pushed, s3_env, tmp_path):
    wb, bucket = pushed
    stored = keys(s3_env, bucket)
    assert f"{PIPE}/pipeline.sql" in stored and "ecommerce/landing/orders/orders_2024_01.csv" in stored
    assert "ecommerce/landing/orders/_samples/orders_sample.csv" in stored
    assert not any("/warehouse/" in k or k.startswith(".rat") or k == "rat.yaml" for k in stored)

    other = clone(s3_env, bucket, tmp_path / "b")
    assert other.ls() == wb.ls()
    for relpath in ("ecommerce/landing/orders/orders_2024_02.csv", "ecommerce/landing/products/products.parquet",
                    f"{PIPE}/tests/quality/unique_order_id.sql"):
        assert (other.project.root / relpath).read_bytes() == (SAMPLE / relpath).read_bytes()
    assert other.remote_status()["changes"] == []


def test_publish_pins_real_object_versions_and_rollback_repins_them(pushed, s3_env):
    wb, bucket = pushed
    original = (wb.project.root / PIPE / "pipeline.sql").read_text()
    first = wb.publish(FQN, "first")
    pinned = first["files"]["pipeline.sql"]
    assert pinned == versions_of(s3_env, bucket, f"{PIPE}/pipeline.sql")[0]["VersionId"]

    wb.write(f"{PIPE}/pipeline.sql", original + "\n-- tuned\n")  # a save is a new object version
    history = versions_of(s3_env, bucket, f"{PIPE}/pipeline.sql")
    assert len(history) == 2 and next(v for v in history if v["IsLatest"])["VersionId"] != pinned
    second = wb.publish(FQN, "second")
    assert second["files"]["pipeline.sql"] != pinned

    # reading a pinned version goes to the bucket by VersionId when the local cache is gone
    shutil.rmtree(wb.project.state_dir / "objects")
    current = wb.versions.current(wb.resolve(FQN))
    assert wb.versions.read_pinned(wb.resolve(FQN), current)["pipeline.sql"].endswith(b"-- tuned\n")

    rolled = wb.rollback(FQN, restore=True)
    assert rolled == {"version": 3, "pinned_from": 1}
    assert [v["files"]["pipeline.sql"] for v in wb.list_versions(FQN)["versions"]] == [
        pinned, second["files"]["pipeline.sql"], pinned]
    assert (wb.project.root / PIPE / "pipeline.sql").read_text() == original
    body = s3_env.client().get_object(Bucket=bucket, Key=f"{PIPE}/pipeline.sql")["Body"].read()
    assert body.decode() == original  # the bucket's working copy followed the restore


def test_someone_elses_edit_shows_in_the_tree_and_can_be_pulled(pushed, s3_env, tmp_path):
    wb, bucket = pushed
    colleague = clone(s3_env, bucket, tmp_path / "b")
    edited = (colleague.project.root / PIPE / "pipeline.sql").read_text() + "\n-- colleague\n"
    colleague.write(f"{PIPE}/pipeline.sql", edited)

    assert wb.remote_status()["changes"] == [{"path": f"{PIPE}/pipeline.sql", "state": "changed"}]
    tree = {p["ref"].fqn: p["remote"] for ns in wb.overview()["namespaces"] for p in ns["pipelines"]}
    assert tree[FQN] == "changed" and tree["ecommerce.bronze.raw_orders"] is None
    pulled = wb.pull()["pulled"]
    assert [p["path"] for p in pulled] == [f"{PIPE}/pipeline.sql"]
    assert (wb.project.root / PIPE / "pipeline.sql").read_text() == edited
    assert wb.remote_status()["changes"] == []


def test_edits_on_both_sides_never_overwrite_each_other(pushed, s3_env, tmp_path):
    wb, bucket = pushed
    colleague = clone(s3_env, bucket, tmp_path / "b")
    theirs = (colleague.project.root / PIPE / "pipeline.sql").read_text() + "\n-- theirs\n"
    colleague.write(f"{PIPE}/pipeline.sql", theirs)
    mine = theirs.replace("-- theirs", "-- mine")
    with pytest.raises(RatError, match="changed in bucket .* since this copy was pulled; pull it first"):
        wb.write(f"{PIPE}/pipeline.sql", mine)
    body = s3_env.client().get_object(Bucket=bucket, Key=f"{PIPE}/pipeline.sql")["Body"].read().decode()
    assert body == theirs

    assert wb.remote_status()["changes"] == [{"path": f"{PIPE}/pipeline.sql", "state": "conflict"}]
    with pytest.raises(RatError, match="edited here and in the bucket; pull with --force"):
        wb.pull()
    wb.pull(force=True)
    assert (wb.project.root / PIPE / "pipeline.sql").read_text() == theirs
    kept = [v for v in wb.versions.history(f"{PIPE}/pipeline.sql") if v.version_id.startswith("local-")]
    assert [wb.versions.read(v.version_id).decode() for v in kept] == [mine]


def test_landing_archival_moves_objects_and_a_restore_puts_them_back(pushed, s3_env):
    wb, bucket = pushed
    zone_dir = wb.project.zone_dir("ecommerce", "orders")
    files = sorted(zone_dir.glob("orders_*.csv"))
    moved = wb.runner.landing_archive.archive(zone_dir, files, "r1")
    assert moved == [f.name for f in files]
    stored = keys(s3_env, bucket, "ecommerce/landing/orders/")
    assert [k for k in stored if "_processed" not in k and "_samples" not in k] == []
    assert [k.rsplit("/", 1)[-1] for k in stored if "/_processed/r1/" in k] == moved

    assert wb.runner.landing_archive.restore(zone_dir, "r1") == moved
    stored = keys(s3_env, bucket, "ecommerce/landing/orders/")
    assert not [k for k in stored if "_processed" in k]
    assert sorted(p.name for p in zone_dir.glob("orders_*.csv")) == moved


def test_upload_puts_the_file_and_its_sample_in_the_bucket(pushed, s3_env, tmp_path):
    wb, bucket = pushed
    source = tmp_path / "orders_2024_04.csv"
    source.write_text("order_id,customer_id,amount,order_date\n900,1,9.5,2024-04-01\n")
    assert wb.upload("ecommerce", "orders", [str(source)])["files"] == [{"name": source.name, "bytes": source.stat().st_size}]
    stored = keys(s3_env, bucket, "ecommerce/landing/orders/")
    assert "ecommerce/landing/orders/orders_2024_04.csv" in stored
    assert "ecommerce/landing/orders/_samples/orders_2024_04_sample.csv" in stored


def test_a_bucket_without_versioning_is_reported(s3_env, tmp_path):
    bucket = new_bucket(s3_env, versioned=False)
    project = bucket_project(tmp_path / "p", s3_env, bucket, SAMPLE)
    with pytest.raises(RatError, match=f"bucket {bucket} at .* does not have versioning enabled"):
        Workbench(project).connect_remote()
    status, results, stderr = run_script(project, "ls\n")
    assert status == 1 and results == [] and "does not have versioning enabled" in stderr


def test_wrong_credentials_fail_fast_with_a_clear_message(pushed, monkeypatch, tmp_path):
    wb, bucket = pushed
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY + "-wrong")
    other = Workbench(wb.project.root)
    pauses: list[float] = []
    other.remote.bucket.sleep = pauses.append
    with pytest.raises(RatError, match="refused the credentials .*check AWS_ACCESS_KEY_ID"):
        other.connect_remote()
    assert pauses == []  # no retries: waiting never fixes a credential


def test_no_credentials_at_all_say_which_variables_to_set(pushed, monkeypatch, tmp_path):
    wb, _ = pushed
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    with pytest.raises(RatError, match="no S3 credentials .*AWS_ACCESS_KEY_ID"):
        Workbench(wb.project.root).connect_remote()


# -- network faults: a server of their own, stopped and started by the test -------------------
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
    wb = Workbench(bucket_project(tmp_path / "a", own_server, bucket, SAMPLE, retry_seconds=60))
    wb.connect_remote()
    uploads = stop_on_nth_upload(wb, own_server, 2, restart_after=1.0)
    result = wb.publish(FQN, "during an outage")
    assert len(set(uploads)) == len(result["files"]) >= 2 and len(uploads) > len(set(uploads))  # it did retry
    for name, version_id in result["files"].items():
        body = own_server.client().get_object(Bucket=bucket, Key=f"{PIPE}/{name}", VersionId=version_id)["Body"].read()
        assert body == (wb.project.root / PIPE / name).read_bytes()
        assert len(versions_of(own_server, bucket, f"{PIPE}/{name}")) == 1  # one version each, none torn


def test_an_outage_longer_than_the_retries_publishes_nothing(own_server, tmp_path):
    bucket = new_bucket(own_server)
    wb = Workbench(bucket_project(tmp_path / "a", own_server, bucket, SAMPLE, retry_seconds=2))
    wb.connect_remote()
    stop_on_nth_upload(wb, own_server, 2, restart_after=None)
    with pytest.raises(RatError, match=r"did not complete the upload of .* after \d+ attempt\(s\) over 2 s"):
        wb.publish(FQN, "lost")
    assert wb.list_versions(FQN) == {"versions": [], "current": None}
    own_server.start()
    assert wb.publish(FQN, "again")["version"] == 1


def test_a_failed_move_in_the_bucket_puts_every_file_back(own_server, tmp_path):
    bucket = new_bucket(own_server)
    wb = Workbench(bucket_project(tmp_path / "a", own_server, bucket, SAMPLE, retry_seconds=2))
    wb.push()
    zone_dir = wb.project.zone_dir("ecommerce", "orders")
    files = sorted(zone_dir.glob("orders_*.csv"))
    copies: list[str] = []

    def before_copy(request, **_) -> None:
        copies.append(request.url)
        if len(copies) == 2:
            own_server.stop()

    wb.remote.bucket.client.meta.events.register("before-send.s3.CopyObject", before_copy)
    with pytest.raises(RatError, match="archiving in the bucket failed .* put back"):
        wb.runner.landing_archive.archive(zone_dir, files, "r9")
    assert sorted(p.name for p in zone_dir.glob("orders_*.csv")) == [f.name for f in files]  # locally at once

    wb.remote.bucket.client.meta.events.unregister("before-send.s3.CopyObject", before_copy)
    own_server.start()
    wb.remote.sync.sync_zone("ecommerce", "orders")  # the remembered restore runs first
    stored = keys(own_server, bucket, "ecommerce/landing/orders/")
    assert [k for k in stored if "_processed" in k] == []
    assert sorted(k.rsplit("/", 1)[-1] for k in stored if k.count("/") == 3) == [f.name for f in files]


def test_a_save_in_the_editor_uploads_a_new_version_and_a_failed_upload_is_reported(pushed, s3_env):
    wb, bucket = pushed
    path = wb.project.root / PIPE / "pipeline.sql"
    path.write_text(path.read_text() + "\n-- saved in the editor\n")
    assert wb.record_saves([f"{PIPE}/pipeline.sql"]) == {}
    current = s3_env.client().get_object(Bucket=bucket, Key=f"{PIPE}/pipeline.sql")["Body"].read()
    assert current == path.read_bytes() and len(versions_of(s3_env, bucket, f"{PIPE}/pipeline.sql")) == 2

    s3_env.client().put_object(Bucket=bucket, Key=f"{PIPE}/config.yaml", Body=b"merge_strategy: full_refresh\n")
    (wb.project.root / PIPE / "config.yaml").write_text("merge_strategy: append_only\n")
    problems = wb.record_saves([f"{PIPE}/config.yaml"])
    assert "changed in bucket" in problems[f"{PIPE}/config.yaml"]
