"""The automation's tables in state.db: when each trigger started, every tick decided, webhook token hashes.

Exactly once: a tick is (pipeline, trigger, scheduled time), the primary key of `trigger_ticks`. An
evaluation reads what it decides on and inserts its ticks in one `BEGIN IMMEDIATE` transaction, before any
run starts, so a second process (or this one after a restart) finds the tick decided and never runs it
again. A fired tick's run id is filled in once its run is queued; a tick whose process died before that
is marked skipped on the next start (`recover`).
"""
from __future__ import annotations

import os
import socket
import sqlite3
import time
from dataclasses import dataclass

from ..store.state import StateDB, process_alive
from .evaluate import Decision, Evaluation, LiveRun, StateView
from .triggers import Trigger

_SCHEMA = """
CREATE TABLE IF NOT EXISTS trigger_cursors (
    pipeline TEXT NOT NULL,
    trigger TEXT NOT NULL,            -- kind:spec (a changed spec is a new trigger)
    started_at REAL NOT NULL,         -- first evaluated: earlier times never fire
    decided_until REAL,               -- the newest scheduled time decided
    PRIMARY KEY (pipeline, trigger)
);
CREATE TABLE IF NOT EXISTS trigger_ticks (
    pipeline TEXT NOT NULL,
    trigger TEXT NOT NULL,
    kind TEXT NOT NULL,
    scheduled_for REAL NOT NULL,
    evaluated_at REAL NOT NULL,       -- the clock of the evaluation (`tick --at` sets it)
    outcome TEXT NOT NULL,            -- fired | skipped
    reason TEXT NOT NULL DEFAULT '',
    run_id TEXT,                      -- a fired tick's run, once queued
    claimed_at REAL NOT NULL,
    host TEXT,
    pid INTEGER,
    PRIMARY KEY (pipeline, trigger, scheduled_for)
);
CREATE INDEX IF NOT EXISTS trigger_ticks_by_time ON trigger_ticks (evaluated_at);
CREATE TABLE IF NOT EXISTS trigger_fired (
    pipeline TEXT PRIMARY KEY,
    fired_at REAL NOT NULL,           -- evaluation clock of the last fired tick (cooldown)
    run_id TEXT
);
CREATE TABLE IF NOT EXISTS trigger_runs (
    run_id TEXT PRIMARY KEY,          -- a run a tick fired (its first tick, when several share it)
    pipeline TEXT NOT NULL,
    trigger TEXT NOT NULL,
    scheduled_for REAL NOT NULL,
    scheduled INTEGER NOT NULL,       -- 1: a cron time (the run's nominal time)
    parent_run TEXT                   -- an `after` tick's: the upstream run whose success fired it
);
CREATE TABLE IF NOT EXISTS webhook_tokens (
    pipeline TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL,         -- sha256 of the token; the token itself is shown once
    made_at REAL NOT NULL
);
"""


@dataclass(frozen=True)
class TickRecord:
    pipeline: str
    kind: str
    trigger: str
    scheduled_for: float
    evaluated_at: float
    outcome: str  # fired | skipped
    reason: str
    run_id: str | None
    run_status: str | None = None  # the fired run's, as it stands (a failed one is no plain "fired")


@dataclass(frozen=True)
class TriggerRun:
    pipeline: str
    trigger: str  # kind:spec
    scheduled_for: float
    scheduled: bool  # a cron time
    parent_run: str | None


# A success whose zones held nothing new wrote nothing: it is no news for `after` triggers (a config.yaml
# save re-ran a bronze pipeline, and its `daily` downstream ran again on the same data).
_BROUGHT_SOMETHING = "COALESCE(json_extract(landing, '$.note'), '') = ''"


