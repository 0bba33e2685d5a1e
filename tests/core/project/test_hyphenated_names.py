"""Hyphens are allowed in namespace, pipeline and zone names (`[a-z][a-z0-9_-]*`), so every
identifier the product builds is back-quoted: runs, refs, `this`, merges, quality tests,
snapshots, queries, previews, compaction, rollback and the TUI tree all work with them."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import run_script_here

pytestmark = pytest.mark.spark


def write(root: Path, relpath: str, text: str) -> None:
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_hyphenated_namespace_pipeline_zone_and_ref_end_to_end(tmp_path: Path):
    root = tmp_path / "project"
    write(root, "my-ns/landing/in-box/my file.csv", "order_id,amount\n1,10\n2,20\n")
    write(root, "my-ns/pipelines/bronze/raw-orders/pipeline.sql",
          "SELECT CAST(order_id AS BIGINT) AS order_id, CAST(amount AS INT) AS amount FROM {{ landing_zone('in-box') }}\n")
    write(root, "my-ns/pipelines/silver/my-pipe/pipeline.sql",
          "-- @merge_strategy: incremental\n-- @unique_key: order_id\n"
          "SELECT order_id, amount * 2 AS amount FROM {{ ref('bronze.raw-orders') }}\n")
    write(root, "my-ns/pipelines/silver/my-pipe/tests/quality/positive.sql", "SELECT * FROM {{ this }} WHERE amount <= 0\n")
    write(root, "other-ns/pipelines/gold/sum-up/pipeline.sql",
          "SELECT SUM(amount) AS total FROM {{ ref('my-ns.silver.my-pipe') }}\n")
    script = (
        "run my-ns.bronze.raw-orders\n"
        "run my-ns.silver.my-pipe\n"
        "run my-ns.silver.my-pipe\n"
        "run other-ns.gold.sum-up\n"
        "preview other-ns.gold.sum-up\n"
        "query SELECT order_id, amount FROM `my-ns`.silver.`my-pipe` ORDER BY order_id\n"
        "snapshots my-ns.silver.my-pipe\n"
        "tables\n"
        "table-preview my-ns.silver.my-pipe\n"
        "compact my-ns.silver.my-pipe\n"
        "doctor\n"
        "expect-screen my-pipe\n"
        "expect-screen other-ns\n"
        "expect-screen raw-orders\n"
    )
    status, results, stderr = run_script_here(root, script)
    assert status == 0, (results, stderr)
    assert results[3]["run"]["rows_written"] == 1
    assert results[4]["rows"] == [[60]]
    assert results[5]["rows"] == [[1, 20], [2, 40]]
    snapshots = results[6]
    assert snapshots["refs"] == {"main": results[2]["run"]["snapshot_id"]} and len(snapshots["snapshots"]) >= 2
    assert {t["name"] for t in results[7]["tables"]} == {
        "my-ns.bronze.raw-orders", "my-ns.silver.my-pipe", "other-ns.gold.sum-up"}
    assert sorted(results[8]["rows"]) == [[1, 20], [2, 40]]
    first = snapshots["snapshots"][1]["snapshot_id"]
    status, results, stderr = run_script_here(root, f"rollback-table my-ns.silver.my-pipe {first}\npurge\n")
    assert status == 0, (results, stderr)
