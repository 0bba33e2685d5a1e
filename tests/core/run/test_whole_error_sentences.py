"""A Spark or Iceberg error whose sentence goes on past its first line is made one whole line, and
reaches the run record and `runs.jsonl` so."""
from __future__ import annotations

import pytest

from rat_tui.core.lake.spark_errors import summarise
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark

APPEND = "-- @merge_strategy: append_only\n"
# A date spine stepped by 1 instead of INTERVAL 1 DAY: Spark's refusal lists the rules on the lines
# after its first ("The parameter type must conform to:")
WRONG_STEP = "SELECT explode(sequence(DATE'2024-01-01', DATE'2024-01-31', 1)) AS day"


def test_a_spark_refusal_keeps_the_rules_after_its_first_line(scratch: Scratch):
    fqn = scratch.pipeline("silver", "days", APPEND + WRONG_STEP)
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    error = run["error"]
    assert error.startswith(f"{scratch.ns}/pipelines/silver/days/pipeline.sql:2: SQL error: Cannot resolve ")
    assert "The parameter type must conform to: 1. The start and stop expressions must resolve to the same type. " \
           "2. If start and stop expressions resolve to the" in error
    assert error.endswith('3. Otherwise, if start and stop expressions resolve to the "INTEGRAL" type, then the step '
                          "expression must resolve to the same type")
    assert len(error.splitlines()) == 1
    logged = scratch.wb.run_log.read(run["run_id"])
    finished = [e for e in logged if e["event"] == "RunFinished"]
    assert [e["error"] for e in finished] == [error]
    failed_phase = [e for e in logged if e["event"] == "PhaseFinished" and not e["ok"]]
    assert [e["message"] for e in failed_phase] == [error]


def test_an_iceberg_schema_refusal_keeps_its_schemas_and_problems(scratch: Scratch):
    """Runs write in the table's column order (schema_evolution.align), so a write straight to the
    table in another order provokes Iceberg's refusal: a sentence over a dozen lines (the table's
    schema, the written schema, the problems)."""
    fqn = scratch.pipeline("silver", "reordered", APPEND + "SELECT 1 AS id, 'a' AS code")
    assert scratch.run(fqn)["status"] == "success"
    with scratch.wb.spark.using() as spark:
        with pytest.raises(Exception) as raised:
            spark.sql("SELECT 'b' AS code, 2 AS id").writeTo(fqn).append()
    error, line = summarise(raised.value)
    assert len(str(raised.value).splitlines()) > 10 and line is None
    assert error == ("Cannot write incompatible dataset to table with schema: table { 1: id: optional int, "
                     "2: code: optional string } Provided schema: table { 2: code: required string, "
                     "1: id: required int } Problems: code is out of order, before id")


def test_an_unresolved_column_keeps_its_suggestions(scratch: Scratch):
    fqn = scratch.pipeline("silver", "typo", "SELECT stauts FROM VALUES (1, 'new') AS v(id, status)")
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert run["error"].endswith("`stauts` cannot be resolved. Did you mean one of the following? [`status`, `id`]")
