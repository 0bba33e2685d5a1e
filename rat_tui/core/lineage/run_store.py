"""Column lineage kept with each run in `.rat/state.db`, under the code version it was found for:
a Python pipeline's lineage comes from its run (Spark's plan) and stays true until its code changes."""
from __future__ import annotations

import hashlib
import json
import time

from ..store.state import StateDB
from .model import ColumnRef, Edge, PipelineLineage

_SCHEMA = """
CREATE TABLE IF NOT EXISTS column_lineage (
    run_id TEXT PRIMARY KEY,
    pipeline TEXT NOT NULL,
    code_hash TEXT NOT NULL,   -- sha256 of the pipeline's source as the run read it
    recorded_at REAL NOT NULL,
    lineage TEXT NOT NULL      -- {columns, edges: [[source table, column, target column, kind, via]], problem}
);
CREATE INDEX IF NOT EXISTS column_lineage_by_code ON column_lineage (pipeline, code_hash, recorded_at);
"""


def code_hash(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def _encode(lineage: PipelineLineage) -> str:
    edges = [[e.source.table, e.source.column, e.target.column, e.kind, e.via] for e in lineage.edges]
    return json.dumps({"columns": list(lineage.columns), "edges": edges, "problem": lineage.problem})


def _decode(pipeline: str, text: str) -> PipelineLineage:
    data = json.loads(text)
    edges = tuple(Edge(ColumnRef(table, column), ColumnRef(pipeline, target), kind, via)
                  for table, column, target, kind, via in data["edges"])
    return PipelineLineage(pipeline, tuple(data["columns"]), edges, data.get("problem"))


class LineageStore:
    """Written by RunLineage, a background listener of the event bus: a command that waits for its runs finds
    their lineage written (RunHandle.wait settles the bus). Reads never wait for it themselves: ColumnLineage
    reads under its lock, which that listener needs too."""

    def __init__(self, state: StateDB):
        self.state = state
        state.script(_SCHEMA)

    def save(self, run_id: str, source: str, lineage: PipelineLineage) -> None:
        self.state.execute(
            "INSERT OR REPLACE INTO column_lineage (run_id, pipeline, code_hash, recorded_at, lineage)"
            " VALUES (?, ?, ?, ?, ?)", (run_id, lineage.pipeline, code_hash(source), time.time(), _encode(lineage)))

    def for_run(self, run_id: str) -> PipelineLineage | None:
        row = self.state.query_one("SELECT pipeline, lineage FROM column_lineage WHERE run_id = ?", (run_id,))
        return _decode(row["pipeline"], row["lineage"]) if row else None

    def latest(self, pipeline: str, source: str) -> PipelineLineage | None:
        """The lineage the newest run of this very code found; None when no run of it recorded one."""
        row = self.state.query_one(
            "SELECT lineage FROM column_lineage WHERE pipeline = ? AND code_hash = ? ORDER BY recorded_at DESC"
            " LIMIT 1", (pipeline, code_hash(source)))
        return _decode(pipeline, row["lineage"]) if row else None
