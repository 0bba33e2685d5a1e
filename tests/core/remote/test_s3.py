"""The project on a versioned bucket of a real S3 server (SeaweedFS), without Spark.

Runs through Spark against the bucket are in test_s3_runs.py.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from devkit.s3server import SECRET_KEY, SeaweedServer
from rat_tui.core.compose import Workbench, open_project
from rat_tui.core.errors import RatError
from tests.conftest import SAMPLE
from tests.helpers import run_script_here
from tests.s3helpers import FQN, PIPE, bucket_project, keys, new_bucket, versions_of


def clone(server: SeaweedServer, bucket: str, folder: Path) -> Workbench:
    wb = open_project(bucket_project(folder, server, bucket))
    wb.bucket.connect_remote()
    return wb


def test_a_second_folder_gets_namespaces_pipelines_zones_and_landing_files(pushed, s3_env, tmp_path):
    wb, bucket = pushed
    stored = keys(s3_env, bucket)
    assert f"{PIPE}/pipeline.sql" in stored and "ecommerce/landing/orders/orders_2024_01.csv" in stored
    assert "ecommerce/landing/orders/_samples/orders_sample.csv" in stored
    assert not any("/warehouse/" in k or k.startswith(".rat") or k == "rat.yaml" for k in stored)

    other = clone(s3_env, bucket, tmp_path / "b")
    assert other.browse.ls().as_dict() == wb.browse.ls().as_dict()
    for relpath in ("ecommerce/landing/orders/orders_2024_02.csv", "ecommerce/landing/products/products.parquet",
                    f"{PIPE}/tests/quality/unique_order_id.sql"):
        assert (other.project.root / relpath).read_bytes() == (SAMPLE / relpath).read_bytes()
    assert other.bucket.remote_status().as_dict()["changes"] == []


def test_publish_pins_real_object_versions_and_rollback_repins_them(pushed, s3_env):
    wb, bucket = pushed
    original = (wb.project.root / PIPE / "pipeline.sql").read_text()
    first = wb.versions.publish(FQN, "first")
    pinned = first.files["pipeline.sql"]
    assert pinned == versions_of(s3_env, bucket, f"{PIPE}/pipeline.sql")[0]["VersionId"]

    wb.files.write(f"{PIPE}/pipeline.sql", original + "\n-- tuned\n")  # a save is a new object version
    history = versions_of(s3_env, bucket, f"{PIPE}/pipeline.sql")
    assert len(history) == 2 and next(v for v in history if v["IsLatest"])["VersionId"] != pinned
    second = wb.versions.publish(FQN, "second")
    assert second.files["pipeline.sql"] != pinned

    # reading a pinned version goes to the bucket by VersionId when the local cache is gone
    shutil.rmtree(wb.project.state_dir / "objects")
    current = wb.version_store.current(wb.browse.resolve(FQN))
    assert wb.version_store.read_pinned(wb.browse.resolve(FQN), current)["pipeline.sql"].endswith(b"-- tuned\n")

    rolled = wb.versions.rollback(FQN, restore=True)
    assert rolled.as_dict() == {"version": 3, "pinned_from": 1}
    assert [v["files"]["pipeline.sql"] for v in wb.versions.list_versions(FQN).as_dict()["versions"]] == [
        pinned, second.files["pipeline.sql"], pinned]
    assert (wb.project.root / PIPE / "pipeline.sql").read_text() == original
    body = s3_env.client().get_object(Bucket=bucket, Key=f"{PIPE}/pipeline.sql")["Body"].read()
    assert body.decode() == original  # the bucket's working copy followed the restore


def test_someone_elses_edit_shows_in_the_tree_and_can_be_pulled(pushed, s3_env, tmp_path):
    wb, bucket = pushed
    colleague = clone(s3_env, bucket, tmp_path / "b")
    edited = (colleague.project.root / PIPE / "pipeline.sql").read_text() + "\n-- colleague\n"
    colleague.files.write(f"{PIPE}/pipeline.sql", edited)

    assert wb.bucket.remote_status().as_dict()["changes"] == [{"path": f"{PIPE}/pipeline.sql", "state": "changed"}]
    tree = {p.ref.fqn: p.remote for ns in wb.browse.overview().namespaces for p in ns.pipelines}
    assert tree[FQN] == "changed" and tree["ecommerce.bronze.raw_orders"] is None
    pulled = wb.bucket.pull().pulled
    assert [p["path"] for p in pulled] == [f"{PIPE}/pipeline.sql"]
    assert (wb.project.root / PIPE / "pipeline.sql").read_text() == edited
    assert wb.bucket.remote_status().as_dict()["changes"] == []


def test_edits_on_both_sides_never_overwrite_each_other(pushed, s3_env, tmp_path):
    wb, bucket = pushed
    colleague = clone(s3_env, bucket, tmp_path / "b")
    theirs = (colleague.project.root / PIPE / "pipeline.sql").read_text() + "\n-- theirs\n"
    colleague.files.write(f"{PIPE}/pipeline.sql", theirs)
    mine = theirs.replace("-- theirs", "-- mine")
    with pytest.raises(RatError, match="changed in bucket .* since this copy was pulled; pull it first"):
        wb.files.write(f"{PIPE}/pipeline.sql", mine)
    body = s3_env.client().get_object(Bucket=bucket, Key=f"{PIPE}/pipeline.sql")["Body"].read().decode()
    assert body == theirs

    assert wb.bucket.remote_status().as_dict()["changes"] == [{"path": f"{PIPE}/pipeline.sql", "state": "conflict"}]
    with pytest.raises(RatError, match="edited here and in the bucket; pull with --force"):
        wb.bucket.pull()
    wb.bucket.pull(force=True)
    assert (wb.project.root / PIPE / "pipeline.sql").read_text() == theirs
    kept = [v for v in wb.version_store.history(f"{PIPE}/pipeline.sql") if v.version_id.startswith("local-")]
    assert [wb.version_store.read(v.version_id).decode() for v in kept] == [mine]


def test_landing_archival_moves_objects_and_a_restore_puts_them_back(pushed, s3_env):
    wb, bucket = pushed
    zone_dir = wb.project.zone_dir("ecommerce", "orders")
    files = sorted(zone_dir.glob("orders_*.csv"))
    moved = wb.storage.landing_archive.archive(zone_dir, files, "r1")
    assert moved == [f.name for f in files]
    stored = keys(s3_env, bucket, "ecommerce/landing/orders/")
    assert [k for k in stored if "_processed" not in k and "_samples" not in k] == []
    assert [k.rsplit("/", 1)[-1] for k in stored if "/_processed/r1/" in k] == moved

    assert wb.storage.landing_archive.restore(zone_dir, "r1") == moved
    stored = keys(s3_env, bucket, "ecommerce/landing/orders/")
    assert not [k for k in stored if "_processed" in k]
    assert sorted(p.name for p in zone_dir.glob("orders_*.csv")) == moved


@pytest.mark.spark  # the upload types its twin with Spark
def test_upload_puts_the_file_and_its_sample_in_the_bucket(pushed, s3_env, tmp_path):
    wb, bucket = pushed
    source = tmp_path / "orders_2024_04.csv"
    source.write_text("order_id,customer_id,amount,order_date\n900,1,9.5,2024-04-01\n")
    assert wb.landing.upload("ecommerce", "orders", [str(source)]).as_dict()["files"] == [{"name": source.name, "bytes": source.stat().st_size}]
    stored = keys(s3_env, bucket, "ecommerce/landing/orders/")
    assert "ecommerce/landing/orders/orders_2024_04.csv" in stored
    assert "ecommerce/landing/orders/_samples/orders_2024_04_sample.csv" in stored


def test_a_bucket_without_versioning_is_reported(s3_env, tmp_path):
    bucket = new_bucket(s3_env, versioned=False)
    project = bucket_project(tmp_path / "p", s3_env, bucket, SAMPLE)
    with pytest.raises(RatError, match=f"bucket {bucket} at .* does not have versioning enabled"):
        open_project(project).bucket.connect_remote()
    status, results, stderr = run_script_here(project, "ls\n")
    assert status == 1 and results == [] and "does not have versioning enabled" in stderr


def test_wrong_credentials_fail_fast_with_a_clear_message(pushed, monkeypatch, tmp_path):
    wb, bucket = pushed
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY + "-wrong")
    other = open_project(wb.project.root)
    pauses: list[float] = []
    other.remote.bucket.sleep = pauses.append
    with pytest.raises(RatError, match="refused the credentials .*check AWS_ACCESS_KEY_ID"):
        other.bucket.connect_remote()
    assert pauses == []  # no retries: waiting never fixes a credential


def test_no_credentials_at_all_say_which_variables_to_set(pushed, monkeypatch, tmp_path):
    wb, _ = pushed
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    with pytest.raises(RatError, match="no S3 credentials .*AWS_ACCESS_KEY_ID"):
        open_project(wb.project.root).bucket.connect_remote()


# -- network faults: a server of their own, stopped and started by the test -------------------
def test_a_save_in_the_editor_uploads_a_new_version_and_a_failed_upload_is_reported(pushed, s3_env):
    wb, bucket = pushed
    path = wb.project.root / PIPE / "pipeline.sql"
    path.write_text(path.read_text() + "\n-- saved in the editor\n")
    assert wb.files.record_saves([f"{PIPE}/pipeline.sql"]) == {}
    current = s3_env.client().get_object(Bucket=bucket, Key=f"{PIPE}/pipeline.sql")["Body"].read()
    assert current == path.read_bytes() and len(versions_of(s3_env, bucket, f"{PIPE}/pipeline.sql")) == 2

    s3_env.client().put_object(Bucket=bucket, Key=f"{PIPE}/config.yaml", Body=b"merge_strategy: full_refresh\n")
    (wb.project.root / PIPE / "config.yaml").write_text("merge_strategy: append_only\n")
    problems = wb.files.record_saves([f"{PIPE}/config.yaml"])
    assert "changed in bucket" in problems[f"{PIPE}/config.yaml"]


def test_a_project_with_local_history_pushes_everything_and_then_pins_object_versions(s3_env, tmp_path):
    project = bucket_project(tmp_path / "a", s3_env, new_bucket(s3_env), SAMPLE)
    settings = (project / "rat.yaml").read_text()
    (project / "rat.yaml").write_text(settings.split("storage:")[0])  # first a purely local project
    local = open_project(project)
    assert local.remote is None
    local_pin = local.versions.publish(FQN, "before the bucket").files["pipeline.sql"]

    (project / "rat.yaml").write_text(settings)
    wb = open_project(project)
    pushed = wb.bucket.push().pipelines
    bucket = wb.remote.config.bucket
    assert f"{PIPE}/pipeline.sql" in pushed and f"{PIPE}/pipeline.sql" in keys(s3_env, bucket)
    pinned = wb.versions.publish(FQN, "on the bucket").files["pipeline.sql"]
    assert pinned != local_pin
    assert pinned == versions_of(s3_env, bucket, f"{PIPE}/pipeline.sql")[0]["VersionId"]


def test_deleting_a_pipeline_file_deletes_the_object(pushed, s3_env):
    wb, bucket = pushed
    test_file = f"{PIPE}/tests/quality/positive_amount.sql"
    (wb.project.root / test_file).unlink()
    assert wb.files.record_saves([test_file]) == {}
    assert test_file not in keys(s3_env, bucket)
    assert len(versions_of(s3_env, bucket, test_file)) == 1  # the old content is still a (non-current) version


def test_landing_sync_never_drops_a_local_change(pushed, s3_env, tmp_path):
    wb, bucket = pushed
    colleague = clone(s3_env, bucket, tmp_path / "b")
    zone = "ecommerce/landing/orders"
    # both sides change the same file: the bucket's copy wins here, ours is set aside
    (colleague.project.root / zone / "orders_2024_01.csv").write_text("order_id\n1\n")
    colleague.remote.sync.sync_zone("ecommerce", "orders")
    (wb.project.root / zone / "orders_2024_01.csv").write_text("order_id\n2\n")
    done = wb.remote.sync.sync_zone("ecommerce", "orders")
    assert (wb.project.root / zone / "orders_2024_01.csv").read_text() == "order_id\n1\n"
    [kept] = done["set_aside"]
    assert kept.startswith(f"{zone}/_processed/local-") and (wb.project.root / kept).read_text() == "order_id\n2\n"

    # a colleague's run archived orders_2024_02.csv while we dropped a corrected one in: ours is uploaded
    zone_dir = colleague.project.zone_dir("ecommerce", "orders")
    colleague.storage.landing_archive.archive(zone_dir, [zone_dir / "orders_2024_02.csv"], "r5")
    (wb.project.root / zone / "orders_2024_02.csv").write_text("order_id\n3\n")
    done = wb.remote.sync.sync_zone("ecommerce", "orders")
    assert done["uploaded"] == [f"{zone}/orders_2024_02.csv"] and done["removed"] == []
    body = s3_env.client().get_object(Bucket=bucket, Key=f"{zone}/orders_2024_02.csv")["Body"].read()
    assert body == b"order_id\n3\n"
    # and an untouched file archived elsewhere leaves this cache
    colleague.storage.landing_archive.archive(zone_dir, [zone_dir / "orders_2024_03.csv"], "r6")
    assert wb.remote.sync.sync_zone("ecommerce", "orders")["removed"] == [f"{zone}/orders_2024_03.csv"]


def test_a_restore_keeps_an_archived_object_when_a_different_file_took_its_name(pushed, s3_env):
    wb, bucket = pushed
    client = s3_env.client()
    zone = "ecommerce/landing/orders"
    # written by another tool: no sha256 metadata on either object
    client.put_object(Bucket=bucket, Key=f"{zone}/_processed/r7/late.csv", Body=b"id\n1\n")
    client.put_object(Bucket=bucket, Key=f"{zone}/late.csv", Body=b"id\n2\n")
    client.put_object(Bucket=bucket, Key=f"{zone}/_processed/r7/twin.csv", Body=b"id\n3\n")
    client.put_object(Bucket=bucket, Key=f"{zone}/twin.csv", Body=b"id\n3\n")  # a move cut short
    wb.remote.sync.restore(zone, "r7")
    stored = keys(s3_env, bucket, f"{zone}/")
    assert f"{zone}/_processed/r7/late.csv" in stored and f"{zone}/late.csv" in stored
    assert f"{zone}/_processed/r7/twin.csv" not in stored and f"{zone}/twin.csv" in stored


def test_purge_removes_old_processed_objects_from_the_bucket(pushed, s3_env):
    import time

    wb, bucket = pushed
    zone_dir = wb.project.zone_dir("ecommerce", "orders")
    wb.storage.landing_archive.archive(zone_dir, [zone_dir / "orders_2024_01.csv"], "old-run")
    processed = "ecommerce/landing/orders/_processed/old-run/orders_2024_01.csv"
    assert processed in keys(s3_env, bucket)

    soon = wb.upkeep.purge(dry_run=True, now=time.time() + 86400)  # a day later: within the zone's 14 days
    assert soon.items.bucket_processed_files == []
    later = wb.upkeep.purge(now=time.time() + 15 * 86400, namespace="ecommerce")
    assert [i["path"] for i in later.items.bucket_processed_files] == [processed]
    assert processed not in keys(s3_env, bucket)
    assert "ecommerce/landing/orders/orders_2024_02.csv" in keys(s3_env, bucket)  # active files untouched


def test_a_bad_storage_section_is_one_sentence_naming_rat_yaml(tmp_path):
    project = tmp_path / "p"
    project.mkdir()
    (project / "rat.yaml").write_text("storage:\n  type: s3\n  endpoint: http://127.0.0.1:9\n")
    with pytest.raises(RatError, match="^rat.yaml: storage.type is s3 but storage.bucket is not set$"):
        open_project(project)
    (project / "rat.yaml").write_text("storage:\n  type: gcs\n  bucket: x\n")
    with pytest.raises(RatError, match="storage.type must be local or s3, not 'gcs'"):
        open_project(project)


def test_published_versions_are_shared_through_the_bucket(pushed, s3_env, tmp_path):
    wb, bucket = pushed
    first = wb.versions.publish(FQN, "first")
    colleague = clone(s3_env, bucket, tmp_path / "b")
    shared = colleague.versions.list_versions(FQN).as_dict()
    assert [(v["version"], v["message"], v["files"]) for v in shared["versions"]] == [(1, "first", first.files)]
    pinned = colleague.version_store.read_pinned(colleague.browse.resolve(FQN), colleague.version_store.current(colleague.browse.resolve(FQN)))
    assert pinned["pipeline.sql"] == (wb.project.root / PIPE / "pipeline.sql").read_bytes()

    colleague.files.write(f"{PIPE}/pipeline.sql", pinned["pipeline.sql"].decode() + "\n-- theirs\n")
    assert colleague.versions.publish(FQN, "second").version == 2
    assert wb.versions.rollback(FQN, 1).as_dict() == {"version": 3, "pinned_from": 1}  # numbered after the colleague's version 2
    colleague.remote.refresh()
    assert [v["message"] for v in colleague.versions.list_versions(FQN).as_dict()["versions"]] == ["first", "second", "rollback to version 1"]
    assert ".rat/published/ecommerce.silver.clean_orders.json" in keys(s3_env, bucket, ".rat/")


def test_two_people_publishing_at_once_never_overwrite_each_other(pushed, s3_env, tmp_path):
    wb, bucket = pushed
    wb.versions.publish(FQN, "first")
    colleague = clone(s3_env, bucket, tmp_path / "b")
    raced: list[int] = []

    def colleague_publishes_first(request, **_) -> None:
        if ".rat/published/" in request.url and not raced:
            raced.append(colleague.versions.publish(FQN, "theirs").version)

    wb.remote.bucket.client.meta.events.register("before-send.s3.PutObject", colleague_publishes_first)
    with pytest.raises(RatError, match="someone else published ecommerce.silver.clean_orders at the same moment"):
        wb.versions.publish(FQN, "mine")
    assert raced == [2]
    assert [v["message"] for v in wb.versions.list_versions(FQN).as_dict()["versions"]] == ["first"]  # our pin was taken back
    wb.remote.bucket.client.meta.events.unregister("before-send.s3.PutObject", colleague_publishes_first)
    assert wb.versions.publish(FQN, "mine").version == 3
    assert [v["message"] for v in wb.versions.list_versions(FQN).as_dict()["versions"]] == ["first", "theirs", "mine"]


def test_a_damaged_published_list_or_folder_markers_do_not_block_the_bucket(pushed, s3_env, tmp_path):
    wb, bucket = pushed
    client = s3_env.client()
    client.put_object(Bucket=bucket, Key=".rat/published/ecommerce.silver.broken.json", Body=b"{not json")
    client.put_object(Bucket=bucket, Key="ecommerce/landing/orders/", Body=b"")  # console "folders"
    client.put_object(Bucket=bucket, Key="ecommerce/pipelines/silver/empty_folder/", Body=b"")
    other = clone(s3_env, bucket, tmp_path / "b")
    assert other.browse.ls().as_dict() == wb.browse.ls().as_dict()
    assert other.bucket.remote_status().as_dict()["changes"] == []
    assert not (other.project.root / "ecommerce/pipelines/silver/empty_folder").exists()


def test_pins_made_before_the_bucket_give_way_to_the_bucket_s(pushed, s3_env, tmp_path):
    wb, bucket = pushed
    shared = wb.versions.publish(FQN, "shared first").files
    project = tmp_path / "late"
    shutil.copytree(SAMPLE, project, ignore=shutil.ignore_patterns(".rat", "warehouse"))
    local = open_project(project)
    local.files.write(f"{PIPE}/pipeline.sql", (project / PIPE / "pipeline.sql").read_text() + "\n-- local only\n")
    local.versions.publish(FQN, "local first")
    (project / "rat.yaml").write_text((wb.project.root / "rat.yaml").read_text())
    moved = open_project(project)
    moved.bucket.connect_remote()
    assert [(v["message"], v["files"]) for v in moved.versions.list_versions(FQN).as_dict()["versions"]] == [("shared first", shared)]


def test_a_landing_file_someone_uploads_under_the_same_name_first_wins(pushed, s3_env):
    wb, bucket = pushed
    zone = "ecommerce/landing/orders"
    (wb.project.root / zone / "orders_2024_09.csv").write_text("order_id\n9\n")

    def colleague_uploads_first(request, **_) -> None:
        if request.url.endswith("orders_2024_09.csv") and "x-amz-copy-source" not in request.headers:
            wb.remote.bucket.client.meta.events.unregister("before-send.s3.PutObject", colleague_uploads_first)
            s3_env.client().put_object(Bucket=bucket, Key=f"{zone}/orders_2024_09.csv", Body=b"order_id\n10\n")

    wb.remote.bucket.client.meta.events.register("before-send.s3.PutObject", colleague_uploads_first)
    done = wb.remote.sync.sync_zone("ecommerce", "orders")
    assert (wb.project.root / zone / "orders_2024_09.csv").read_text() == "order_id\n10\n"
    [kept] = done["set_aside"]
    assert (wb.project.root / kept).read_text() == "order_id\n9\n"
    body = s3_env.client().get_object(Bucket=bucket, Key=f"{zone}/orders_2024_09.csv")["Body"].read()
    assert body == b"order_id\n10\n"
