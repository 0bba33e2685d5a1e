"""Runs of a project kept in a bucket: `rat-tui --script` in fresh folders, each with its own Spark."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SAMPLE
from tests.helpers import archiving_raw_orders, run_script, run_script_here
from tests.s3helpers import bucket_project, keys, new_bucket

pytestmark = pytest.mark.spark


def by_cmd(results: list[dict]) -> dict[str, dict]:
    return {r["cmd"]: r for r in results}


def test_the_sample_project_pushed_to_a_bucket_runs_from_another_folder(s3_env, tmp_path: Path):
    bucket = new_bucket(s3_env)
    laptop = bucket_project(tmp_path / "laptop", s3_env, bucket, SAMPLE)
    archiving_raw_orders(laptop / "ecommerce")
    status, results, stderr = run_script_here(laptop, "push\n")
    assert status == 0, stderr
    assert "ecommerce/pipelines/bronze/raw_orders/pipeline.sql" in results[0]["pipelines"]

    fresh = bucket_project(tmp_path / "colleague", s3_env, bucket)  # nothing but rat.yaml
    status, results, stderr = run_script_here(fresh, (
        "ls\n"
        "run ecommerce.bronze.raw_orders\n"
        "run ecommerce.silver.clean_orders\n"
        "query SELECT count(*) AS n FROM ecommerce.silver.clean_orders\n"
    ))
    assert status == 0, stderr + str(results)
    assert "ecommerce.silver.clean_orders" in results[0]["namespaces"][1]["pipelines"]
    run_id = results[1]["run"]["run_id"]
    assert results[3]["rows"][0][0] > 0

    # the archiving raw_orders moved what it read: the objects moved in the bucket, and in the local cache
    stored = keys(s3_env, bucket, "ecommerce/landing/orders/")
    active = [k for k in stored if k.count("/") == 3]
    archived = sorted(k.rsplit("/", 1)[-1] for k in stored if f"/_processed/{run_id}/" in k)
    assert active == [] and archived == ["orders_2024_01.csv", "orders_2024_02.csv", "orders_2024_03.csv"]
    assert not list((fresh / "ecommerce/landing/orders").glob("orders_*.csv"))

    # the laptop's next sync sees the zone emptied by the colleague's run
    status, results, _ = run_script_here(tmp_path / "laptop", "sample ecommerce orders\n")
    assert not list((tmp_path / "laptop/ecommerce/landing/orders").glob("orders_*.csv"))


def test_a_colleague_runs_the_published_version_by_its_object_versions(s3_env, tmp_path: Path):
    bucket = new_bucket(s3_env)
    project = bucket_project(tmp_path / "p", s3_env, bucket)
    status, results, stderr = run_script_here(project, (
        "write shop/pipelines/bronze/prices/pipeline.sql <<EOF\n"
        "-- @merge_strategy: full_refresh\nSELECT 1 AS version\nEOF\n"
        "publish shop.bronze.prices -m one\n"
        "write shop/pipelines/bronze/prices/pipeline.sql <<EOF\n"
        "-- @merge_strategy: full_refresh\nSELECT 2 AS version\nEOF\n"
    ))
    assert status == 0, stderr + str(results)

    # a colleague's fresh folder: the published list and the pinned content come from the bucket
    colleague = bucket_project(tmp_path / "colleague", s3_env, bucket)
    status, results, stderr = run_script_here(colleague, (
        "run shop.bronze.prices --published\n"
        "query SELECT version FROM shop.bronze.prices\n"
        "run shop.bronze.prices\n"
        "query SELECT version FROM shop.bronze.prices\n"
        "rollback shop.bronze.prices 1 --restore\n"
        "run shop.bronze.prices\n"
        "query SELECT version FROM shop.bronze.prices\n"
        "versions shop.bronze.prices\n"
    ))
    assert status == 0, stderr + str(results)
    assert results[0]["run"]["version"] == "1" and results[1]["rows"] == [[1]]
    assert results[2]["run"]["version"] == "draft" and results[3]["rows"] == [[2]]
    assert results[6]["rows"] == [[1]]
    assert [v["message"] for v in results[7]["versions"]] == ["one", "rollback to version 1"]
    current = s3_env.client().get_object(Bucket=bucket, Key="shop/pipelines/bronze/prices/pipeline.sql")
    assert b"SELECT 1 AS version" in current["Body"].read()


def test_direct_mode_without_spark_s3_jars_says_exactly_that(s3_env, tmp_path: Path):
    bucket = new_bucket(s3_env)
    project = bucket_project(tmp_path / "p", s3_env, bucket, SAMPLE)
    with (project / "rat.yaml").open("a") as fh:
        fh.write("  direct: true\n")
    status, results, stderr = run_script_here(project, "run ecommerce.bronze.raw_orders\n")
    assert status == 1
    message = results[0]["error"] if results else stderr
    assert "keeps data on S3, but Spark's S3 jars are missing" in message
    assert "org.apache.hadoop:hadoop-aws:3.3.4" in message, message


def test_killed_between_copy_and_delete_in_the_bucket_the_next_start_puts_everything_back(s3_env, tmp_path: Path):
    from rat_tui.core.compose import open_project
    from tests.killhelpers import kill_at

    bucket = new_bucket(s3_env)
    project = bucket_project(tmp_path / "p", s3_env, bucket, SAMPLE)
    archiving_raw_orders(project / "ecommerce")
    open_project(project).bucket.push()
    zone = "ecommerce/landing/orders/"
    before = [k for k in keys(s3_env, bucket, zone) if k.count("/") == 3]

    assert kill_at(project, "ecommerce.bronze.raw_orders", "during:bucket_archive", tmp_path) == "during:bucket_archive"
    stored = keys(s3_env, bucket, zone)
    assert [k for k in stored if "/_processed/" in k] and set(before) <= set(stored)  # copied, not yet deleted

    wb = open_project(project)  # the next start: the orphaned run's files go back, on both sides
    assert [r.status for r in wb.recovered] == ["running"]
    assert wb.state.get_run(wb.recovered[0].run_id).status == "failed"
    stored = keys(s3_env, bucket, zone)
    assert [k for k in stored if k.count("/") == 3] == before and not [k for k in stored if "/_processed/" in k]
    assert sorted(p.name for p in (project / zone).glob("orders_*.csv")) == [k.rsplit("/", 1)[-1] for k in before]
    assert not (project / zone / "_processed").exists() or not any((project / zone / "_processed").rglob("*.csv"))

    status, results, stderr = run_script(project, "run ecommerce.bronze.raw_orders\n")
    assert status == 0, stderr
    run_id = results[0]["run"]["run_id"]
    stored = keys(s3_env, bucket, zone)
    assert sorted(k.rsplit("/", 1)[-1] for k in stored if f"/_processed/{run_id}/" in k) == \
        [k.rsplit("/", 1)[-1] for k in before]
    assert [k for k in stored if k.count("/") == 3] == []
