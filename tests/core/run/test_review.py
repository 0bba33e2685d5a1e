"""Review before merge on real tables: a run held on its branch, approved or rejected, its diff gates."""
from __future__ import annotations

import pytest

from rat_tui.core.errors import RatError
from tests.lakehelpers import Scratch, findings

pytestmark = pytest.mark.spark

KEYED = """-- @merge_strategy: incremental
-- @unique_key: id
{extra}SELECT * FROM VALUES {rows} AS v(id, name)"""


def keyed(scratch: Scratch, rows: str, extra: str = "", name: str = "people") -> str:
    return scratch.pipeline("silver", name, KEYED.format(rows=rows, extra=extra))


def test_a_reviewed_run_waits_on_its_branch_with_its_diff_then_approve_publishes_it(scratch: Scratch):
    fqn = keyed(scratch, "(1, 'a'), (2, 'b')")
    first = scratch.run(fqn)
    keyed(scratch, "(2, 'B'), (3, 'c')")
    held = scratch.wb.runs.run(fqn, review=True).as_dict()["run"]
    assert held["status"] == "awaiting_review" and held["snapshot_id"] is None
    assert {k: held["diff"][k] for k in ("added", "removed", "changed", "columns", "schema_changes")} == {
        "added": 1, "removed": 0, "changed": 1, "columns": {"name": 1}, "schema_changes": []}
    assert held["diff"]["sample"][0] == {"change": "changed", "old": {"id": 2, "name": "b"}, "new": {"id": 2, "name": "B"}}
    assert scratch.refs(fqn) == {"main": first["snapshot_id"], f"run_{held['run_id']}": scratch.refs(fqn)[f"run_{held['run_id']}"]}
    assert scratch.rows(f"SELECT * FROM {fqn} ORDER BY id") == [[1, "a"], [2, "b"]]  # main untouched
    pending = scratch.wb.review.pending_reviews().as_dict()["runs"]  # of the whole lake: other tests' too
    assert [r["run_id"] for r in pending if r["pipeline"] == fqn] == [held["run_id"]]
    scratch.wb.runs.cleanup_leftovers()  # recovery leaves a pending review alone, and doctor sees nothing wrong
    assert f"run_{held['run_id']}" in scratch.refs(fqn)
    assert [f for f in findings(scratch) if f["kind"] == "leftover_branch"] == []
    approved = scratch.wb.review.approve(held["run_id"]).as_dict()["run"]
    assert approved["status"] == "success" and approved["snapshot_id"] == scratch.refs(fqn)["main"]
    assert list(scratch.refs(fqn)) == ["main"]
    assert scratch.rows(f"SELECT * FROM {fqn} ORDER BY id") == [[1, "a"], [2, "B"], [3, "c"]]
    with pytest.raises(RatError, match=f"run {held['run_id']} of {fqn} is not awaiting review \\(it is success\\)"):
        scratch.wb.review.approve(held["run_id"])


def test_approve_after_main_moved_is_refused_and_reject_leaves_main_untouched(scratch: Scratch):
    fqn = keyed(scratch, "(1, 'a')", extra="-- @review: true\n")  # reviewed by its annotation
    created = scratch.run(fqn)
    assert created["status"] == "awaiting_review" and created["diff"]["added"] == 1
    scratch.wb.review.approve(created["run_id"])
    keyed(scratch, "(1, 'x')", extra="-- @review: true\n")
    held = scratch.run(fqn)
    keyed(scratch, "(2, 'b')")
    moved = scratch.run(fqn)
    assert moved["status"] == "success"
    with pytest.raises(RatError) as refused:
        scratch.wb.review.approve(held["run_id"])
    assert refused.value.sentence().startswith(
        f"main of {fqn} moved since the run was held for review (snapshot ")
    assert refused.value.sentence().endswith(
        f"run it again to build on the current main; reject run {held['run_id']} first, which drops its branch and "
        "puts the landing files it read back in their zone")
    assert scratch.wb.state.get_run(held["run_id"]).status == "awaiting_review"
    main = scratch.refs(fqn)["main"]
    rejected = scratch.wb.review.reject(held["run_id"]).as_dict()["run"]
    assert rejected["status"] == "rejected" and rejected["error"] == "rejected in review"
    assert scratch.refs(fqn) == {"main": main}
    assert scratch.rows(f"SELECT * FROM {fqn} ORDER BY id") == [[1, "a"], [2, "b"]]


def test_rejecting_the_run_that_created_the_table_drops_it(scratch: Scratch):
    fqn = keyed(scratch, "(1, 'a')")
    held = scratch.wb.runs.run(fqn, review=True).as_dict()["run"]
    assert scratch.table_exists("silver", "people")
    scratch.wb.review.reject(held["run_id"])
    assert not scratch.table_exists("silver", "people")


