"""Each run gets a Spark session of its own: a Python pipeline's conf changes stay in its run and
its `spark.stop()` is refused, so later runs of every pipeline are unaffected.

Run through `rat-tui --script` in a subprocess: on failure it must not take the shared test
session down with it."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import run_script

pytestmark = pytest.mark.spark

LENIENT = "def run(spark, ctx):\n    spark.conf.set('spark.sql.ansi.enabled', 'false')\n    return spark.range(1)\n"
STOPS = "def run(spark, ctx):\n    df = spark.range(1)\n    spark.stop()\n    return df\n"
STOPS_CONTEXT = "def run(spark, ctx):\n    spark.sparkContext.stop()\n    return spark.range(1)\n"
STRICT = "SELECT CAST('abc' AS INT) AS id\n"


def test_a_pipeline_cannot_change_or_stop_the_session_of_later_runs(tmp_path: Path):
    root = tmp_path / "project"
    for layer, name, file, text in (("bronze", "lenient", "pipeline.py", LENIENT), ("bronze", "stops", "pipeline.py", STOPS),
                                    ("bronze", "stops_context", "pipeline.py", STOPS_CONTEXT),
                                    ("silver", "strict", "pipeline.sql", STRICT), ("silver", "fine", "pipeline.sql", "SELECT 1 AS id\n")):
        (root / "ns" / "pipelines" / layer / name).mkdir(parents=True)
        (root / "ns" / "pipelines" / layer / name / file).write_text(text)
    status, results, stderr = run_script(root, (
        "run ns.bronze.lenient\nrun ns.silver.strict\nrun ns.bronze.stops\nrun ns.bronze.stops_context\n"
        "run ns.silver.fine\nquery SELECT 1 AS one\n"), "--keep-going")
    assert [r["ok"] for r in results] == [True, False, False, False, True, True], (results, stderr)
    assert "cannot be cast" in results[1]["error"] and "'abc'" in results[1]["error"]
    refused = "RuntimeError in run(): stopping the Spark session is not allowed in a pipeline: every run shares it"
    assert results[2]["run"]["error"] == f"ns/pipelines/bronze/stops/pipeline.py:3: {refused}"
    assert results[3]["run"]["error"] == f"ns/pipelines/bronze/stops_context/pipeline.py:2: {refused}"
    assert results[5]["rows"] == [[1]]
