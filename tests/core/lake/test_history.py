"""A table's history by run (core.lake.history) for upkeep and the other strategies: a compaction is an
entry of its own that changes no row, a --full-refresh run counts what it replaced as deleted and
added, and an scd2 run counts the current rows it closed as updated."""
from __future__ import annotations

import pytest

from rat_tui.core.errors import RatError
from rat_tui.core.lake.history import runs_on_main
from rat_tui.core.lake.metadata import load_table
from rat_tui.core.project.model import PipelineRef
from tests.lakehelpers import MERGE_BATCHES, Scratch, merge_batches

pytestmark = pytest.mark.spark


def entries(scratch: Scratch, fqn: str) -> list[dict]:
    return scratch.wb.tables.history(fqn).as_dict()["snapshots"]


def count(scratch: Scratch, fqn: str) -> int:
    return scratch.rows(f"SELECT count(*) FROM {fqn}")[0][0]


def test_compaction_and_full_refresh_have_entries_of_their_own(scratch: Scratch):
    fqn, run_ids = merge_batches(scratch)
    head = entries(scratch, fqn)[-1]["snapshot_id"]
    compacted = scratch.wb.tables.compact(fqn)
    assert compacted.files_after < compacted.files_before
    last = entries(scratch, fqn)[-1]
    assert (last["kind"], last["run_id"], last["base_snapshot_id"]) == ("compaction", None, head)
    assert (last["added_rows"], last["updated_rows"], last["deleted_rows"], last["total_rows"]) == (0, 0, 0, 6)

    run = scratch.run(fqn, full_refresh=True)  # the last batch alone: 3 rows
    assert run["status"] == "success", run["error"]
    last = entries(scratch, fqn)[-1]
    assert (last["kind"], last["run_id"], last["strategy"]) == ("run", run["run_id"], "full_refresh")
    assert (last["added_rows"], last["updated_rows"], last["deleted_rows"]) == (3, 0, 6)
    assert last["total_rows"] == count(scratch, fqn) == 3 and last["is_current"]

    ref = PipelineRef.parse(fqn)
    on_main = runs_on_main(load_table(scratch.wb.project.table_dir(ref), fqn))
    assert [e.run_id for e in on_main] == [*run_ids, run["run_id"]]
    assert [e.base_snapshot_id for e in on_main[1:]] == [e.snapshot_id for e in on_main[:-2]] + [compacted.snapshot_id]


def test_an_scd2_run_counts_the_rows_it_closed_as_updated(scratch: Scratch):
    header = "-- @merge_strategy: scd2\n-- @unique_key: id\n"
    fqn = scratch.pipeline("silver", "dim", header + "SELECT * FROM VALUES (1, 'a'), (2, 'b'), (3, 'c') AS v(id, city)")
    assert scratch.run(fqn)["status"] == "success"
    scratch.pipeline("silver", "dim", header + "SELECT * FROM VALUES (1, 'a'), (2, 'B'), (4, 'd') AS v(id, city)")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    last = entries(scratch, fqn)[-1]
    assert (last["run_id"], last["strategy"]) == (run["run_id"], "scd2")
    # key 2's current row closed (updated), its new version and key 4 added
    assert (last["added_rows"], last["updated_rows"], last["deleted_rows"]) == (2, 1, 0)
    assert last["total_rows"] == count(scratch, fqn) == 5


def test_a_run_that_failed_its_gate_has_no_entry_and_is_no_place_to_roll_back_to(scratch: Scratch):
    fqn, (first,) = merge_batches(scratch, MERGE_BATCHES[:1])
    scratch.pipeline("silver", "customers", """
        -- @merge_strategy: incremental
        -- @unique_key: id
        SELECT * FROM VALUES (2, 'B'), (4, 'd') AS v(id, name)""", tests={"no_four": "SELECT * FROM {{ this }} WHERE id = 4"})
    failed = scratch.run(fqn)
    assert failed["status"] == "failed"
    assert [e["run_id"] for e in entries(scratch, fqn)] == [None, first]  # the creation, then the run
    written = [s for s in scratch.wb.tables.snapshots(fqn).as_dict()["snapshots"] if s["run_id"] == failed["run_id"]]
    assert written  # its snapshots stay in the metadata until purged, off every branch
    with pytest.raises(RatError, match=f"inside run {failed['run_id']}, which never reached main: .* roll back to "
                                       f"{entries(scratch, fqn)[-1]['snapshot_id']} \\(before it\\)"):
        scratch.wb.tables.rollback_table(fqn, written[-1]["snapshot_id"])
