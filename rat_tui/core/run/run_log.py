"""`.rat/logs/runs.jsonl`: every run event as one JSON line (run id, pipeline, phases, rows, quality, errors)."""
from __future__ import annotations

import json
import threading
from pathlib import Path

from ..events import Event, Notice, PhaseProgress, SessionStateChanged


class RunLog:
    """Appends run events; one writer per process, lines small enough to be written whole."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        if isinstance(event, (SessionStateChanged, PhaseProgress, Notice)):  # live figures and the services'
            return  # notices, not the runs' history
        line = json.dumps(event.as_dict(), default=str) + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)  # `.rat/` may have been deleted under the app
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(line)

    def read(self, run_id: str | None = None) -> list[dict]:
        if not self.path.exists():
            return []
        entries = [json.loads(line) for line in self.path.read_text(encoding="utf-8").splitlines() if line.strip()]
        return [e for e in entries if run_id is None or e.get("run_id") == run_id]
