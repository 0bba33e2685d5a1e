"""The project on a JDBC (PostgreSQL) Iceberg catalog: runs, two processes, never a lost commit."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import run_script, run_script_here
from tests.postgres import JDBC_JAR, PostgresServer

pytestmark = pytest.mark.spark


@pytest.fixture
def jdbc_project(sample_copy: Path, monkeypatch: pytest.MonkeyPatch):
    server = PostgresServer().start()
    monkeypatch.setenv("RAT_TEST_PG_USER", "postgres")
    (sample_copy / "rat.yaml").write_text(
        "spark:\n  master: local[2]\n"
        f"  extra_jars: [{JDBC_JAR}]\n"
        "catalog:\n  type: jdbc\n  properties:\n"
        f"    uri: {server.jdbc_url}\n"
        "    jdbc.user: ${RAT_TEST_PG_USER}\n")
    yield sample_copy, server
    server.stop()


def catalog_rows(server: PostgresServer) -> list[str]:
    out = subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(server.port), "-U", "postgres", "-d", "rat", "-At", "-c",
                          "SELECT catalog_name || '.' || table_namespace || '.' || table_name FROM iceberg_tables "
                          "ORDER BY 1"], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_runs_on_a_postgres_catalog_and_two_processes_share_it(jdbc_project):
    project, server = jdbc_project
    status, results, stderr = run_script(project, "run ecommerce.bronze.raw_orders\nrun ecommerce.bronze.raw_products\n"
                                         "snapshots ecommerce.bronze.raw_orders\ntables\n")
    assert status == 0, (results, stderr[-2000:])
    assert catalog_rows(server) == ["ecommerce.bronze.raw_orders", "ecommerce.bronze.raw_products"]
    assert results[2]["refs"] == {"main": results[0]["run"]["snapshot_id"]}  # read without a JVM, from the files
    # the layout on disk is the same as with the default catalog
    assert (project / "ecommerce" / "warehouse" / "bronze" / "raw_orders" / "metadata").is_dir()

    # two processes at once, different pipelines: both commits land
    procs = [subprocess.Popen([sys.executable, "-m", "rat_tui", str(project), "--script", "-"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy())
             for _ in range(2)]
    for proc, pipeline in zip(procs, ("ecommerce.silver.clean_orders", "ecommerce.silver.dim_customers")):
        proc.stdin.write(f"run {pipeline}\n")
        proc.stdin.close()
    outcomes = [json.loads(proc.stdout.read().splitlines()[0]) for proc in procs]
    for proc in procs:
        proc.wait(300)
    assert [o["run"]["status"] for o in outcomes] == ["success", "success"], outcomes
    status, results, _ = run_script(project, "query SELECT COUNT(*) FROM ecommerce.silver.clean_orders\n"
                                    "query SELECT COUNT(*) FROM ecommerce.silver.dim_customers\nruns --limit 10\n")
    assert status == 0 and results[0]["rows"] == [[300]] and results[1]["rows"] == [[60]]
    assert len(results[2]["runs"]) == 4  # every process's runs in the one shared history
    assert "ecommerce.silver.clean_orders" in catalog_rows(server)


def test_a_missing_credential_is_one_sentence(jdbc_project, monkeypatch: pytest.MonkeyPatch):
    project, _ = jdbc_project
    monkeypatch.delenv("RAT_TEST_PG_USER")
    status, results, _ = run_script_here(project, "run ecommerce.bronze.raw_products\n")
    assert status == 1
    assert "uses ${RAT_TEST_PG_USER}, which is not set in the environment" in results[0]["error"]
