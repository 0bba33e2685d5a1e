"""The warm-up (issue 28 item 6) exercises a run's paths out of the user's sight, and yields to a run."""
from __future__ import annotations

import tempfile
import threading
import time
from pathlib import Path

import pytest

from rat_tui.core.background.warm_up import warm_up
from rat_tui.core.events import WarmUpProgress

SQL = """\
-- @merge_strategy: incremental
-- @unique_key: id
SELECT id, id * 2 AS doubled FROM range(50)
"""


def _trace(wb) -> tuple:
    """Everything the user could see of a warm-up: files (logs aside), tables, runs, catalogs."""
    root = wb.project.root
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*") if "logs" not in p.relative_to(root).parts)
    runs = [tuple(r) for r in wb.state.query("SELECT run_id, status FROM runs")]
    return files, wb.tables.tables(), runs, [ns.name for ns in wb.browse.overview().namespaces]


@pytest.fixture
def private_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "temp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_warm_up_runs_every_step_and_leaves_no_trace(lake, private_temp: Path):
    before = _trace(lake)
    progress: list[WarmUpProgress] = []
    unsubscribe = lake.events.subscribe(lambda e: isinstance(e, WarmUpProgress) and progress.append(e))
    try:
        assert warm_up(lake.spark) is True
    finally:
        unsubscribe()
    # Each step said before it starts, then the end: the status bar's "warming 7/19", then "ready".
    assert [(e.done, e.total, e.state) for e in progress] == [(n, 19, "warming") for n in range(19)] + [(19, 19, "done")]
    assert _trace(lake) == before
    assert list(private_temp.iterdir()) == []  # its scratch catalog's folder is gone
    assert lake.spark.state.value == "ready"


def test_a_run_during_the_warm_up_succeeds_and_stops_it(scratch, private_temp: Path):
    fqn = scratch.pipeline("bronze", "during", SQL)
    finished: list[bool] = []
    last_progress: list[WarmUpProgress] = []
    unsubscribe = scratch.wb.events.subscribe(lambda e: isinstance(e, WarmUpProgress) and last_progress.append(e))
    thread = threading.Thread(target=lambda: finished.append(warm_up(scratch.wb.spark)))
    thread.start()
    deadline = time.monotonic() + 60
    while scratch.wb.spark._idle is None and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert scratch.wb.spark._idle is not None, "the warm-up never started its work"
    record = scratch.run(fqn)
    thread.join(60)
    unsubscribe()
    assert record["status"] == "success", record["error"]
    assert finished == [False]  # it stopped when the run arrived
    assert last_progress[-1].state == "stopped" and last_progress[-1].done < 19
    assert scratch.rows(f"SELECT count(*) FROM {fqn}") == [[50]]
    assert list(private_temp.iterdir()) == []