def test_a_run_that_would_delete_half_the_table_stops_at_its_gate(scratch: Scratch):
    sql = "-- @max_removed_rows: {limit}\nSELECT id FROM range({n}) AS r(id)"
    fqn = scratch.pipeline("silver", "half", sql.format(limit=10, n=100))
    first = scratch.run(fqn)
    assert first["status"] == "success"
    assert [(q["name"], q["status"]) for q in first["quality"]] == [("max_removed_rows", "passed")]
    scratch.pipeline("silver", "half", sql.format(limit=10, n=50))
    stopped = scratch.run(fqn)
    assert stopped["status"] == "failed"
    assert "diff gate max_removed_rows failed: 50 row(s) removed, at most 10 allowed" in stopped["error"]
    assert [(q["name"], q["severity"], q["status"], q["violations"]) for q in stopped["quality"]] == [
        ("max_removed_rows", "error", "failed", 50)]
    assert scratch.refs(fqn) == {"main": first["snapshot_id"]}
    scratch.pipeline("silver", "half", "-- @max_changed_fraction: 5% warn\nSELECT id FROM range(50) AS r(id)")
    warned = scratch.run(fqn)
    assert warned["status"] == "success" and warned["diff"]["removed"] == 50
    assert [(q["name"], q["status"], q["violations"]) for q in warned["quality"]] == [("max_changed_fraction", "warned", 50)]


def test_a_reviewed_run_keyed_in_another_case_diffs_by_that_key(scratch: Scratch):
    """`@unique_key: ID` is the column id (Spark resolves names ignoring case): the diff matches rows by it."""
    fqn = keyed(scratch, "(1, 'a'), (2, 'b')")
    assert scratch.run(fqn)["status"] == "success"
    scratch.pipeline("silver", "people", KEYED.replace("@unique_key: id", "@unique_key: ID").format(
        rows="(2, 'B'), (3, 'c')", extra=""))
    held = scratch.wb.runs.run(fqn, review=True).as_dict()["run"]
    assert held["status"] == "awaiting_review", held["error"]
    assert (held["diff"]["key"], held["diff"]["added"], held["diff"]["changed"]) == (["id"], 1, 1)


def test_a_bad_gate_is_a_validation_problem(scratch: Scratch):
    scratch.pipeline("silver", "bad", "-- @max_changed_fraction: lots\nSELECT 1 AS id")
    with pytest.raises(RatError, match="max_changed_fraction must be a number optionally followed by warn or error"):
        scratch.wb.browse.validate(f"{scratch.ns}.silver.bad")


def test_purge_keeps_a_pending_review_until_review_max_age_hours(scratch: Scratch):
    import time

    fqn = keyed(scratch, "(1, 'a')")
    scratch.run(fqn)
    keyed(scratch, "(1, 'b')")
    held = scratch.wb.runs.run(fqn, review=True).as_dict()["run"]
    branch = f"run_{held['run_id']}"
    kept = scratch.wb.upkeep.purge(dry_run=True, namespace=scratch.ns).items.orphan_branches
    assert kept == []
    later = time.time() + (scratch.wb.project.settings.review_max_age_hours + 1) * 3600
    scratch.wb.upkeep.purge(now=later, namespace=scratch.ns)
    assert branch not in scratch.refs(fqn)
    expired = scratch.wb.state.get_run(held["run_id"])
    assert expired.status == "rejected" and "retention.review_max_age_hours" in expired.error


def test_a_selection_review_reads_branches_and_publishes_all_in_order_or_nothing(scratch: Scratch):
    up = keyed(scratch, "(1, 'a')", name="up")
    down = scratch.pipeline("gold", "down", "SELECT id, upper(name) AS name FROM {{ ref('silver.up') }}")
    scratch.wb.runs.run(f"{up}+")
    keyed(scratch, "(1, 'a'), (2, 'b')", name="up")
    runs = scratch.wb.runs.run(f"{up}+", review=True).as_dict()["runs"]
    assert [(r["pipeline"], r["status"]) for r in runs] == [(up, "awaiting_review"), (down, "awaiting_review")]
    held_up, held_down = runs
    # the later pipeline read its upstream's branch, not main
    assert held_down["inputs"] == {up: scratch.refs(up)[f"run_{held_up['run_id']}"]}
    assert held_down["diff"]["added"] == 1 and held_down["diff"]["sample"][0]["new"] == {"id": 2, "name": "B"}
    assert scratch.rows(f"SELECT count(*) FROM {down}") == [[1]]
    approved = scratch.wb.review.approve(held_down["run_id"]).as_dict()
    assert [(r["pipeline"], r["status"]) for r in approved["runs"]] == [(up, "success"), (down, "success")]
    assert scratch.rows(f"SELECT * FROM {down} ORDER BY id") == [[1, "A"], [2, "B"]]
    # all or nothing: main of the upstream moves meanwhile, so neither is published; reject drops both
    keyed(scratch, "(1, 'a'), (2, 'b'), (3, 'c')", name="up")
    held_up, held_down = scratch.wb.runs.run(f"{up}+", review=True).as_dict()["runs"]
    keyed(scratch, "(9, 'z')", name="up")
    scratch.run(up)
    main_down = scratch.refs(down)["main"]
    with pytest.raises(RatError, match=f"main of {up} moved since the run was held for review"):
        scratch.wb.review.approve(held_up["run_id"])
    assert scratch.refs(down)["main"] == main_down
    rejected = scratch.wb.review.reject(held_up["run_id"]).as_dict()["runs"]
    assert [r["status"] for r in rejected] == ["rejected", "rejected"]
    assert list(scratch.refs(up)) == ["main"] and list(scratch.refs(down)) == ["main"]
