"""A Spark or Iceberg error whose sentence goes on past its first line reaches the run record and
`runs.jsonl` whole, in one line."""
from __future__ import annotations

import pytest

from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark

APPEND = "-- @merge_strategy: append_only\n"


def reordered_columns_failure(scratch: Scratch) -> tuple[str, dict]:
    """An append whose columns come in another order than the table's: Iceberg refuses it with a
    sentence over a dozen lines (the table's schema, the written schema, the problems)."""
    fqn = scratch.pipeline("silver", "reordered", APPEND + "SELECT 1 AS id, 'a' AS code")
    assert scratch.run(fqn)["status"] == "success"
    scratch.pipeline("silver", "reordered", APPEND + "SELECT 'b' AS code, 2 AS id")
    return fqn, scratch.run(fqn)


def test_an_iceberg_schema_refusal_keeps_its_schemas_and_problems(scratch: Scratch):
    fqn, run = reordered_columns_failure(scratch)
    assert run["status"] == "failed"
    error = run["error"]
    assert "Cannot write incompatible dataset to table with schema: table { 1: id: optional int, " \
           "2: code: optional string }" in error
    assert "Provided schema: table { 2: code: required string, 1: id: required int }" in error
    assert error.endswith("Problems: code is out of order, before id")
    assert len(error.splitlines()) == 1
    logged = scratch.wb.run_log.read(run["run_id"])
    finished = [e for e in logged if e["event"] == "RunFinished"]
    assert [e["error"] for e in finished] == [error]
    failed_phase = [e for e in logged if e["event"] == "PhaseFinished" and not e["ok"]]
    assert failed_phase and failed_phase[0]["message"] in error and "out of order, before id" in failed_phase[0]["message"]


def test_an_unresolved_column_keeps_its_suggestions(scratch: Scratch):
    fqn = scratch.pipeline("silver", "typo", "SELECT stauts FROM VALUES (1, 'new') AS v(id, status)")
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert run["error"].endswith("`stauts` cannot be resolved. Did you mean one of the following? [`status`, `id`]")
