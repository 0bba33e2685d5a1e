"""Intervals and backfills through the script face (issue 39): one branch per backfill, main moves once or
not at all, the record of each interval in state.db, reruns that replace exactly an interval's rows."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from rat_tui.core.events import IntervalBuilt
from rat_tui.core.run.recovery import mark_orphans
from tests.helpers import run_cli_here, script
from tests.killhelpers import kill_at
from tests.intervalhelpers import DAILY, NO_NEGATIVES, last_three_days
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark

# 10 rows a day from 2024-01-01 to 2024-01-10, with an amount a quality test can fail on.
SOURCE = """
SELECT id, DATE_ADD(DATE '2024-01-01', CAST(id % 10 AS INT)) AS order_date, CAST(id AS DOUBLE) AS amount
FROM range(100)
"""
BAD_DAY = "CASE WHEN order_date = DATE '2024-01-05' THEN -1 ELSE amount END"
CONFIG = "partitions: {column: order_date, grain: day, start: 2024-01-01, lookback: 1}\n"


def _daily(scratch: Scratch, amount: str) -> str:
    return scratch.pipeline("silver", "daily", DAILY.format(amount=amount), tests=NO_NEGATIVES, config=CONFIG)


def _main_history(scratch: Scratch, fqn: str) -> list[int]:
    """Where main moved to, one entry per run that reached it (the table's creation left out)."""
    return [e["snapshot_id"] for e in scratch.wb.tables.history(fqn).as_dict()["snapshots"] if e["kind"] == "run" and e["on_main"]]


def restart(scratch: Scratch) -> None:
    """What the next start of the app does after a process was killed."""
    mark_orphans(scratch.wb.state, scratch.wb.project)
    scratch.wb.runs.cleanup_leftovers()


def _statuses(lines: dict) -> list[str]:
    return [i["status"] for i in lines["intervals"]]


def test_a_failing_backfill_leaves_main_then_failed_after_a_fix_moves_it_once(scratch: Scratch):
    scratch.pipeline("bronze", "src", SOURCE)
    assert scratch.run(f"{scratch.ns}.bronze.src")["status"] == "success"
    fqn = _daily(scratch, BAD_DAY)
    status, lines = script(scratch.wb, f"intervals {fqn} --start 2024-01-01 --end 2024-01-11\n"
                                       f"backfill {fqn} --start 2024-01-01 --end 2024-01-11")
    assert _statuses(lines[0]) == ["missing"] * 10
    assert [i["start"] for i in lines[0]["intervals"][:2]] == ["2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z"]
    failed = lines[1]
    assert not failed["ok"] and "quality test no_negative_amounts failed with 10 violating row(s)" in failed["error"]
    assert scratch.table_exists("silver", "daily") is False  # a first backfill that failed leaves no table
    status, lines = script(scratch.wb, f"intervals {fqn} --start 2024-01-01 --end 2024-01-11")
    assert _statuses(lines[0]) == ["failed"] * 10
    assert {i["run_id"] for i in lines[0]["intervals"]} == {failed["run"]["run_id"]}

    _daily(scratch, "amount")  # the fix
    status, lines = script(scratch.wb, f"backfill {fqn} --start 2024-01-01 --end 2024-01-11 --failed --dry-run\n"
                                       f"backfill {fqn} --start 2024-01-01 --end 2024-01-11 --failed")
    assert status == 0, lines
    assert len(lines[0]["intervals"]) == 10 and "run" not in lines[0]
    run = lines[1]["run"]
    assert run["status"] == "success" and run["rows_written"] == 100
    assert _statuses(lines[1]) == ["done"] * 10
    assert {i["snapshot_id"] for i in lines[1]["intervals"]} == {run["snapshot_id"]}
    assert _main_history(scratch, fqn) == [run["snapshot_id"]]  # main moved once, for all ten intervals
    assert scratch.rows(f"SELECT order_date, count(*), min(built_for) FROM {fqn} GROUP BY order_date "
                        "ORDER BY order_date")[:2] == [["2024-01-01", 10, "2024-01-01"], ["2024-01-02", 10, "2024-01-02"]]

    # an interval run again replaces exactly its rows
    status, lines = script(scratch.wb, f"backfill {fqn} --start 2024-01-03 --end 2024-01-04 --all")
    assert status == 0, lines
    again = lines[0]["run"]
    assert scratch.rows(f"SELECT count(*), count(DISTINCT id) FROM {fqn}") == [[100, 100]]
    assert scratch.rows(f"SELECT count(*) FROM {fqn} WHERE order_date = DATE '2024-01-03'") == [[10]]
    assert _main_history(scratch, fqn) == [run["snapshot_id"], again["snapshot_id"]]

    # an edit of the pipeline makes its done intervals stale; --stale runs them again
    _daily(scratch, "amount * 2")
    status, lines = script(scratch.wb, f"intervals {fqn} --start 2024-01-01 --end 2024-01-11")
    assert _statuses(lines[0]) == ["stale"] * 10
    status, lines = script(scratch.wb, f"backfill {fqn} --start 2024-01-01 --end 2024-01-03 --stale\n"
                                       f"intervals {fqn} --start 2024-01-01 --end 2024-01-11")
    assert status == 0, lines
    assert _statuses(lines[1]) == ["done"] * 2 + ["stale"] * 8
    assert scratch.rows(f"SELECT sum(amount) FROM {fqn} WHERE order_date = DATE '2024-01-01'") == [[2 * sum(
        range(0, 100, 10))]]

    # nothing missing or failed in the range: no run, and one sentence says what the range holds
    status, lines = script(scratch.wb, f"backfill {fqn} --start 2024-01-01 --end 2024-01-04")
    assert status == 0 and "run" not in lines[0] and "dry_run" not in lines[0]
    assert (lines[0]["intervals"], lines[0]["note"]) == ([], (
        "nothing to backfill from 2024-01-01 to 2024-01-04: none of its 3 interval(s) is missing or failed "
        "(2 done, 1 stale); --stale or --all runs done ones again"))
    status, dry = script(scratch.wb, f"backfill {fqn} --start 2024-01-01 --end 2024-01-04 --dry-run")
    assert status == 0 and dry[0]["dry_run"] is True and dry[0]["note"] == lines[0]["note"]  # it said dry_run only


def test_a_backfill_awaits_review_as_one_and_approve_publishes_every_interval(scratch: Scratch):
    scratch.pipeline("bronze", "src", SOURCE)
    assert scratch.run(f"{scratch.ns}.bronze.src")["status"] == "success"
    fqn = _daily(scratch, "amount")
    status, lines = script(scratch.wb, f"backfill {fqn} --start 2024-01-01 --end 2024-01-03")
    assert status == 0, lines
    first = lines[0]["run"]["snapshot_id"]
    progress: list[IntervalBuilt] = []
    stop = scratch.wb.events.subscribe(lambda e: progress.append(e) if isinstance(e, IntervalBuilt) else None)
    status, lines = script(scratch.wb, f"backfill {fqn} --start 2024-01-03 --end 2024-01-06 --review\n"
                                       f"intervals {fqn} --start 2024-01-01 --end 2024-01-06")
    stop()
    assert status == 0, lines
    assert [(e.number, e.total, e.start, e.end) for e in progress if e.pipeline == fqn] == [
        (1, 3, "2024-01-03", "2024-01-04"), (2, 3, "2024-01-04", "2024-01-05"), (3, 3, "2024-01-05", "2024-01-06")]
    held = lines[0]["run"]
    assert held["status"] == "awaiting_review"
    assert held["diff"]["added"] == 30 and held["diff"]["removed"] == 0
    assert _statuses(lines[1]) == ["done", "done", "missing", "missing", "missing"]
    assert _main_history(scratch, fqn) == [first]
    status, lines = script(scratch.wb, f"approve {held['run_id']}\nintervals {fqn} --start 2024-01-01 --end 2024-01-06")
    assert status == 0, lines
    assert lines[0]["run"]["status"] == "success"
    assert _statuses(lines[1]) == ["done"] * 5
    assert _main_history(scratch, fqn) == [first, lines[0]["run"]["snapshot_id"]]
    assert scratch.rows(f"SELECT count(*) FROM {fqn}") == [[50]]


def test_a_backfill_killed_before_main_moves_leaves_main_and_missing_does_its_intervals(scratch: Scratch,
                                                                                        tmp_path: Path):
    scratch.pipeline("bronze", "src", SOURCE)
    assert scratch.run(f"{scratch.ns}.bronze.src")["status"] == "success"
    fqn = _daily(scratch, "amount")
    status, lines = script(scratch.wb, f"backfill {fqn} --start 2024-01-01 --end 2024-01-03")
    assert status == 0, lines
    main = scratch.refs(fqn)["main"]
    point = "after:quality_tests"  # every interval on the branch, tested; main not moved yet
    assert kill_at(scratch.wb.project.root, fqn, point, tmp_path,
                   f"backfill {fqn} --start 2024-01-01 --end 2024-01-08") == point
    restart(scratch)
    assert scratch.refs(fqn) == {"main": main}
    assert scratch.rows(f"SELECT count(*) FROM {fqn}") == [[20]]
    status, lines = script(scratch.wb, f"intervals {fqn} --start 2024-01-01 --end 2024-01-08\n"
                                       f"backfill {fqn} --start 2024-01-01 --end 2024-01-08 --missing")
    assert _statuses(lines[0]) == ["done"] * 2 + ["missing"] * 5
    assert status == 0, lines
    assert _statuses(lines[1]) == ["done"] * 5
    assert _main_history(scratch, fqn) == [main, lines[1]["run"]["snapshot_id"]]
    assert scratch.rows(f"SELECT count(*), min(order_date), max(order_date) FROM {fqn}") == [
        [70, "2024-01-01", "2024-01-07"]]


def test_a_normal_run_does_the_intervals_since_the_last_done_one_plus_lookback(scratch: Scratch):
    start, fqn = last_three_days(scratch, lookback=1)
    today = start + timedelta(days=3)
    status, lines = script(scratch.wb, f"run {fqn}\nrun {fqn}\nintervals {fqn}")
    assert status == 0, lines
    first, second = lines[0]["run"], lines[1]["run"]
    # three whole days up to now (today's is not over); then the newest done one again (lookback 1)
    assert [(i["start"][:10], i["status"], i["run_id"]) for i in lines[2]["intervals"]] == [
        (str(start), "done", first["run_id"]), (str(start + timedelta(days=1)), "done", first["run_id"]),
        (str(today - timedelta(days=1)), "done", second["run_id"])]
    assert first["rows_written"] == 30 and second["rows_written"] == 10
    assert scratch.rows(f"SELECT count(*) FROM {fqn}") == [[30]]  # today's rows wait for today to end
    # the history calls what they did an interval replace, not the full_refresh it was once labelled
    runs = [e for e in scratch.wb.tables.history(fqn).as_dict()["snapshots"] if e["kind"] == "run"]
    assert [(e["run_id"], e["strategy"]) for e in runs] == [(first["run_id"], "intervals"),
                                                            (second["run_id"], "intervals")]


def test_a_second_backfill_while_one_awaits_review_is_refused_naming_the_held_run(scratch: Scratch):
    scratch.pipeline("bronze", "src", SOURCE)
    assert scratch.run(f"{scratch.ns}.bronze.src")["status"] == "success"
    fqn = _daily(scratch, "amount")
    status, lines = script(scratch.wb, f"backfill {fqn} --start 2024-01-01 --end 2024-01-04 --review\n"
                                       f"backfill {fqn} --start 2024-01-02 --end 2024-01-06 --review")
    held = lines[0]["run"]
    assert held["status"] == "awaiting_review"
    assert status == 1 and not lines[1]["ok"] and "run" not in lines[1]
    assert lines[1]["error"] == (f"{fqn} has run {held['run_id']} awaiting review (its intervals "
                                 f"[2024-01-01T00:00:00Z, 2024-01-04T00:00:00Z)); approve {held['run_id']} or "
                                 f"reject {held['run_id']} before another backfill of it")
    assert [r.run_id for r in scratch.wb.browse.runs(fqn).runs if r.status == "awaiting_review"] == [held["run_id"]]
    status, lines = script(scratch.wb, f"reject {held['run_id']}\n"
                                       f"backfill {fqn} --start 2024-01-02 --end 2024-01-06 --review\n"
                                       f"runs {fqn}")
    assert status == 0, lines
    assert [(r["run_id"] == held["run_id"], r["status"]) for r in lines[2]["runs"][:2]] == [
        (False, "awaiting_review"), (True, "rejected")]


def test_a_partitions_column_the_result_lacks_is_named_by_validate_and_the_run_at_config_yaml(scratch: Scratch):
    scratch.pipeline("bronze", "src", SOURCE)
    assert scratch.run(f"{scratch.ns}.bronze.src")["status"] == "success"
    fqn = scratch.pipeline("silver", "daily", DAILY.format(amount="amount"),
                           config="partitions:\n  grain: day\n  column: nope\n  start: 2024-01-01\n")
    config = f"{scratch.ns}/pipelines/silver/daily/config.yaml"
    why = ("partitions.column 'nope' is not a column of pipeline.sql's result (it makes id, order_date, amount, "
           "built_for)")
    status, lines = script(scratch.wb, f"validate {fqn}")
    assert status == 1 and not lines[0]["ok"]
    assert [p for p in lines[0]["problems"] if p["severity"] == "error"] == [
        {"path": config, "line": 3, "message": why, "severity": "error"}]
    # a run (validate not asked) fails on it, with the same sentence at config.yaml's line, not at pipeline.sql
    status, lines = script(scratch.wb, f"backfill {fqn} --start 2024-01-01 --end 2024-01-03")
    assert lines[0]["run"]["status"] == "failed"
    assert lines[0]["run"]["error"] == f"{config}:3: {why}"


def test_a_run_of_many_intervals_warns_before_it_builds_and_dry_run_lists_them(scratch: Scratch):
    start = datetime.now(timezone.utc).date() - timedelta(days=150)
    # the result lacks the partitions column: the run fails at its first interval, after its plan (cheap to test)
    fqn = scratch.pipeline("silver", "long", "SELECT 1 AS id, '{{ interval_start }}' AS built_for",
                           config=f"partitions: {{column: order_date, grain: day, start: {start}}}\n")
    status, lines = script(scratch.wb, f"run {fqn} --dry-run")
    assert status == 0, lines
    assert "run" not in lines[0] and lines[0]["dry_run"] is True
    assert [i["start"][:10] for i in lines[0]["intervals"][:2]] == [str(start), str(start + timedelta(days=1))]
    assert len(lines[0]["intervals"]) == 150 and {i["status"] for i in lines[0]["intervals"]} == {"missing"}
    assert lines[0]["note"] == f"run would build 150 interval(s), from {start} to {start + timedelta(days=150)}"
    warning = (f"150 intervals to build, from {start} to {start + timedelta(days=150)}: a long run (backfill a "
               "smaller range first, or set partitions.start later)")
    shell = run_cli_here("run", fqn, "-p", str(scratch.wb.project.root), "--no-attach")
    assert shell.returncode == 1
    assert f"  {fqn}  warning: {warning}\n" in shell.stderr
    assert shell.stderr.index(warning) < shell.stderr.index("is not a column of pipeline.sql's result")
    status, lines = script(scratch.wb, f"run {fqn} --dry-run\nrun {fqn} --dry-run --full-refresh")
    assert len(lines[0]["intervals"]) == len(lines[1]["intervals"]) == 150  # the failed run did none of them
    plain = scratch.pipeline("silver", "plain", "SELECT 1 AS id")
    status, lines = script(scratch.wb, f"run {plain} --dry-run")
    assert status == 1 and lines[0]["error"] == (
        f"run --dry-run lists the intervals a partitioned pipeline would build, and {plain} sets no partitions; "
        f"`preview {plain}` runs its query and writes nothing")


def test_a_table_rolled_back_past_a_backfill_shows_its_intervals_as_the_run_before_left_them(scratch: Scratch):
    """After `rollback-table` past a --stale backfill, intervals still said `done` by the rolled-back run and
    `backfill --stale` planned nothing, while main held the old code's rows. The run main holds decides."""
    scratch.pipeline("bronze", "src", SOURCE)
    assert scratch.run(f"{scratch.ns}.bronze.src")["status"] == "success"
    fqn = _daily(scratch, "amount")
    status, lines = script(scratch.wb, f"backfill {fqn} --start 2024-01-01 --end 2024-01-03")
    assert status == 0, lines
    first = lines[0]["run"]
    _daily(scratch, "amount * 2")  # an edit, then its backfill
    status, lines = script(scratch.wb, f"backfill {fqn} --start 2024-01-01 --end 2024-01-03 --stale")
    assert status == 0 and _statuses(lines[0]) == ["done"] * 2, lines
    status, lines = script(scratch.wb, f"rollback-table {fqn} {first['snapshot_id']}\n"
                                       f"intervals {fqn} --start 2024-01-01 --end 2024-01-03\n"
                                       f"backfill {fqn} --start 2024-01-01 --end 2024-01-03 --stale")
    assert status == 0, lines
    assert _statuses(lines[1]) == ["stale"] * 2
    assert {i["run_id"] for i in lines[1]["intervals"]} == {first["run_id"]}
    assert _statuses(lines[2]) == ["done"] * 2
    assert scratch.rows(f"SELECT sum(amount) FROM {fqn} WHERE order_date = DATE '2024-01-01'") == [[2 * sum(
        range(0, 100, 10))]]
