"""A table's history by run (issue 27, item 3), driven through script commands as a user scripts them.

An incremental merge leaves two Iceberg snapshots per run on main (the delete of the batch's keys, then
the append): `snapshots` lists one entry per run with its counts and the rows a reader sees, `--all`
the raw snapshots, `diff --run` the whole run, and `rollback-table` refuses the state between a
merge's delete and its append, which no reader ever saw."""
from __future__ import annotations

import pytest

from tests.helpers import script
from tests.lakehelpers import Scratch, merge_batches

pytestmark = pytest.mark.spark

def ok(scratch: Scratch, text: str) -> list[dict]:
    status, results = script(scratch.wb, text)
    assert status == 0, [r for r in results if not r["ok"]]
    return results


def test_snapshots_give_one_entry_per_run_and_diff_a_whole_run(scratch: Scratch):
    fqn, run_ids = merge_batches(scratch)
    by_run, raw, count, diff = ok(scratch, f"snapshots {fqn}\nsnapshots {fqn} --all\n"
                                           f"query SELECT count(*) FROM {fqn}\ndiff {fqn} --run {run_ids[1]}\n")
    entries = by_run["snapshots"]
    assert [e["kind"] for e in entries] == ["create", "run", "run", "run"]
    runs = entries[1:]
    assert [e["run_id"] for e in runs] == run_ids
    assert all(e["strategy"] == "incremental" for e in runs)
    assert [(e["added_rows"], e["updated_rows"], e["deleted_rows"]) for e in runs] == [(3, 0, 0), (1, 1, 0), (2, 1, 0)]
    assert [e["total_rows"] for e in runs] == [3, 4, 6] and runs[-1]["total_rows"] == count["rows"][0][0] == 6
    assert [e["is_current"] for e in entries] == [False, False, False, True]
    # each run's base is the previous run's head: no state in between is listed
    assert [e["base_snapshot_id"] for e in runs] == [e["snapshot_id"] for e in entries[:-1]]

    raw_ids = [s["snapshot_id"] for s in raw["snapshots"]]
    assert len(raw_ids) > len(entries)  # the merges' deletes are there too
    assert raw_ids == [sid for e in entries for sid in e["snapshot_ids"]]
    assert len(runs[1]["snapshot_ids"]) == 2  # the merge's delete, then its append

    # the whole run, by the table's key: key 2 changed, key 4 added (the append alone showed +2, -0)
    assert (diff["base_snapshot_id"], diff["snapshot_id"]) == (runs[0]["snapshot_id"], runs[1]["snapshot_id"])
    assert (diff["key"], diff["added"], diff["removed"], diff["changed"]) == (["id"], 1, 0, 1)
    assert diff["added_rows"] == [[4, "d"]] and diff["removed_rows"] == []
    assert [(s["old"], s["new"]) for s in diff["sample"] if s["change"] == "changed"] == [
        ({"id": 2, "name": "b"}, {"id": 2, "name": "B"})]
    # --key '' matches whole rows: the changed row is one removed and one added
    whole = ok(scratch, f"diff {fqn} --run {run_ids[1]} --key ''\n")[0]
    assert (whole["key"], whole["added"], whole["removed"], whole["changed"]) == ([], 2, 1, 0)
    assert sorted(whole["added_rows"]) == [[2, "B"], [4, "d"]] and whole["removed_rows"] == [[2, "b"]]


def test_rollback_refuses_a_state_inside_a_run_and_lists_the_rollback(scratch: Scratch):
    fqn, run_ids = merge_batches(scratch)
    runs = ok(scratch, f"snapshots {fqn}\n")[0]["snapshots"][1:]
    inside, head = runs[2]["snapshot_ids"]  # run 3's delete: key 3 gone, its new row not yet there
    status, results = script(scratch.wb, f"rollback-table {fqn} {inside}\n")
    assert status == 1
    error = results[0]["error"]
    assert f"snapshot {inside} of {fqn} is inside run {run_ids[2]}" in error
    assert f"roll back to {runs[1]['snapshot_id']} (before it) or {head} (after it)" in error
    assert "--raw" in error and error.count(".") <= 3  # one sentence (the name has two dots)
    assert scratch.refs(fqn)["main"] == head

    rolled, after, count = ok(scratch, f"rollback-table {fqn} {runs[1]['snapshot_id']}\nsnapshots {fqn}\n"
                                       f"query SELECT count(*) FROM {fqn}\n")
    assert rolled["snapshot_id"] == runs[1]["snapshot_id"]
    latest = after["snapshots"][-1]
    assert (latest["kind"], latest["snapshot_id"], latest["base_snapshot_id"]) == ("rollback", runs[1]["snapshot_id"], head)
    assert latest["is_current"] and latest["total_rows"] == count["rows"][0][0] == 4
    third = next(e for e in after["snapshots"] if e["run_id"] == run_ids[2])
    assert not third["on_main"]  # still listed: main can go forward to it again

    raw = ok(scratch, f"rollback-table {fqn} {inside} --raw\nquery SELECT id FROM {fqn} ORDER BY id\n")
    assert raw[1]["rows"] == [[1], [2], [4]]  # the override is explicit, and does what it says
