"""What each interval of a partitioned pipeline went through, in `.rat/state.db`: append-only, one row per
interval and event, as SQLMesh keeps its `_intervals`. A run adds `planned` rows when it starts; its end adds
`done`, `failed`, `awaiting_review` (then `done` or `rejected` at review) or `cancelled`. A run killed halfway
adds nothing more: its intervals stay `missing`."""
from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timezone

from ..project.partitions import Interval
from .rolled_back import mark_rolled_back
from .state import StateDB

_SCHEMA = """
CREATE TABLE IF NOT EXISTS intervals (
    pipeline TEXT NOT NULL,
    start TEXT NOT NULL,          -- ISO 8601 UTC, the interval is [start, end)
    end TEXT NOT NULL,
    status TEXT NOT NULL,         -- planned | done | failed | awaiting_review | rejected | cancelled
    run_id TEXT NOT NULL,
    snapshot_id INTEGER,          -- main after the run, for done
    code_version TEXT NOT NULL,   -- sha256 of the pipeline's source the run ran
    recorded_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS intervals_by_pipeline ON intervals (pipeline, start);
CREATE INDEX IF NOT EXISTS intervals_by_run ON intervals (run_id);
CREATE TABLE IF NOT EXISTS interval_runs_rolled_back (
    pipeline TEXT NOT NULL,
    run_id TEXT NOT NULL,         -- a run whose snapshot main no longer holds (a table rollback went past it)
    PRIMARY KEY (pipeline, run_id)
);
"""
# What a run's end makes of its intervals; the others stay as they were planned (missing).
_BY_RUN_STATUS = {"success": "done", "failed": "failed", "awaiting_review": "awaiting_review",
                  "rejected": "rejected", "cancelled": "cancelled"}
_OUTCOMES = ("done", "failed")  # the events that decide an interval's status (a rejected try leaves it as it was)


@dataclass(frozen=True)
class IntervalState:
    start: str
    end: str
    status: str  # done | failed | missing | stale
    run_id: str | None = None
    snapshot_id: int | None = None

    def as_dict(self) -> dict:
        return {"start": self.start, "end": self.end, "status": self.status, "run_id": self.run_id,
                "snapshot_id": self.snapshot_id}


def iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class IntervalStore:
    def __init__(self, state: StateDB):
        self.state = state
        state.script(_SCHEMA)

    def plan(self, pipeline: str, run_id: str, intervals: list[Interval], code_version: str) -> None:
        now = time.time()
        with self.state.transaction() as db:
            db.executemany(
                "INSERT INTO intervals (pipeline, start, end, status, run_id, code_version, recorded_at)"
                " VALUES (?, ?, ?, 'planned', ?, ?, ?)",
                [(pipeline, iso(i.start), iso(i.end), run_id, code_version, now) for i in intervals])

    def settle(self, run_id: str, run_status: str, snapshot_id: int | None) -> None:
        """The run's end (or its review's) for each interval it planned; nothing when it planned none."""
        status = _BY_RUN_STATUS.get(run_status)
        if status is None:
            return
        with self.state.transaction() as db:
            db.execute(
                "INSERT INTO intervals (pipeline, start, end, status, run_id, snapshot_id, code_version, recorded_at)"
                " SELECT pipeline, start, end, ?, run_id, ?, code_version, ? FROM intervals"
                " WHERE run_id = ? AND status = 'planned'",
                (status, snapshot_id if status == "done" else None, time.time(), run_id))

    def span(self, run_id: str) -> tuple[str, str] | None:
        """The first start and the last end of the intervals a run planned; None when it planned none."""
        row = self.state.query_one("SELECT min(start) AS first, max(end) AS last FROM intervals"
                                   " WHERE run_id = ? AND status = 'planned'", (run_id,))
        return None if row is None or row["first"] is None else (row["first"], row["last"])

    def rolled_back(self, pipeline: str, on_main: dict[str, bool]) -> None:
        """After main moved: the runs whose rows main no longer holds build no interval (rolled_back.py)."""
        mark_rolled_back(self.state, "interval_runs_rolled_back", pipeline, on_main)

    def states(self, pipeline: str, intervals: list[Interval], code_version: str) -> list[IntervalState]:
        """Each interval's status: its newest done or failed event of a run main still holds (after a table
        rollback, the run before it decides: `stale` when that ran other code); `stale` when done by other code."""
        rows = self.state.query(
            "SELECT start, status, run_id, snapshot_id, code_version FROM intervals"
            f" WHERE pipeline = ? AND status IN ({', '.join('?' * len(_OUTCOMES))})"
            " AND run_id NOT IN (SELECT run_id FROM interval_runs_rolled_back WHERE pipeline = ?)"
            " ORDER BY recorded_at, rowid",
            (pipeline, *_OUTCOMES, pipeline))
        newest = {row["start"]: row for row in rows}
        out = []
        for interval in intervals:
            start, end = iso(interval.start), iso(interval.end)
            row = newest.get(start)
            if row is None:
                out.append(IntervalState(start, end, "missing"))
                continue
            status = "stale" if row["status"] == "done" and row["code_version"] != code_version else row["status"]
            out.append(IntervalState(start, end, status, row["run_id"], row["snapshot_id"]))
        return out
