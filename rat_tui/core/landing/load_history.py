"""Which file contents a pipeline has loaded, so a file dropped into its zone again is loaded once.

A pipeline that archives its zones records a content hash of every file its run read. A load
counts only once its run succeeded: the history is joined with the run's status, so a run
that failed, was cancelled or crashed before reaching main (recovery marks it failed) never
kept anything from being loaded again. Nor does a run a rollback of its table went past (its rows
are no longer on main): rollbacks record which runs they undid, and rolling forward counts them again.
Hashes are xxHash3 (several GB/s) and cached by the
file's identity (identity.py), so a file is hashed once however often runs look at it.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from pathlib import Path

from ..project.model import Project
from ..store.rolled_back import mark_rolled_back
from ..store.state import StateDB
from .identity import FileIdentity
from .zone_settings import ZoneReadSettings, read_settings

_SCHEMA = """
CREATE TABLE IF NOT EXISTS landing_loads (
    pipeline TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    file TEXT NOT NULL,               -- the file's path in its zone when it was loaded
    run_id TEXT NOT NULL,
    loaded_at REAL NOT NULL,
    PRIMARY KEY (pipeline, content_hash, run_id)
);
CREATE TABLE IF NOT EXISTS landing_columns (
    folder TEXT NOT NULL,             -- the zone's path in the project, ending in /
    run_id TEXT NOT NULL,
    columns TEXT NOT NULL,            -- JSON list: the columns every file the run loaded from it had
    loaded_at REAL NOT NULL,
    PRIMARY KEY (folder, run_id)
);
CREATE TABLE IF NOT EXISTS landing_date_orders (
    folder TEXT NOT NULL,             -- the zone's path in the project, ending in /
    run_id TEXT NOT NULL,
    orders TEXT NOT NULL,             -- JSON list of [key, pattern]: how the run read the zone's dates
    loaded_at REAL NOT NULL,
    PRIMARY KEY (folder, run_id)
);
CREATE TABLE IF NOT EXISTS landing_settings (
    folder TEXT NOT NULL,             -- the zone's path in the project, ending in /
    run_id TEXT NOT NULL,
    settings TEXT NOT NULL,           -- JSON: rat.yaml's entry for the zone when the run read it ({} for none)
    loaded_at REAL NOT NULL,
    PRIMARY KEY (folder, run_id)
);
CREATE TABLE IF NOT EXISTS landing_runs_rolled_back (
    pipeline TEXT NOT NULL,
    run_id TEXT NOT NULL,             -- a run main was rolled back past: its loads do not count
    PRIMARY KEY (pipeline, run_id)
);
CREATE TABLE IF NOT EXISTS landing_file_hashes (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    ino INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL,
    content_hash TEXT NOT NULL
);
"""
_CHUNK = 4 << 20


@dataclass(frozen=True)
class EarlierLoad:
    run_id: str
    loaded_at: float
    file: str

    def sentence(self, name: str) -> str:
        """`skipped a.csv: loaded by run 1a2b3c on 2026-11-20`"""
        day = time.strftime("%Y-%m-%d", time.localtime(self.loaded_at))
        same = "" if Path(self.file).name == name else f" (as {self.file})"
        return f"skipped {name}: loaded by run {self.run_id} on {day}{same}"


def hash_bytes(path: Path) -> str:
    import xxhash

    digest = xxhash.xxh3_128()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


class LoadHistory:
    def __init__(self, state: StateDB):
        self.state = state
        state.script(_SCHEMA)

    def content_hash(self, path: Path) -> str:
        """The file's content hash, computed once per identity (FileNotFoundError when it is gone)."""
        key = str(path.resolve())
        identity = FileIdentity.of(path)
        row = self.state.query_one("SELECT size, mtime_ns, ino, ctime_ns, content_hash FROM landing_file_hashes "
                                   "WHERE path = ?", (key,))
        if row is not None and tuple(row)[:4] == tuple(identity):
            return row["content_hash"]
        digest = hash_bytes(path)
        if FileIdentity.of(path) == identity:  # not changed while it was read
            self.state.execute("INSERT OR REPLACE INTO landing_file_hashes VALUES (?, ?, ?, ?, ?, ?)",
                               (key, *identity, digest))
        return digest

    def earlier_loads(self, pipeline: str, hashes: list[str], folder: str = "") -> dict[str, EarlierLoad]:
        """For each hash the pipeline loaded from `folder` (a zone's path in the project, ending in `/`) in a
        successful run: its latest such load. Scoped to the zone: the same bytes sent to another zone are
        another file (an audit zone may well hold a copy of an order file)."""
        found: dict[str, EarlierLoad] = {}
        for start in range(0, len(hashes), 500):  # SQLite's limit on parameters
            batch = hashes[start:start + 500]
            found.update(self._loads(pipeline, folder, "AND l.content_hash IN (" + ", ".join("?" * len(batch)) + ")",
                                     batch))
        return found

    def loaded(self, pipeline: str, folder: str) -> dict[str, EarlierLoad]:
        """Every content the pipeline loaded from `folder` in a successful run main was not rolled back past:
        what its table holds rows of."""
        return self._loads(pipeline, folder)

    def _loads(self, pipeline: str, folder: str, where: str = "", args: list[str] | None = None) -> dict[str, EarlierLoad]:
        rows = self.state.query(
            "SELECT l.content_hash, l.run_id, l.loaded_at, l.file FROM landing_loads l JOIN runs r "
            "ON r.run_id = l.run_id WHERE r.status = 'success' AND l.pipeline = ? AND substr(l.file, 1, length(?)) = ? "
            "AND l.run_id NOT IN (SELECT run_id FROM landing_runs_rolled_back WHERE pipeline = l.pipeline) "
            f"{where} ORDER BY l.loaded_at", (pipeline, folder, folder, *(args or [])))
        return {row["content_hash"]: EarlierLoad(row["run_id"], row["loaded_at"], row["file"]) for row in rows}

    def record(self, pipeline: str, run_id: str, loaded: list[tuple[str, str]],
               columns: dict[str, list[str]] | None = None,
               date_orders: dict[str, list[tuple[str, str]]] | None = None,
               settings: dict[str, dict] | None = None) -> None:
        """`loaded`: (file path in its zone, content hash); `columns`: zone folder -> the columns its files
        had; `date_orders`: zone folder -> the (key, pattern) its dates were read with; `settings`: zone folder ->
        rat.yaml's entry for it. All count once the run succeeds."""
        now = time.time()
        with self.state.transaction() as db:
            db.executemany("INSERT OR IGNORE INTO landing_loads VALUES (?, ?, ?, ?, ?)",
                           [(pipeline, digest, file, run_id, now) for file, digest in loaded])
            db.executemany("INSERT OR REPLACE INTO landing_columns VALUES (?, ?, ?, ?)",
                           [(folder, run_id, json.dumps(names), now) for folder, names in (columns or {}).items()])
            db.executemany("INSERT OR REPLACE INTO landing_date_orders VALUES (?, ?, ?, ?)",
                           [(folder, run_id, json.dumps(orders), now)
                            for folder, orders in (date_orders or {}).items() if orders])
            db.executemany("INSERT OR REPLACE INTO landing_settings VALUES (?, ?, ?, ?)",
                           [(folder, run_id, json.dumps(entry, sort_keys=True), now)
                            for folder, entry in (settings or {}).items()])

    def rolled_back(self, pipeline: str, on_main: dict[str, bool]) -> None:
        """After main moved: a file whose load main no longer holds is new to the table again (rolled_back.py)."""
        mark_rolled_back(self.state, "landing_runs_rolled_back", pipeline, on_main)

    def last_columns(self, folder: str) -> tuple[list[str], str] | None:
        """The columns of the files a successful run loaded last from the zone at `folder`, and that run's
        id: what upload expects of a new file once every earlier one was archived."""
        row = self.state.query_one(
            "SELECT c.columns, c.run_id FROM landing_columns c JOIN runs r ON r.run_id = c.run_id "
            "WHERE r.status = 'success' AND c.folder = ? ORDER BY c.loaded_at DESC LIMIT 1", (folder,))
        return (json.loads(row["columns"]), row["run_id"]) if row is not None else None

    def last_settings(self, pipeline: str, folder: str) -> tuple[dict, str] | None:
        """rat.yaml's entry for the zone at `folder` when the pipeline's last successful run loaded from it, and
        that run's id (None before the first such run, or one made before these were kept)."""
        row = self.state.query_one(
            "SELECT s.settings, s.run_id FROM landing_settings s JOIN runs r ON r.run_id = s.run_id "
            "WHERE r.status = 'success' AND r.pipeline = ? AND s.folder = ? ORDER BY s.loaded_at DESC LIMIT 1",
            (pipeline, folder))
        return (json.loads(row["settings"]), row["run_id"]) if row is not None else None

    def date_orders(self, folder: str) -> tuple[tuple[str, str], ...]:
        """The (key, pattern) pairs a successful run last read the dates of the zone at `folder` with, so a
        later file whose days are all 12 or less reads in that order (dialect.py).
        A rollback of the table does not forget them, unlike the loads: the order is what the source's
        files showed of how it writes dates, which a rollback does not change, and the files a rollback
        makes new again must load as they did before (read together with a later file, day-first would
        refuse them). A zone whose source changed its order pins date_format in rat.yaml, which wins."""
        row = self.state.query_one(
            "SELECT o.orders FROM landing_date_orders o JOIN runs r ON r.run_id = o.run_id "
            "WHERE r.status = 'success' AND o.folder = ? ORDER BY o.loaded_at DESC LIMIT 1", (folder,))
        return tuple((key, pattern) for key, pattern in json.loads(row["orders"])) if row is not None else ()


def zone_read_settings(project: Project, history: LoadHistory | None, namespace: str, zone: str) -> ZoneReadSettings:
    """How the zone's files are read: rat.yaml's settings, with the date orders its earlier loads had."""
    settings = read_settings(project.settings, namespace, zone)
    if history is None:
        return settings
    return replace(settings, date_orders=history.date_orders(project.zone_folder(namespace, zone)))
