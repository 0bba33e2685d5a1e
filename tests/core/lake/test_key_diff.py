"""The key-aware diff of two snapshots, on real tables written by real runs (and a real DELETE)."""
from __future__ import annotations

import pytest

from rat_tui.core.lake.diff import TableDiff
from rat_tui.core.lake.table import IcebergTable
from rat_tui.core.project.model import PipelineRef
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark

KEYED = """-- @merge_strategy: incremental
-- @unique_key: id
SELECT * FROM VALUES {rows} AS v(id, name, amount)"""


def changed(diff: TableDiff) -> list[tuple]:
    return [(s["change"], s["old"], s["new"]) for s in diff.sample]


def test_updates_inserts_and_deletes_by_key_read_only_the_changed_files(scratch: Scratch):
    fqn = scratch.pipeline("silver", "people", KEYED.format(rows="(1, 'a', 10), (2, 'b', 20), (3, 'c', 30)"))
    first = scratch.run(fqn)
    scratch.pipeline("silver", "people", KEYED.format(rows="(2, 'B', 20), (3, 'c', 31), (4, 'd', 40)"))
    second = scratch.run(fqn)
    diff = scratch.wb.review.key_diff(fqn, first["snapshot_id"], second["snapshot_id"])
    assert (diff.added, diff.removed, diff.changed) == (1, 0, 2)
    assert diff.key == ["id"] and diff.columns == {"name": 1, "amount": 1}
    assert diff.read == "changed files" and diff.old_rows == 3
    assert changed(diff) == [
        ("changed", {"id": 2, "name": "b", "amount": 20}, {"id": 2, "name": "B", "amount": 20}),
        ("changed", {"id": 3, "name": "c", "amount": 30}, {"id": 3, "name": "c", "amount": 31}),
        ("added", None, {"id": 4, "name": "d", "amount": 40})]
    ref = PipelineRef.parse(fqn)
    with scratch.wb.spark.using() as spark:
        spark.sql(f"DELETE FROM {fqn} WHERE id = 1")
        deleted = IcebergTable(spark, ref).head("main")
    diff = scratch.wb.review.key_diff(fqn, second["snapshot_id"], deleted)
    assert (diff.added, diff.removed, diff.changed, diff.read) == (0, 1, 0, "changed files")
    assert changed(diff) == [("removed", {"id": 1, "name": "a", "amount": 10}, None)]
    whole = scratch.wb.review.key_diff(fqn, first["snapshot_id"], deleted)  # both runs and the delete at once
    assert (whole.added, whole.removed, whole.changed) == (1, 1, 2)
    backwards = scratch.wb.review.key_diff(fqn, deleted, first["snapshot_id"])  # deletes taken away: whole table
    assert (backwards.added, backwards.removed, backwards.changed, backwards.read) == (1, 1, 2, "whole table")


def test_without_a_key_a_changed_row_is_one_removed_and_one_added(scratch: Scratch):
    sql = "SELECT * FROM VALUES {rows} AS v(id, name)"
    fqn = scratch.pipeline("silver", "plain", sql.format(rows="(1, 'a'), (2, 'b'), (3, 'c'), (5, 'e')"))
    first = scratch.run(fqn)
    scratch.pipeline("silver", "plain", sql.format(rows="(1, 'a'), (2, 'B'), (3, 'c'), (4, 'd')"))
    second = scratch.run(fqn)
    diff = scratch.wb.review.key_diff(fqn, first["snapshot_id"], second["snapshot_id"])
    assert diff.key == [] and (diff.added, diff.removed, diff.changed) == (2, 2, 0)
    assert sorted(changed(diff), key=str) == sorted([
        ("removed", {"id": 2, "name": "b"}, None), ("removed", {"id": 5, "name": "e"}, None),
        ("added", None, {"id": 2, "name": "B"}), ("added", None, {"id": 4, "name": "d"})], key=str)
    by_id = scratch.wb.review.key_diff(fqn, first["snapshot_id"], second["snapshot_id"], key=["id"])
    # a full refresh replaces every file: still right, the rewritten rows compare equal
    assert (by_id.added, by_id.removed, by_id.changed, by_id.columns) == (1, 1, 1, {"name": 1})


def test_schema_changes_are_listed_and_an_old_row_that_gets_a_value_in_an_added_column_changed(scratch: Scratch):
    fqn = scratch.pipeline("silver", "grow", KEYED.format(rows="(1, 'a', 10)"))
    first = scratch.run(fqn)
    scratch.pipeline("silver", "grow", KEYED.format(rows="(1, 'a', 10, 'x'), (2, 'b', 20, 'y')").replace(
        "v(id, name, amount)", "v(id, name, amount, extra)"))
    second = scratch.run(fqn)
    assert second["status"] == "success", second["error"]
    diff = scratch.wb.review.key_diff(fqn, first["snapshot_id"], second["snapshot_id"])
    assert diff.schema_changes == [{"column": "extra", "change": "added", "type": "string"}]
    assert (diff.added, diff.removed, diff.changed) == (1, 0, 1)  # row 1: extra NULL → 'x', as a reader sees it
    assert diff.columns == {"name": 0, "amount": 0, "extra": 1}


def test_an_unknown_key_column_is_one_sentence(scratch: Scratch):
    fqn = scratch.pipeline("silver", "k", KEYED.format(rows="(1, 'a', 10)"))
    run = scratch.run(fqn)
    with pytest.raises(Exception, match="cannot diff .* by key nope: no column nope in both snapshots"):
        scratch.wb.review.key_diff(fqn, run["snapshot_id"], run["snapshot_id"], key=["nope"])


@pytest.mark.parametrize("keyed", [True, False], ids=["changed-files", "whole-table"])
def test_a_column_a_run_adds_and_fills_counts_as_a_change_of_those_rows(scratch: Scratch, keyed: bool):
    """Found by a new user: a backfill added `amount2` and filled it for 4 rows; the diff said ~0 changed and
    named only the added column (the old side has no such column: NULL)."""
    header = "-- @merge_strategy: incremental\n-- @unique_key: id\n" if keyed else ""
    fqn = scratch.pipeline("silver", "filled", header + "SELECT * FROM VALUES (1, 'a'), (2, 'b') AS v(id, name)")
    first = scratch.run(fqn)
    scratch.pipeline("silver", "filled", header + "SELECT *, CASE WHEN id = 2 THEN 20 END AS extra "
                                                   "FROM VALUES (1, 'a'), (2, 'b') AS v(id, name)")
    second = scratch.run(fqn)
    assert second["status"] == "success", second["error"]
    diff = scratch.wb.review.key_diff(fqn, first["snapshot_id"], second["snapshot_id"], key=["id"])
    assert (diff.added, diff.removed, diff.changed) == (0, 0, 1), diff.as_dict()
    assert diff.columns == {"name": 0, "extra": 1}
    assert changed(diff) == [("changed", {"id": 2, "name": "b", "extra": None}, {"id": 2, "name": "b", "extra": 20})]
    assert diff.schema_changes == [{"column": "extra", "change": "added", "type": "int"}]
