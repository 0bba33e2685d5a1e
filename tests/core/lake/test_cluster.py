"""The sample project on a real local standalone cluster gives the same results as local[*]."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.helpers import run_cli, run_script, run_script_here

pytestmark = pytest.mark.spark

SCRIPT = """\
run ecommerce.bronze.raw_orders
run ecommerce.bronze.raw_events
run ecommerce.silver.clean_orders
run ecommerce.silver.dim_customers
run ecommerce.gold.daily_revenue
run ecommerce.gold.monthly_orders
query SELECT COUNT(*), SUM(amount), MAX(updated_at) FROM ecommerce.silver.clean_orders
query SELECT * FROM ecommerce.gold.daily_revenue ORDER BY order_date
query SELECT month, status, orders FROM ecommerce.gold.monthly_orders ORDER BY 1, 2
query SELECT event_type, COUNT(*) FROM ecommerce.bronze.raw_events GROUP BY 1 ORDER BY 1
query SELECT COUNT(*) FROM ecommerce.silver.dim_customers WHERE valid_to IS NULL
"""


def results(ran: tuple[int, list[dict], str]) -> list:
    status, lines, stderr = ran
    assert status == 0, (lines, stderr[-3000:])
    return [line["rows"] for line in lines if line["cmd"] == "query"]


def test_sample_pipelines_on_a_standalone_cluster_match_local(tmp_path: Path, sample_copy: Path):
    import shutil

    cluster_copy = tmp_path / "on_cluster"
    shutil.copytree(sample_copy, cluster_copy)
    started = run_cli("cluster", "start", str(cluster_copy), "--cores", "2", "--memory", "1g", timeout=120)
    assert started.returncode == 0, started.stderr
    try:
        info = json.loads(started.stdout)
        assert info["running"] and info["workers"] == 1 and info["cores"] == 2
        assert re.fullmatch(r"spark://127\.0\.0\.1:\d+", info["master_url"])
        settings = cluster_copy / "rat.yaml"
        settings.write_text(settings.read_text().replace("master: local[2]", f"master: {info['master_url']}"))
        on_cluster = results(run_script(cluster_copy, SCRIPT, timeout=600))  # a child: its master is the cluster's
        status = json.loads(run_cli("cluster", "status", str(cluster_copy)).stdout)
        assert status["running"]
    finally:
        stopped = run_cli("cluster", "stop", str(cluster_copy))
    assert json.loads(stopped.stdout)["stopped"] == ["master", "worker"]
    assert json.loads(run_cli("cluster", "status", str(cluster_copy)).stdout) == {"running": False}
    local = results(run_script_here(sample_copy, SCRIPT))  # local: on the session's JVM
    assert on_cluster == local
    assert on_cluster[0][0][0] == 300


def test_a_catalog_on_s3_without_the_jars_is_one_clear_sentence(sample_copy: Path):
    (sample_copy / "rat.yaml").write_text(
        "catalog:\n  type: hadoop\n  properties:\n    warehouse: s3a://rat/{namespace}/warehouse\n")
    status, lines, stderr = run_script_here(sample_copy, "run ecommerce.bronze.raw_products\n")
    assert status == 1
    error = lines[0]["error"]
    assert "the Spark session failed to start" in error
    assert "keeps data on S3, but Spark's S3 jars are missing" in error
    assert "org.apache.iceberg:iceberg-aws-bundle:1.10.2" in error and "spark.jars_packages" in error
    assert "Traceback" not in stderr
