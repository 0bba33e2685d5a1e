"""The log panel (`l`): one readable, time-stamped line per outcome and per run event."""
from __future__ import annotations

import time

from rich.text import Text
from textual.widgets import RichLog

from ...core.automation.service import TickDecided
from ...core.events import (
    Event,
    LogLine,
    PhaseFinished,
    QualityResultEvent,
    RunFinished,
    RunQueued,
    RunStarted,
    SessionStateChanged,
)
from ..outcomes import count

# Run marks in the tree, per run event (RunFinished carries its own status).
RUN_MARK_STATUS = {RunQueued: "queued", RunStarted: "running"}


def run_mark(event: RunQueued | RunStarted | RunFinished) -> str:
    if isinstance(event, RunFinished):
        if event.note:
            return "nothing_new"
        return "noted" if event.notes and event.status == "success" else event.status
    return RUN_MARK_STATUS[type(event)]


class LogPanel(RichLog):
    def __init__(self) -> None:
        super().__init__(id="log-panel", markup=False, wrap=True, max_lines=2000)
        self._spark_state = "stopped"

    def line(self, text: str, style: str = "", at: float | None = None) -> None:
        stamp = time.strftime("%H:%M:%S", time.localtime(at))
        self.write(Text(f"{stamp} {text}", style=style))

    def log_event(self, event: Event) -> None:
        at = event.at
        if isinstance(event, LogLine):
            style = {"error": "red", "warn": "yellow"}.get(event.level, "")
            self.line(f"[{event.run_id or '-'}] {event.message}", style, at)
        elif isinstance(event, PhaseFinished) and event.cancelled:
            self.line(f"[{event.run_id}] cancelled during {event.phase} after {event.ms} ms", "yellow", at)
        elif isinstance(event, PhaseFinished):
            self.line(f"[{event.run_id}] {event.phase} {'ok' if event.ok else 'FAILED'} in {event.ms} ms"
                      f"{'' if event.ok else ': ' + event.message}", "" if event.ok else "red", at)
        elif isinstance(event, QualityResultEvent):
            self.line(f"[{event.run_id}] quality test {event.name}: {event.status} "
                      f"({count(event.violations, 'violation', 'violations')})", at=at)
        elif isinstance(event, RunFinished):
            rows = f", {count(event.rows_written, 'row', 'rows')} written" if event.status == "success" else \
                f", {count(event.rows_written, 'row', 'rows')} held for review" if event.status == "awaiting_review" else ""
            rows = f": {event.note}, nothing written" if event.note else rows
            self.line(f"[{event.run_id}] {event.pipeline}: run {event.status}{rows}"
                      + (f": {event.error}" if event.error else ""), "" if event.status == "success" else "red", at)
        elif isinstance(event, (RunQueued, RunStarted)):
            self.line(f"[{event.run_id}] {event.pipeline}: run {RUN_MARK_STATUS[type(event)]}", at=at)
        elif isinstance(event, TickDecided):
            self.line(event.sentence(), "" if event.outcome == "fired" else "grey50", at)
        elif isinstance(event, SessionStateChanged):
            # busy and back to ready is every run's: the status bar shows it, the log only the session's life
            quiet = event.state == "busy" or event.state == "ready" and self._spark_state == "busy"
            self._spark_state = event.state
            if not quiet:
                self.line(f"Spark {event.state} {event.reason}".rstrip(), at=at)
