"""`.rat/state.db`: run history and quality results, shared safely by several app processes."""
from __future__ import annotations

import json
import logging
import os
import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..notes import RunNote
from ..run_record import QualityOutcome, RunRecord, note_dict  # noqa: F401  (re-exported: the store's readers import them here)

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    pipeline TEXT NOT NULL,
    status TEXT NOT NULL,            -- queued | running | awaiting_review | success | failed | cancelled | rejected | skipped
    version TEXT NOT NULL DEFAULT 'draft',
    trigger TEXT NOT NULL DEFAULT 'manual',
    queued_at REAL NOT NULL,
    started_at REAL,
    finished_at REAL,
    rows_written INTEGER NOT NULL DEFAULT 0,
    phases TEXT NOT NULL DEFAULT '{}',
    phase_rows TEXT NOT NULL DEFAULT '{}',  -- {phase: rows} as each phase reported them
    snapshot_id INTEGER,
    error TEXT,
    branch TEXT,
    created_table INTEGER NOT NULL DEFAULT 0,
    host TEXT,
    pid INTEGER,
    archived_files TEXT NOT NULL DEFAULT '[]',
    files_read TEXT NOT NULL DEFAULT '[]',  -- [{path, size, mtime}] of the landing files the run read
    inputs TEXT NOT NULL DEFAULT '{}',      -- {ns.layer.name: snapshot id} of the tables the run read
    landing TEXT NOT NULL DEFAULT '{}',     -- {note, skipped, rejected_rows, landing_notes}: what its zones held
    review TEXT NOT NULL DEFAULT '{}',      -- {diff, base_snapshot, schema_id, group}: a held run's diff and what approve checks
    waited_for_spark_ms INTEGER NOT NULL DEFAULT 0,  -- how long the run waited for Spark to start, before its phases
    notes TEXT NOT NULL DEFAULT '[]'        -- [{kind, file, line, text, phase}]: what the run did to the data (notes.py)
);
CREATE INDEX IF NOT EXISTS runs_by_pipeline ON runs (pipeline, queued_at);
CREATE TABLE IF NOT EXISTS quality_results (
    run_id TEXT NOT NULL,
    name TEXT NOT NULL,
    severity TEXT NOT NULL,
    status TEXT NOT NULL,
    violations INTEGER NOT NULL,
    ms INTEGER NOT NULL,
    sample TEXT NOT NULL DEFAULT '[]',
    error TEXT,
    sample_columns TEXT NOT NULL DEFAULT '[]',  -- the names of the sample's values
    PRIMARY KEY (run_id, name)
);
"""


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


def process_alive(host: str | None, pid: int | None) -> bool:
    if host != socket.gethostname() or not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a killed process not yet reaped by its parent (a zombie) still answers kill(pid, 0)
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


_RECREATE_WAITS = (0.05, 0.1, 0.2, 0.4, 0.8)  # 1.55 s in all: longer than any `rm -rf` of .rat/

class StateDB:
    """SQLite in WAL mode with a busy timeout: a TUI and a `--script` may share one project.

    The file may be deleted under a running app (`rm -rf .rat`, a reset script): every connection checks
    that the file it talks to is still the one at `path`, and if not the database is made again, schemas
    and all, and `on_recreated` listeners hear of it once. Without that, writes went on into the deleted
    file and new threads could not open it at all, so runs never finished."""

    def __init__(self, path: Path):
        self.path = path
        self._local = threading.local()
        self._schemas = [_SCHEMA]  # this one and those of the stores sharing the file (`script`)
        self._generation = 0
        self._identity: tuple[int, int] | None = None
        self._remake = threading.Lock()
        self._listeners: list[Callable[[bool], None]] = []
        self._make_while_deleted()

    def on_recreated(self, listener: Callable[[bool], None]) -> None:
        """`listener(emptied)` after the file vanished and was opened again: `emptied` when this process
        made it (another process may have made it first, with its own history)."""
        self._listeners.append(listener)

    def _make(self) -> bool:
        """Open the file (creating it with every schema); True if it was empty before."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = self._connect()
        emptied = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
        for schema in self._schemas:
            conn.executescript(schema)
        identity = _identity(self.path)
        if identity is None:  # deleted again as it was made: taken as the file, no later query would make it again
            raise sqlite3.OperationalError(f"{self.path} vanished while it was made")
        self._identity = identity  # before the migration, whose transaction asks for a connection
        self._migrate(conn)
        return emptied

    def _migrate(self, conn: sqlite3.Connection) -> None:
        if "sample_columns" not in {row[1] for row in conn.execute("PRAGMA table_info(quality_results)")}:
            conn.execute("ALTER TABLE quality_results ADD COLUMN sample_columns TEXT NOT NULL DEFAULT '[]'")
        columns = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
        if "files_read" not in columns:  # state.db written before landing files were tracked
            conn.execute("ALTER TABLE runs ADD COLUMN files_read TEXT NOT NULL DEFAULT '[]'")
        if "inputs" not in columns:  # ... and before the tables a run read were
            conn.execute("ALTER TABLE runs ADD COLUMN inputs TEXT NOT NULL DEFAULT '{}'")
        if "landing" not in columns:  # ... and before what a run's zones held was
            conn.execute("ALTER TABLE runs ADD COLUMN landing TEXT NOT NULL DEFAULT '{}'")
        if "review" not in columns:  # ... and before runs could wait for review
            conn.execute("ALTER TABLE runs ADD COLUMN review TEXT NOT NULL DEFAULT '{}'")
        if "notes" not in columns:  # ... and before a run's notes were
            conn.execute("ALTER TABLE runs ADD COLUMN notes TEXT NOT NULL DEFAULT '[]'")
        if "waited_for_spark_ms" not in columns:  # ... and before the wait for Spark was kept (it was the run's alone)
            conn.execute("ALTER TABLE runs ADD COLUMN waited_for_spark_ms INTEGER NOT NULL DEFAULT 0")
        if "phase_rows" not in columns:  # ... and before each phase's rows were: the write's were rows_written
            with self._tx() as db:
                db.execute("ALTER TABLE runs ADD COLUMN phase_rows TEXT NOT NULL DEFAULT '{}'")
                db.execute("UPDATE runs SET phase_rows = json_object('iceberg_write', rows_written)"
                           " WHERE json_extract(phases, '$.iceberg_write') IS NOT NULL")

    def _connect(self) -> sqlite3.Connection:
        old = getattr(self._local, "conn", None)
        if old is not None:
            old.close()
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA busy_timeout=30000")
        conn.execute("PRAGMA synchronous=NORMAL")
        self._local.conn, self._local.generation = conn, self._generation
        return conn

    def _conn(self) -> sqlite3.Connection:
        if _identity(self.path) != self._identity:
            self._recreate()
        conn = getattr(self._local, "conn", None)
        if conn is None or self._local.generation != self._generation:
            conn = self._connect()
        return conn

    def _recreate(self) -> None:
        with self._remake:
            if _identity(self.path) == self._identity:  # another thread did it meanwhile
                return
            self._generation += 1
            emptied = self._make_while_deleted()
        log.warning("%s vanished under the app; opened it again (%s)", self.path,
                    "made empty" if emptied else "another process had made it")
        for listener in self._listeners:
            listener(emptied)

    def _make_while_deleted(self) -> bool:
        """`_make`, again while it fails: the folder's deletion (`rm -rf .rat`) may still be under way and take
        the new file, or its journal, from under the connection ("disk I/O error")."""
        for wait in _RECREATE_WAITS:
            try:
                return self._make()
            except sqlite3.OperationalError:
                log.info("making %s again failed; the folder may still be being deleted", self.path, exc_info=True)
                time.sleep(wait)
        return self._make()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    # -- generic access for other stores sharing the database ----------------------
    def script(self, sql: str) -> None:
        """A store's own tables in this file, made again with it if the file is deleted."""
        if sql not in self._schemas:
            self._schemas.append(sql)
        self._conn().executescript(sql)

    def transaction(self):
        """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on an exception), for several statements at once."""
        return self._tx()

    def execute(self, sql: str, params: tuple = ()) -> None:
        with self._tx() as db:
            db.execute(sql, params)

    def query(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        return self._conn().execute(sql, params).fetchall()

    def query_one(self, sql: str, params: tuple = ()) -> sqlite3.Row | None:
        return self._conn().execute(sql, params).fetchone()

    # -- writes ---------------------------------------------------------------------
    def insert_run(self, run: RunRecord) -> None:
        run.host, run.pid = socket.gethostname(), os.getpid()
        with self._tx() as db:
            db.execute(
                "INSERT INTO runs (run_id, pipeline, status, version, trigger, queued_at, host, pid)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (run.run_id, run.pipeline, run.status, run.version, run.trigger, run.queued_at, run.host, run.pid),
            )

    def restore_run(self, run: RunRecord) -> None:
        """A run in flight whose row vanished with the file (see the class): its row again, as it stands."""
        with self._tx() as db:
            db.execute(
                "INSERT OR IGNORE INTO runs (run_id, pipeline, status, version, trigger, queued_at, started_at,"
                " waited_for_spark_ms, branch, created_table, host, pid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run.run_id, run.pipeline, run.status, run.version, run.trigger, run.queued_at, run.started_at,
                 run.waited_for_spark_ms, run.branch, int(run.created_table), socket.gethostname(), os.getpid()),
            )

    def update_run(self, run_id: str, **fields: Any) -> None:
        for key in ("phases", "phase_rows", "inputs", "landing", "review"):
            if key in fields:
                fields[key] = json.dumps(fields[key])
        if "notes" in fields:
            fields["notes"] = json.dumps([note_dict(n) for n in fields["notes"]])
        if "created_table" in fields:
            fields["created_table"] = int(bool(fields["created_table"]))
        assignments = ", ".join(f"{key} = ?" for key in fields)
        with self._tx() as db:
            db.execute(f"UPDATE runs SET {assignments} WHERE run_id = ?", (*fields.values(), run_id))

    def save_quality(self, run_id: str, outcome: QualityOutcome) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO quality_results (run_id, name, severity, status, violations, ms, sample, error,"
                " sample_columns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, outcome.name, outcome.severity, outcome.status, outcome.violations, outcome.ms,
                 json.dumps(outcome.sample, default=str), outcome.error, json.dumps(outcome.sample_columns)),
            )

    # -- reads ----------------------------------------------------------------------
    def _record(self, row: sqlite3.Row) -> RunRecord:
        quality = [
            QualityOutcome(q["name"], q["severity"], q["status"], q["violations"], q["ms"], json.loads(q["sample"]), q["error"],
                           json.loads(q["sample_columns"]))
            for q in self._conn().execute("SELECT * FROM quality_results WHERE run_id = ? ORDER BY name", (row["run_id"],))
        ]
        return RunRecord(
            run_id=row["run_id"], pipeline=row["pipeline"], status=row["status"], version=row["version"],
            trigger=row["trigger"], queued_at=row["queued_at"], started_at=row["started_at"],
            finished_at=row["finished_at"], rows_written=row["rows_written"], phases=json.loads(row["phases"]),
            phase_rows=json.loads(row["phase_rows"]),
            snapshot_id=row["snapshot_id"], error=row["error"], branch=row["branch"],
            created_table=bool(row["created_table"]), host=row["host"], pid=row["pid"], quality=quality,
            inputs=json.loads(row["inputs"]), landing=json.loads(row["landing"]), review=json.loads(row["review"]),
            notes=[RunNote(**n) for n in json.loads(row["notes"])], waited_for_spark_ms=row["waited_for_spark_ms"],
        )

    def get_run(self, run_id: str) -> RunRecord | None:
        row = self._conn().execute("SELECT * FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return self._record(row) if row else None

    def runs(self, pipeline: str | None = None, limit: int = 20) -> list[RunRecord]:
        if pipeline:
            rows = self._conn().execute(
                "SELECT * FROM runs WHERE pipeline = ? ORDER BY queued_at DESC LIMIT ?", (pipeline, limit))
        else:
            rows = self._conn().execute("SELECT * FROM runs ORDER BY queued_at DESC LIMIT ?", (limit,))
        return [self._record(row) for row in rows.fetchall()]

    def orphaned_runs(self) -> list[RunRecord]:
        """Runs left queued or running by a process that no longer exists."""
        rows = self._conn().execute("SELECT * FROM runs WHERE status IN ('queued', 'running')").fetchall()
        return [self._record(r) for r in rows if not process_alive(r["host"], r["pid"])]

    def live_run_ids(self, pipeline: str | None = None) -> set[str]:
        """Runs queued or running (of one pipeline, or all) whose process is still alive: a run a
        dead process left 'running' is not (the same test crash recovery uses)."""
        rows = self.query("SELECT run_id, pipeline, host, pid FROM runs WHERE status IN ('queued', 'running')")
        return {row["run_id"] for row in rows if (pipeline is None or row["pipeline"] == pipeline)
                and process_alive(row["host"], row["pid"])}

    def unsettled_run_ids(self, pipeline: str | None = None) -> set[str]:
        """Runs whose branch and schema change must stay on the table: live ones, and those awaiting review."""
        return self.live_run_ids(pipeline) | {run.run_id for run in self.held_runs(pipeline)}

    def held_runs(self, pipeline: str | None = None) -> list[RunRecord]:
        """Runs awaiting review (their branch is kept until approved, rejected or purged)."""
        rows = self.query("SELECT * FROM runs WHERE status = 'awaiting_review' ORDER BY queued_at")
        return [self._record(row) for row in rows if pipeline is None or row["pipeline"] == pipeline]

    def stuck_runs(self, timeout_minutes: float, now: float) -> list[sqlite3.Row]:
        """Runs recorded as running for longer than `timeout_minutes` whose process is gone
        (run_id, pipeline, started_at). A slow run of a live process is never stuck."""
        cutoff = now - timeout_minutes * 60
        rows = self.query("SELECT run_id, pipeline, started_at, host, pid FROM runs WHERE status = 'running'")
        return [row for row in rows if row["started_at"] is not None and row["started_at"] < cutoff
                and not process_alive(row["host"], row["pid"])]

    def covering_run(self, pipeline: str, since: float, other_than: str) -> RunRecord | None:
        """The first successful run of the working copy of `pipeline` that started at or after `since`."""
        row = self.query_one(
            "SELECT * FROM runs WHERE pipeline = ? AND run_id != ? AND status = 'success' AND version = 'draft'"
            " AND started_at >= ? ORDER BY started_at LIMIT 1", (pipeline, other_than, since))
        return self._record(row) if row else None

    def delete_run(self, run_id: str) -> None:
        self.execute("DELETE FROM runs WHERE run_id = ?", (run_id,))

    def consumed_files(self) -> set[tuple[str, float]]:
        """(path, mtime) of every landing file a successful run has read."""
        found = set()
        for row in self._conn().execute("SELECT files_read FROM runs WHERE status = 'success' AND files_read != '[]'"):
            found |= {(f["path"], f["mtime"]) for f in json.loads(row["files_read"])}
        return found

    def unresolved_branches(self) -> list[RunRecord]:
        """Finished runs whose branch (or created table) was never cleaned up."""
        rows = self._conn().execute(
            "SELECT * FROM runs WHERE status IN ('success', 'failed', 'cancelled') AND branch IS NOT NULL").fetchall()
        return [self._record(r) for r in rows]
