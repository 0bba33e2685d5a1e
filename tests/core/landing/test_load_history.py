"""The load history behind exactly-once landing (issue 26): content hashes cached by identity, and loads
that count only once their run succeeded."""
from __future__ import annotations

import os

from rat_tui.core.landing import load_history
from rat_tui.core.landing.load_history import LoadHistory
from rat_tui.core.store.state import RunRecord, StateDB


def test_a_file_is_hashed_once_per_identity_and_again_when_replaced(tmp_path, monkeypatch):
    history = LoadHistory(StateDB(tmp_path / "state.db"))
    path = tmp_path / "a.csv"
    path.write_text("id\n1\n")
    hashed = []
    real = load_history.hash_bytes
    monkeypatch.setattr(load_history, "hash_bytes", lambda p: hashed.append(p) or real(p))
    first = history.content_hash(path)
    assert history.content_hash(path) == first and len(hashed) == 1
    stat = path.stat()
    replacement = tmp_path / "b.csv"
    replacement.write_text("id\n2\n")
    os.utime(replacement, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # what `cp -p` leaves
    os.replace(replacement, path)
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns
    assert history.content_hash(path) != first and len(hashed) == 2


def test_a_load_counts_only_once_its_run_succeeded(tmp_path):
    state = StateDB(tmp_path / "state.db")
    history = LoadHistory(state)
    for run_id, status in (("r1", "failed"), ("r2", "running")):
        state.insert_run(RunRecord(run_id, "ns.bronze.p", status))
        history.record("ns.bronze.p", run_id, [("a.csv", "h1")])
    assert history.earlier_loads("ns.bronze.p", ["h1"]) == {}
    state.update_run("r2", status="success")
    earlier = history.earlier_loads("ns.bronze.p", ["h1", "h2"])
    assert list(earlier) == ["h1"] and earlier["h1"].run_id == "r2"
    assert earlier["h1"].sentence("a.csv").startswith("skipped a.csv: loaded by run r2 on 20")
    assert earlier["h1"].sentence("b.csv").endswith("(as a.csv)")
    assert history.earlier_loads("ns.bronze.other", ["h1"]) == {}


def test_the_same_bytes_in_another_zone_are_another_file(tmp_path):
    state = StateDB(tmp_path / "state.db")
    history = LoadHistory(state)
    state.insert_run(RunRecord("r1", "ns.bronze.p", "success"))
    history.record("ns.bronze.p", "r1", [("ns/landing/drops/a.csv", "h1")])
    assert list(history.earlier_loads("ns.bronze.p", ["h1"], "ns/landing/drops/")) == ["h1"]
    assert history.earlier_loads("ns.bronze.p", ["h1"], "ns/landing/audit/") == {}
    assert history.earlier_loads("ns.bronze.p", ["h1"], "ns/landing/drop/") == {}
