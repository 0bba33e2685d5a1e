"""Freshness through script mode, with `--at` as the clock (issue 39): by the commit time of the last
successful run on main, by the newest value of a column, and the `stale` trigger with its cooldown."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from tests.helpers import run_cli_here, script

pytestmark = pytest.mark.spark

POLICY = "freshness:\n  warn_after: 6h\n  error_after: 1d\n"
HOUR = 3600.0


def moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def iso(when: datetime) -> str:
    return when.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def test_freshness_by_commit_time_at_three_moments(lake, scratch):
    fqn = scratch.pipeline("bronze", "orders", "SELECT 1 AS id", config=POLICY)
    never = scratch.pipeline("bronze", "unbuilt", "SELECT 1 AS id", config=POLICY)
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    commit = lake.tables.snapshots(fqn).as_dict()["snapshots"][-1]["committed_at"]
    last = moment(commit)
    status, results = script(lake, f"freshness {scratch.ns} --at {iso(last + timedelta(hours=1))}\n"
                                   f"freshness {fqn} --at {iso(last + timedelta(hours=7))}\n"
                                   f"freshness {fqn} --at {iso(last + timedelta(days=2))}\n")
    assert status == 1, results  # the last is past error_after: not ok, so CI can gate on it
    first = {f["pipeline"]: f for f in results[0]["freshness"]}
    assert set(first) == {fqn, never}
    assert moment(first[fqn]["last_success_at"]) == last
    assert (first[fqn]["age_s"], first[fqn]["status"]) == (pytest.approx(HOUR), "fresh")
    assert (first[fqn]["warn_after"], first[fqn]["error_after"], first[fqn]["newest_value"]) == ("6h", "1d", None)
    assert (first[never]["last_success_at"], first[never]["age_s"], first[never]["status"]) == (None, None, "never")
    assert results[0]["ok"] and results[1]["ok"]
    assert [(f["age_s"], f["status"]) for f in results[1]["freshness"]] == [(pytest.approx(7 * HOUR), "warn")]
    assert results[2]["ok"] is False
    assert [(f["age_s"], f["status"]) for f in results[2]["freshness"]] == [(pytest.approx(48 * HOUR), "error")]
    assert results[2]["error"] == f"1 table(s) past error_after; first: {fqn}, 2d old (error_after 1d)"

    # the shell command: a table for people, exit 1 on error (no Spark: commit times are on disk)
    shell = run_cli_here("freshness", fqn, "--at", iso(last + timedelta(days=2)), "-p", str(lake.project.root),
                         "--no-attach")
    assert shell.returncode == 1, shell.stderr
    header, row = shell.stdout.splitlines()[1:3]
    assert header.split() == ["pipeline", "last_success_at", "newest_value", "age", "status", "warn_after",
                              "error_after"]
    assert row.startswith(fqn[:40]) and row.split()[-4:] == ["2d", "error", "6h", "1d"]  # an age for people
    assert f"1 table(s) past error_after; first: {fqn}, 2d old" in shell.stderr


def test_freshness_by_column_measures_the_newest_value(lake, scratch):
    fqn = scratch.pipeline("silver", "events", """
        SELECT * FROM VALUES (1, TIMESTAMP '2025-03-01 08:00:00'), (2, TIMESTAMP '2025-03-02 10:30:00')
        AS v(id, updated_at)""", config=POLICY + "  column: updated_at\n")
    assert scratch.run(fqn)["status"] == "success"
    status, results = script(lake, f"freshness {fqn} --at 2025-03-02T12:30:00Z\n"
                                   f"freshness {fqn} --at 2025-03-02T20:30:00Z\n"
                                   f"freshness {fqn} --at 2025-03-03T10:30:00Z\n")
    [fresh], [warn], [error] = (r["freshness"] for r in results)
    assert fresh["newest_value"] == "2025-03-02T10:30:00Z"
    assert (fresh["age_s"], fresh["status"]) == (2 * HOUR, "fresh")
    assert (warn["age_s"], warn["status"]) == (10 * HOUR, "warn")
    assert (error["age_s"], error["status"]) == (24 * HOUR, "error")
    assert status == 1 and [r["ok"] for r in results] == [True, True, False]
    # a clock before the newest value would give a negative age: the question is asked wrong, and says so
    status, results = script(lake, f"freshness {fqn} --at 2025-03-02T08:00:00Z\n")
    assert status == 1 and "freshness" not in results[0]
    assert results[0]["error"] == (f"--at 2025-03-02T08:00:00Z is 2h 30m before the data of {fqn} (its newest value, "
                                   "2025-03-02T10:30:00Z): the tables are read as they are now, so ask --at a time "
                                   "after it")


def test_a_missing_freshness_column_names_the_config(lake, scratch):
    fqn = scratch.pipeline("silver", "nocol", "SELECT 1 AS id", config=POLICY + "  column: updated_at\n")
    assert scratch.run(fqn)["status"] == "success"
    status, results = script(lake, f"freshness {fqn}\n")
    assert status == 1
    assert results[0]["error"].startswith(f"{scratch.ns}/pipelines/silver/nocol/config.yaml: freshness.column "
                                          f"'updated_at' of {fqn} cannot be read as a time")


def ticked(result: dict, pipeline: str) -> tuple[list, list]:
    """(fired, skipped) of a tick result for one pipeline, with the scheduled times as datetimes."""
    return ([(moment(f["scheduled_for"]), f["kind"], f["status"]) for f in result["fired"] if f["pipeline"] == pipeline],
            [(moment(s["scheduled_for"]), s["reason"]) for s in result["skipped"] if s["pipeline"] == pipeline])


def test_stale_trigger_fires_when_the_table_turns_warn_and_obeys_cooldown(lake, scratch):
    config = POLICY + "triggers:\n  - stale: true\ncooldown: 10h\n"
    fqn = scratch.pipeline("bronze", "stale", "SELECT 1 AS id", config=config)
    try:
        assert scratch.run(fqn)["status"] == "success"
        last = moment(lake.tables.snapshots(fqn).as_dict()["snapshots"][-1]["committed_at"])
        turned = last + timedelta(hours=6)
        first_tick = last + timedelta(hours=6, minutes=1)
        status, results = script(lake, f"tick --at {iso(last + timedelta(hours=1))}\n"
                                       f"tick --at {iso(first_tick)}\n")
        assert status == 0, results
        assert ticked(results[0], fqn) == ([], [])
        assert ticked(results[1], fqn) == ([(turned, "stale", "success")], [])

        # the run it fired made the table fresh again; its commit turns warn 6 h later, inside the 10 h
        # cooldown: a skip with its reason
        second = moment(lake.tables.snapshots(fqn).as_dict()["snapshots"][-1]["committed_at"])
        assert second > last
        status, results = script(lake, f"tick --at {iso(second + timedelta(hours=5))}\n")
        assert ticked(results[0], fqn) == ([], [])
        inside = max(second + timedelta(hours=6, minutes=1), first_tick + timedelta(hours=6, minutes=1))
        after = first_tick + timedelta(hours=10, minutes=1)
        status, results = script(lake, f"tick --at {iso(inside)}\n"
                                       f"tick --at {iso(inside + timedelta(minutes=1))}\n"
                                       f"tick --at {iso(after)}\n"
                                       f"runs {fqn}\n")
        assert status == 0, results
        fired, skipped = ticked(results[0], fqn)
        assert fired == [] and [s[0] for s in skipped] == [second + timedelta(hours=6)]
        assert skipped[0][1].startswith("cooldown 10h: last fired at ")
        assert moment(skipped[0][1].split()[5].rstrip(";")) == first_tick
        assert ticked(results[1], fqn) == ([], [])  # still cooling down: no second skip recorded
        assert ticked(results[2], fqn) == ([(after, "stale", "success")], [])
        assert [(r["trigger"], r["status"]) for r in results[3]["runs"]] == [
            ("stale", "success"), ("stale", "success"), ("manual", "success")]
    finally:
        (scratch.root / "pipelines" / "bronze" / "stale" / "config.yaml").unlink()


def test_a_broken_policy_fails_the_gate_with_its_file_and_line(lake, scratch):
    """A gate on `freshness` passed (exit 0, 'fresh') while the policy said `warn_after: 6x`: the bad key was
    dropped without a word and only `validate` knew (new-user trial)."""
    fqn = scratch.pipeline("bronze", "sales", "SELECT 1 AS id", config="# my policy\nfreshness:\n  warn_after: 6x\n")
    status, results = script(lake, f"freshness {fqn}\n")  # its runs are refused: config.yaml has an error
    assert status == 1 and results[0]["ok"] is False
    assert results[0]["error"].startswith(f"{scratch.ns}/pipelines/bronze/sales/config.yaml:")
    assert "freshness.warn_after '6x'" in results[0]["error"]
    assert results[0]["error"].endswith(f"so {fqn}'s freshness cannot be judged")
