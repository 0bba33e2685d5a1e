"""The SQL console's own files under `.rat/console/`: the editor's buffers (restored on restart)
and the query history (the last 500 statements, newest first when searched)."""
from __future__ import annotations

import json
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ..fileio import atomic_write

HISTORY_KEEP = 500


@dataclass(frozen=True)
class HistoryEntry:
    sql: str
    at: float
    ok: bool
    rows: int | None = None
    ms: int | None = None


class ConsoleStore:
    def __init__(self, state_dir: Path):
        self.folder = state_dir / "console"
        self.buffers_path = self.folder / "buffers.json"
        self.history_path = self.folder / "history.jsonl"
        self._lock = threading.Lock()

    # -- buffers --------------------------------------------------------------------
    def load_buffers(self) -> tuple[list[str], int]:
        """(texts of the buffers, the one shown); one empty buffer when nothing was saved or the
        file is unreadable (a damaged file must not keep the console from opening)."""
        try:
            data = json.loads(self.buffers_path.read_text(encoding="utf-8"))
            texts = [str(t) for t in data["buffers"]] or [""]
            return texts, min(max(int(data.get("active", 0)), 0), len(texts) - 1)
        except (OSError, ValueError, KeyError, TypeError):
            return [""], 0

    def save_buffers(self, texts: list[str], active: int) -> None:
        with self._lock:
            atomic_write(self.buffers_path, json.dumps({"buffers": texts, "active": active}).encode())

    # -- history --------------------------------------------------------------------
    def add_history(self, sql: str, ok: bool, rows: int | None = None, ms: int | None = None) -> None:
        """Add one statement, keeping the newest 500 (a rerun of the last statement replaces it rather
        than filling the history with reruns). The file is small: rewritten whole, atomically."""
        entry = HistoryEntry(sql.strip(), time.time(), ok, rows, ms)
        with self._lock:
            entries = self._read()
            if entries and entries[-1].sql == entry.sql:
                entries[-1] = entry
            else:
                entries.append(entry)
            entries = entries[-HISTORY_KEEP:]
            atomic_write(self.history_path, "".join(json.dumps(asdict(e)) + "\n" for e in entries).encode())

    def history(self, search: str = "") -> list[HistoryEntry]:
        """Newest first; `search` keeps statements containing every word of it (any case)."""
        with self._lock:
            entries = self._read()
        words = search.lower().split()
        return [e for e in reversed(entries) if all(w in e.sql.lower() for w in words)]

    def _read(self) -> list[HistoryEntry]:
        try:
            lines = self.history_path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return []
        entries = []
        for line in lines:
            try:
                entries.append(HistoryEntry(**json.loads(line)))
            except (ValueError, TypeError):
                continue  # one damaged line costs one entry
        return entries[-HISTORY_KEEP:]
