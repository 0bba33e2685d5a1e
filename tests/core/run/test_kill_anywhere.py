"""Kills that do not wait at a named point: the instant main moves (seen from outside, in the
table's metadata), and at random moments of every phase. After each, the next start's recovery
runs, and the invariants docs/runs.md promises are checked on the table, the files and state.db.
"""
from __future__ import annotations

import json
import os
import random
import time

import pytest

from rat_tui.core.run.recovery import mark_orphans
from tests.killhelpers import kill, kill_when_metadata_changes, start_run
from tests.lakehelpers import Scratch, findings

pytestmark = pytest.mark.spark

PIPELINE = ("-- @merge_strategy: append_only\n-- @archive_landing_zones: true\n"
            "SELECT id FROM {{ landing_zone('drops') }}")


def check_invariants(scratch: Scratch, fqn: str, added: dict[str, int]) -> None:
    wb = scratch.wb
    mark_orphans(wb.state, wb.project)  # what the next start does
    wb.runs.cleanup_leftovers()
    zone = scratch.root / "landing" / "drops"
    active = {p.name for p in zone.glob("*.csv")}
    processed = [p.name for p in (zone / "_processed").rglob("*.csv")] if (zone / "_processed").exists() else []
    # every landing file exactly once: in the zone or archived
    assert sorted([*active, *processed]) == sorted(added), (active, processed)
    # main holds exactly the archived batches, each once; nothing of the active ones
    ids = [row[0] for row in scratch.rows(f"SELECT id FROM {fqn} ORDER BY id")] if scratch.table_exists("bronze", "k") else []
    assert ids == sorted(added[name] for name in processed)
    assert list(scratch.refs(fqn)) == ["main"] if ids else True
    # runs recorded truthfully: a success published its files, nothing else is left running
    for run in wb.state.runs(fqn, limit=100):
        assert run.status in ("success", "failed"), run
        archived = json.loads(wb.state.query_one("SELECT archived_files FROM runs WHERE run_id = ?",
                                                 (run.run_id,))["archived_files"] or "[]")
        if run.status == "failed":
            assert not (zone / "_processed" / run.run_id).exists(), run
        elif archived:
            assert (zone / "_processed" / run.run_id).is_dir(), run
    assert findings(scratch) == []


def test_kills_at_the_moment_main_moves_and_at_random_times(scratch: Scratch):
    seed = int(os.environ.get("RAT_KILL_SEED", time.time()))
    rng = random.Random(seed)
    fqn = scratch.pipeline("bronze", "k", PIPELINE)
    table_dir = scratch.root / "warehouse" / "bronze" / "k"
    added: dict[str, int] = {}

    def drop(i: int) -> None:
        scratch.landing("drops", f"f{i}.csv", f"id\n{i}\n")
        added[f"f{i}.csv"] = i

    drop(0)
    assert scratch.run(fqn)["status"] == "success"  # the table exists, so main can be watched
    moments = []
    for i in range(1, 5):
        drop(i)
        proc = start_run(scratch.wb.project.root, fqn)
        if i % 2:
            moments.append(("main moved", kill_when_metadata_changes(proc, table_dir, "current-snapshot-id")))
        else:
            delay = rng.uniform(2.0, 14.0)  # start-up is ~5 s: this spans every phase
            deadline = time.monotonic() + delay
            while proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.01)
            kill(proc)
            moments.append((f"random {delay:.1f} s", True))
        try:
            check_invariants(scratch, fqn, added)
        except AssertionError as exc:
            raise AssertionError(f"seed {seed}, kill {i} ({moments[-1]}): {exc}") from None
    assert any(kind == "main moved" and hit for kind, hit in moments), moments
    # and afterwards every waiting file is read exactly once (a new one too: the last kill may have
    # come after its run finished, leaving nothing to read)
    drop(5)
    last = scratch.run(fqn)
    assert last["status"] == "success", f"seed {seed}, after {moments}: {last['error']}"
    check_invariants(scratch, fqn, added)
    assert [r[0] for r in scratch.rows(f"SELECT id FROM {fqn} ORDER BY id")] == list(range(6))
