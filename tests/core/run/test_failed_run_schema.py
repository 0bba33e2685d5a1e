"""A run that does not reach main leaves main's schema as it was (issue 27, item 1).

Iceberg's schema belongs to the whole table, not to the run's branch, so a run's added
columns and widenings show on main the moment they are made. A run that fails, is cancelled
or is killed must put them back: only its own change, never one another run has published on.
"""
from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from rat_tui.core.lake.metadata import current_metadata_file
from rat_tui.core.run.recovery import mark_orphans
from tests.lakehelpers import Scratch
from tests.killhelpers import PausedRun, kill, kill_at, kill_when_metadata_changes, runs_may_overlap, start_run

pytestmark = pytest.mark.spark

HEADER = "-- @merge_strategy: incremental\n-- @unique_key: id\n"
BEFORE = HEADER + "SELECT id, CAST(id AS INT) AS qty FROM {{ landing_zone('drops') }}"
# two added columns and one safe widening (int -> bigint)
AFTER = HEADER + "SELECT id, CAST(id AS BIGINT) AS qty, 'x' AS label, id * 10 AS extra FROM {{ landing_zone('drops') }}"
NO_NINES = {"no_nines": "SELECT * FROM {{ this }} WHERE id = 9"}
ORIGINAL = {"id": "int", "qty": "int"}
EVOLVED = {"id": "int", "qty": "bigint", "label": "string", "extra": "int"}


def columns(scratch: Scratch, fqn: str) -> dict[str, str]:
    rows = scratch.rows(f"DESCRIBE TABLE {fqn}")
    return {r[0]: r[1] for r in rows if r[0] and not r[0].startswith("#")}


def disk_schema(table_dir: Path) -> dict[str, str]:
    """main's columns as the table's metadata file says, read without Spark (what any other reader sees)."""
    meta = json.loads(current_metadata_file(table_dir).read_text())
    schema = next(s for s in meta["schemas"] if s["schema-id"] == meta["current-schema-id"])
    return {f["name"]: f["type"] for f in schema["fields"]}


def setup(scratch: Scratch) -> str:
    scratch.landing("drops", "a.csv", "id\n1\n")
    fqn = scratch.pipeline("silver", "evolving", BEFORE, tests=NO_NINES)
    assert scratch.run(fqn)["status"] == "success"
    assert columns(scratch, fqn) == ORIGINAL
    # the next run adds two columns and widens one, and its quality test fails (it reads a 9)
    scratch.pipeline("silver", "evolving", AFTER, tests=NO_NINES)
    scratch.landing("drops", "b.csv", "id\n9\n")
    return fqn


def fix_and_check_the_columns_still_come(scratch: Scratch, fqn: str) -> None:
    (scratch.root / "landing" / "drops" / "b.csv").write_text("id\n2\n")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert columns(scratch, fqn) == EVOLVED
    # the zone is not archived: both files are read again, and the merge fills the new columns of row 1
    assert scratch.rows(f"SELECT id, qty, label, extra FROM {fqn} ORDER BY id") == [[1, 1, "x", 10], [2, 2, "x", 20]]


def test_a_failed_run_leaves_mains_schema_as_it_was(scratch: Scratch):
    fqn = setup(scratch)
    table_dir = scratch.root / "warehouse" / "silver" / "evolving"
    main = scratch.refs(fqn)
    run = scratch.run(fqn)
    assert run["status"] == "failed" and "quality test no_nines failed" in run["error"]
    assert columns(scratch, fqn) == ORIGINAL
    assert disk_schema(table_dir) == {"id": "int", "qty": "int"}
    assert scratch.refs(fqn) == main
    assert scratch.rows(f"SELECT id, qty FROM {fqn}") == [[1, 1]]
    # the next run of the old code sees no column it "no longer produces"
    scratch.pipeline("silver", "evolving", BEFORE, tests=NO_NINES)
    (scratch.root / "landing" / "drops" / "b.csv").unlink()
    again = scratch.run(fqn)
    assert again["status"] == "success", again["error"]
    notes = [e["message"] for e in scratch.wb.run_log.read(again["run_id"]) if e["event"] == "LogLine"]
    assert not [n for n in notes if "no longer produced" in n], notes
    # and the change, made right, is made
    scratch.pipeline("silver", "evolving", AFTER, tests=NO_NINES)
    scratch.landing("drops", "b.csv", "id\n9\n")
    fix_and_check_the_columns_still_come(scratch, fqn)