class TickStore:
    def __init__(self, state: StateDB):
        self.state = state
        state.script(_SCHEMA)

    def transaction(self):
        return self.state.transaction()

    # -- what an evaluation reads (inside its transaction) ---------------------------
    def view(self, db: sqlite3.Connection) -> StateView:
        starts, decided = {}, {}
        for row in db.execute("SELECT pipeline, trigger, started_at, decided_until FROM trigger_cursors"):
            starts[(row[0], row[1])] = row[2]
            if row[3] is not None:
                decided[(row[0], row[1])] = row[3]
        fired = {row[0]: (row[1], row[2]) for row in db.execute("SELECT pipeline, fired_at, run_id FROM trigger_fired")}
        last_run = {row[0]: row[1] for row in db.execute(
            "SELECT pipeline, MAX(queued_at) FROM runs WHERE status != 'skipped' GROUP BY pipeline")}
        success, success_run = {}, {}
        for row in db.execute("SELECT pipeline, started_at, MAX(finished_at), run_id FROM runs WHERE status = 'success'"
                              f" AND {_BROUGHT_SOMETHING} GROUP BY pipeline"):
            success[row[0]], success_run[row[0]] = (row[1] or row[2], row[2]), row[3]
        looked = {row[0]: row[1] for row in db.execute(
            "SELECT pipeline, MAX(COALESCE(started_at, finished_at)) FROM runs WHERE status = 'success' GROUP BY pipeline")}
        live: dict[str, list[LiveRun]] = {}
        for row in db.execute("SELECT run_id, pipeline, status, host, pid FROM runs WHERE status IN ('queued', 'running')"):
            if process_alive(row[3], row[4]):
                live.setdefault(row[1], []).append(LiveRun(row[0], row[2]))
        for row in db.execute("SELECT pipeline, host, pid FROM trigger_ticks WHERE outcome = 'fired' AND run_id IS NULL"):
            if process_alive(row[1], row[2]):
                live.setdefault(row[0], []).append(LiveRun(None, "queued"))
        fired_until = {(row[0], row[1]): row[2] for row in db.execute(
            "SELECT pipeline, trigger, MAX(scheduled_for) FROM trigger_ticks WHERE outcome = 'fired' AND kind = 'stale'"
            " GROUP BY pipeline, trigger")}
        return StateView(starts, decided, fired, last_run, success, success_run, {k: tuple(v) for k, v in live.items()},
                         fired_until, looked)

    # -- claiming ---------------------------------------------------------------------
    def claim(self, db: sqlite3.Connection, evaluation: Evaluation) -> list[Decision]:
        """Record the evaluation's ticks; the decisions no one had recorded before (the others are not ours)."""
        now, host, pid, claimed_at = evaluation.now, socket.gethostname(), os.getpid(), time.time()
        db.executemany("INSERT OR IGNORE INTO trigger_cursors (pipeline, trigger, started_at) VALUES (?, ?, ?)",
                       [(t.pipeline, t.key, start) for t, start in evaluation.starts])
        claimed = []
        for d in evaluation.decisions:
            cursor = db.execute(
                "INSERT OR IGNORE INTO trigger_ticks (pipeline, trigger, kind, scheduled_for, evaluated_at, outcome,"
                " reason, claimed_at, host, pid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (d.pipeline, d.trigger.key, d.trigger.kind.value, d.scheduled_for, now,
                 "fired" if d.fire else "skipped", d.reason, claimed_at, host, pid))
            if cursor.rowcount:
                claimed.append(d)
            db.execute("INSERT INTO trigger_cursors (pipeline, trigger, started_at, decided_until) VALUES (?, ?, ?, ?)"
                       " ON CONFLICT (pipeline, trigger) DO UPDATE SET decided_until ="
                       " max(coalesce(decided_until, excluded.decided_until), excluded.decided_until)",
                       (d.pipeline, d.trigger.key, now, d.scheduled_for))
        for pipeline in {d.pipeline for d in claimed if d.fire}:
            db.execute("INSERT OR REPLACE INTO trigger_fired VALUES (?, ?, NULL)", (pipeline, now))
        return claimed

    def started(self, trigger: Trigger, run_id: str, scheduled_for: float) -> None:
        with self.state.transaction() as db:
            db.execute("UPDATE trigger_ticks SET run_id = ? WHERE pipeline = ? AND trigger = ? AND scheduled_for = ?",
                       (run_id, trigger.pipeline, trigger.key, scheduled_for))
            db.execute("UPDATE trigger_fired SET run_id = ? WHERE pipeline = ?", (run_id, trigger.pipeline))

    def fired_run(self, run_id: str, batch: list[Decision]) -> None:
        """The run a batch of ticks queued, and what fired it: read by its OpenLineage events."""
        first = min(batch, key=lambda d: (d.trigger.cron is None, d.parent_run is None))  # a cron time first
        self.state.execute("INSERT OR REPLACE INTO trigger_runs VALUES (?, ?, ?, ?, ?, ?)",
                           (run_id, first.pipeline, first.trigger.key, first.scheduled_for,
                            int(first.trigger.cron is not None), first.parent_run))

    def fired_by(self, run_id: str) -> TriggerRun | None:
        row = self.state.query_one("SELECT pipeline, trigger, scheduled_for, scheduled, parent_run FROM trigger_runs"
                                   " WHERE run_id = ?", (run_id,))
        return TriggerRun(row[0], row[1], row[2], bool(row[3]), row[4]) if row else None

    def not_started(self, trigger: Trigger, scheduled_for: float, reason: str) -> None:
        self.state.execute("UPDATE trigger_ticks SET outcome = 'skipped', reason = ? WHERE pipeline = ? AND trigger = ?"
                           " AND scheduled_for = ?", (reason, trigger.pipeline, trigger.key, scheduled_for))

    def recover(self) -> int:
        """Fired ticks whose process died before their run was queued: skipped, never fired again."""
        rows = self.state.query("SELECT pipeline, trigger, scheduled_for, host, pid FROM trigger_ticks"
                                " WHERE outcome = 'fired' AND run_id IS NULL")
        dead = [row for row in rows if not process_alive(row["host"], row["pid"])]
        with self.state.transaction() as db:
            db.executemany("UPDATE trigger_ticks SET outcome = 'skipped', reason = 'its process stopped before the run"
                           " was queued' WHERE pipeline = ? AND trigger = ? AND scheduled_for = ?",
                           [(row["pipeline"], row["trigger"], row["scheduled_for"]) for row in dead])
        return len(dead)

    # -- reading ----------------------------------------------------------------------
    def ticks(self, pipeline: str | None = None, limit: int = 20) -> list[TickRecord]:
        where, args = ("WHERE t.pipeline = ?", (pipeline,)) if pipeline else ("", ())
        rows = self.state.query(
            "SELECT t.pipeline, t.kind, t.trigger, t.scheduled_for, t.evaluated_at, t.outcome, t.reason, t.run_id,"
            " r.status FROM trigger_ticks t LEFT JOIN runs r ON r.run_id = t.run_id "
            f"{where} ORDER BY t.evaluated_at DESC, t.scheduled_for DESC LIMIT ?", (*args, limit))
        return [TickRecord(*row) for row in rows]

    def last_fired(self) -> dict[tuple[str, str], float]:
        """(pipeline, trigger key) -> the scheduled time of its newest fired tick."""
        rows = self.state.query("SELECT pipeline, trigger, MAX(scheduled_for) FROM trigger_ticks"
                                " WHERE outcome = 'fired' GROUP BY pipeline, trigger")
        return {(row[0], row[1]): row[2] for row in rows}

    # -- webhook tokens ---------------------------------------------------------------
    def token_hash(self, pipeline: str) -> str | None:
        row = self.state.query_one("SELECT token_hash FROM webhook_tokens WHERE pipeline = ?", (pipeline,))
        return row[0] if row else None

    def set_token_hash(self, pipeline: str, token_hash: str) -> None:
        self.state.execute("INSERT OR REPLACE INTO webhook_tokens VALUES (?, ?, ?)", (pipeline, token_hash, time.time()))
