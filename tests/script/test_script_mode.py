"""The `--script` contract details a newcomer meets first: free text taken verbatim, no surprise runs."""
from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest

from rat_tui.script.commands import COMMANDS
from rat_tui.script.parser import parse_script
from tests.helpers import run_script_here

SQL = "SELECT count(*) AS n FROM VALUES ('Rome'), ('Oslo'), ('it''s') AS t(city) WHERE city = 'Rome'"


def test_query_sql_is_the_rest_of_the_line_verbatim():
    text = f"query   {SQL}  \nexpect-screen it's \"done\" --timeout 3\npublish a.b.c -m 'two words'\n"
    query, expect, publish = parse_script(text, COMMANDS)
    assert query.rest == SQL
    assert (expect.rest, expect.args) == ("it's \"done\"", ["--timeout", "3"])
    assert publish.args == ["a.b.c", "-m", "two words"]  # options stay shell-split


def test_free_text_commands_need_their_text(sample_copy: Path):
    status, results, _ = run_script_here(sample_copy, "query\n")
    assert status == 1
    assert results[0]["error"] == "query needs SQL after the command, as in: query SELECT 1"


@pytest.mark.spark
def test_query_keeps_quotes_in_sql(sample_copy: Path):
    status, results, stderr = run_script_here(sample_copy, f"query {SQL}\n")
    assert status == 0, (results, stderr)
    assert results[0]["rows"] == [[1]]


PIPELINE = "ecommerce/pipelines/bronze/batches/pipeline.sql"
WRITE = f"write {PIPELINE} <<EOF\n-- @merge_strategy: append_only\nSELECT 1 AS id\nEOF\n"


@pytest.mark.spark
def test_write_then_run_runs_once_unless_the_script_turns_watch_on(sample_copy: Path):
    script = (WRITE + "run ecommerce.bronze.batches\nwait-idle --timeout 5\nquery SELECT count(*) FROM ecommerce.bronze.batches\n"
              "watch on\n" + WRITE.replace("SELECT 1", "SELECT 2") + "wait-idle --timeout 60\n"
              "query SELECT id FROM ecommerce.bronze.batches ORDER BY id\nwatch off\n")
    status, results, stderr = run_script_here(sample_copy, script)
    assert status == 0, (results, stderr)
    assert [r["cmd"] for r in results] == ["write", "run", "wait-idle", "query", "watch", "write", "wait-idle",
                                           "query", "watch"]
    assert results[2]["runs"] == [] and results[3]["rows"] == [[1]]  # the watcher did not run it again
    assert results[4]["watching"] is True and results[8]["watching"] is False
    assert [(r["pipeline"], r["trigger"], r["status"]) for r in results[6]["runs"]] == [
        ("ecommerce.bronze.batches", "watch", "success")]
    assert results[7]["rows"] == [[1], [2]]


SLOW = "ecommerce/pipelines/silver/busy/pipeline.sql"
# One aggregate over 48 range partitions: a few seconds of tasks in build_result (a keyed result is
# materialised there).
BUSY = (f"write {SLOW} <<EOF\n-- @merge_strategy: incremental\n-- @unique_key: id\n"
        "SELECT 1 AS id, sum(hash(id)) AS s FROM range(0, 300000000, 1, 48)\nEOF\n")


@pytest.mark.spark
def test_events_report_spark_tasks_inside_the_running_phase(sample_copy: Path):
    status, lines, stderr = run_script_here(sample_copy, BUSY + "run ecommerce.silver.busy\n", "--events")
    assert status == 0, (lines, stderr)
    events = [line for line in lines if "event" in line]
    progress = [e for e in events if e["event"] == "PhaseProgress"]
    assert progress, "no progress event"
    assert all(0 <= e["tasks_done"] <= e["tasks_total"] and e["tasks_total"] > 0 for e in progress)
    # a keyed first load runs its query inside the write (straight to the branch, no materialised result)
    assert any(e["phase"] == "iceberg_write" and e["tasks_total"] >= 48 for e in progress)
    running = None  # every figure arrives while its phase runs, never after it finished
    for e in events:
        if e["event"] == "PhaseStarted":
            running = e["phase"]
        elif e["event"] == "PhaseFinished":
            running = None
        elif e["event"] == "PhaseProgress":
            assert e["phase"] == running, e
    figures = [(e["phase"], e["tasks_done"], e["tasks_total"]) for e in progress]
    assert all(a != b for a, b in pairwise(figures)), "a figure repeated in a phase: not coalesced"