def restart(scratch: Scratch) -> None:
    """What the next start of the app does."""
    mark_orphans(scratch.wb.state, scratch.wb.project)
    scratch.wb.runs.cleanup_leftovers()


def test_a_sigkill_anywhere_in_such_a_run_then_a_restart_leaves_mains_schema(scratch: Scratch, tmp_path: Path):
    seed = int(time.time())
    delay = random.Random(seed).uniform(3.0, 16.0)  # start-up is ~5 s: this spans every phase
    fqn = setup(scratch)
    table_dir = scratch.root / "warehouse" / "silver" / "evolving"
    project = scratch.wb.project.root
    main = scratch.refs(fqn)

    def at_the_schema_change() -> bool:
        return kill_when_metadata_changes(start_run(project, fqn), table_dir, "current-schema-id")

    def at_random() -> bool:
        proc = start_run(project, fqn)
        deadline = time.monotonic() + delay
        while proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        kill(proc)
        return True

    def paused_after_quality_tests() -> bool:
        return kill_at(project, fqn, "after:quality_tests", tmp_path) == "after:quality_tests"

    for what, attack in [("the instant the schema changed", at_the_schema_change),
                         (f"at random, {delay:.1f} s in (seed {seed})", at_random),
                         ("paused after its quality tests", paused_after_quality_tests)]:
        assert attack(), f"never killed {what}"
        restart(scratch)
        assert disk_schema(table_dir) == {"id": "int", "qty": "int"}, what
        assert columns(scratch, fqn) == ORIGINAL, what
        assert scratch.refs(fqn) == main, what
    fix_and_check_the_columns_still_come(scratch, fqn)


def pending_records(table_dir: Path) -> list[str]:
    meta = json.loads(current_metadata_file(table_dir).read_text())
    return [key for key in meta.get("properties", {}) if key.startswith("rat.schema-change.")]


@pytest.mark.parametrize("second_passes", [True, False], ids=["second-publishes", "second-fails"])
def test_a_change_another_process_run_built_on(scratch: Scratch, tmp_path: Path, second_passes: bool):
    """A run in another process changes the schema and is held; a run here builds on that schema.
    Published, the columns are main's and stay when the first run fails; not published, the last
    run to end puts the first one's change back."""
    fqn = setup(scratch)
    table_dir = scratch.root / "warehouse" / "silver" / "evolving"
    with runs_may_overlap(scratch.wb.project.root, scratch.wb):  # else the run here waits for the held one
        first = PausedRun(scratch.wb.project.root, fqn, "after:iceberg_write", tmp_path)
        try:
            assert columns(scratch, fqn) == EVOLVED  # the held run's change, on the whole table
            if second_passes:
                (scratch.root / "landing" / "drops" / "b.csv").write_text("id\n2\n")
            second = scratch.run(fqn)
            assert second["status"] == ("success" if second_passes else "failed"), second["error"]
            (scratch.root / "landing" / "drops" / "b.csv").write_text("id\n9\n")  # the first run's gate still fails
            result = first.finish()
        finally:
            first.kill()
    assert result["ok"] is False and "quality test no_nines failed" in result["error"]
    assert pending_records(table_dir) == []
    if second_passes:
        assert columns(scratch, fqn) == EVOLVED
        assert scratch.rows(f"SELECT id, qty, label, extra FROM {fqn} ORDER BY id") == [[1, 1, "x", 10], [2, 2, "x", 20]]
    else:
        assert columns(scratch, fqn) == ORIGINAL
        assert scratch.rows(f"SELECT id, qty FROM {fqn}") == [[1, 1]]
