"""The live run view: six phases (0–5), quality results, totals, phase bars against earlier runs."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from ...core.events import (
    Event,
    PhaseFinished,
    PhaseProgress,
    PhaseStarted,
    QualityResultEvent,
    RunFinished,
    RunQueued,
    RunStarted,
)
from ...core.lake.diff import TableDiff
from ...core.run.phases import PHASES
from ...core.commands.run_results import RunList
from ...core.notes import RunNote
from ...core.store.state import QualityOutcome, RunRecord
from .diff_view import diff_view

QUALITY_STYLE = {"passed": "green", "warned": "yellow", "failed": "red", "error": "red"}


@dataclass
class PhaseState:
    status: str = "pending"  # pending | running | done | failed | cancelled
    started: float | None = None
    ms: int | None = None
    rows: int | None = None
    message: str = ""
    tasks: tuple[int, int] | None = None  # Spark tasks done / total while the phase runs


@dataclass
class RunState:
    run_id: str
    pipeline: str
    status: str = "queued"
    started: float | None = None
    finished: float | None = None
    error: str | None = None
    note: str | None = None  # "nothing new in …": it succeeded and wrote nothing
    phases: dict[str, PhaseState] = field(default_factory=lambda: {p: PhaseState() for p in PHASES})
    quality: list[QualityOutcome] = field(default_factory=list)
    diff: TableDiff | None = None  # the run's diff against main (review mode, diff gates)
    notes: list[RunNote] = field(default_factory=list)  # what the run did to the data, each under its phase
    impact: list[str] = field(default_factory=list)  # a held run's: what its change of columns breaks downstream

    @classmethod
    def from_record(cls, record: RunRecord, impact: list[str] | None = None) -> "RunState":
        state = cls(record.run_id, record.pipeline, record.status, record.started_at, record.finished_at, record.error,
                    record.landing.get("note") if record.status == "success" else None)
        for name, ms in record.phases.items():
            state.phases[name] = PhaseState("done", ms=ms, rows=record.phase_rows.get(name))
        if record.status in ("failed", "cancelled") and record.phases:
            last = state.phases[list(record.phases)[-1]]
            last.status, last.message = record.status, record.error or ""
        state.quality = list(record.quality)
        stored = record.review.get("diff")  # the record keeps it as JSON; one of before `read` was read whole
        state.diff = TableDiff.from_dict({"read": "whole table", **stored}) if stored else None
        state.notes = list(record.notes)
        state.impact = impact or []
        return state

    def apply(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            self.status, self.started = "running", event.at
        elif isinstance(event, PhaseStarted):
            self.phases[event.phase] = PhaseState("running", started=event.at)
        elif isinstance(event, PhaseFinished):
            phase = self.phases[event.phase]
            phase.status = "done" if event.ok else "cancelled" if event.cancelled else "failed"
            phase.ms, phase.rows, phase.message, phase.tasks = event.ms, event.rows, event.message, None
        elif isinstance(event, PhaseProgress) and self.phases[event.phase].status == "running":
            self.phases[event.phase].tasks = (event.tasks_done, event.tasks_total)
        elif isinstance(event, QualityResultEvent):
            self.quality.append(QualityOutcome(event.name, event.severity, event.status, event.violations, event.ms,
                                               [list(row) for row in event.sample], event.error,
                                               list(event.sample_columns)))
        elif isinstance(event, RunFinished):
            self.status, self.finished, self.error, self.note = event.status, event.at, event.error, event.note


class LiveRuns:
    """Run states fed by run events, kept while a run is in flight (then its stored record is the truth),
    and the run each pipeline's Run tab shows."""

    def __init__(self) -> None:
        self.states: dict[str, RunState] = {}
        self.latest: dict[str, str] = {}  # pipeline fqn -> run id shown in its Run tab

    def apply(self, event: Event) -> RunState | None:
        """The state of the event's run, after the event."""
        if isinstance(event, RunQueued):
            self.states[event.run_id] = RunState(event.run_id, event.pipeline)
            self.latest[event.pipeline] = event.run_id
        state = self.states.get(getattr(event, "run_id", None) or "")
        if state is not None:
            state.apply(event)
        return state

    def finished(self, run_id: str) -> None:
        self.states.pop(run_id, None)

    def in_flight(self, fqn: str) -> bool:
        live = self.states.get(self.latest.get(fqn, ""))
        return live is not None and live.status in ("queued", "running")

    def shown(self, fqn: str, runs: RunList) -> RunState | None:
        """The run the Run tab shows: the latest live one, else the newest stored (`runs`, newest first)."""
        newest = runs.runs[0] if runs.runs else None
        run_id = self.latest.get(fqn) or (newest.run_id if newest else None)
        state = self.states.get(run_id) if run_id else None
        if state is None and newest is not None:
            state = RunState.from_record(newest, runs.impact.get(newest.run_id))
        return state


def run_total(started: float | None, finished: float | None) -> str:
    """A run's total as `runs` stores it (finished_at - started_at): the Run tab's header and the
    Runs tab show this one text, so they never disagree."""
    return "" if started is None or finished is None else f"{finished - started:.1f} s"


def _bar(ms: int, scale: int, width: int = 16) -> str:
    return "█" * max(1 if ms else 0, round(width * ms / scale)) if scale else ""


EIGHTHS = " ▏▎▍▌▋▊▉"


def task_bar(done: int, total: int, width: int = 8) -> str:
    """`▕███▌    ▏ 41/96 tasks`: Spark's progress in a phase row, to an eighth of a cell."""
    eighths = width * 8 * done // total
    full, part = divmod(eighths, 8)
    cells = "█" * full + (EIGHTHS[part] if part else "")
    return f"▕{cells.ljust(width)}▏ {done}/{total} tasks"


# Notes of NULLs where values were: the rows may be wrong downstream, so they stand out from the others.
WARNING_NOTES = frozenset({"null_column", "null_input"})


def note_line(note: RunNote) -> Text:
    """One of a run's notes under its phase: `◉ quarantined: 2 row(s) of … set aside in …`."""
    where = f" (line {note.line})" if note.line and f"line {note.line}" not in note.text else ""
    colour = "yellow" if note.kind in WARNING_NOTES else "green"
    return Text.assemble(("◉ ", colour), (f"{note.kind}: ", f"bold {colour}" if colour == "yellow" else "bold"),
                         note.text + where)


class RunView(Static):
    """Renders one RunState; its pipeline view feeds it events and the app ticks it for elapsed times."""

    def __init__(self) -> None:
        super().__init__(id="run-view")
        self.state: RunState | None = None
        self.previous: list[RunRecord] = []

    def show(self, state: RunState | None, previous: list[RunRecord]) -> None:
        self.state, self.previous = state, previous
        self.refresh_view()

    def changed(self, run_id: str) -> None:
        """The app updated the state of run `run_id`; redraw when it is the one shown."""
        if self.state is not None and self.state.run_id == run_id:
            self.refresh_view()

    def refresh_view(self) -> None:
        if self.state is None:
            self.update(Text("No run yet. Press r to run this pipeline.", style="grey50"))
            return
        parts = [self._header(), self._phases(), self._quality(), self._chart()]
        if self.state.diff:
            parts.insert(3, diff_view(self.state.diff))
        self.update(Group(*parts))

    def _header(self) -> Text:
        s = self.state
        assert s is not None
        style = {"success": "green", "failed": "red", "cancelled": "yellow", "awaiting_review": "magenta"}.get(s.status, "cyan")
        text = Text.assemble(("Run ", "bold"), (s.run_id, "bold"), f"  {s.pipeline}  ", (s.status.upper(), f"bold {style}"))
        if s.started:
            text.append(f"  total {run_total(s.started, s.finished or time.time())}", style="grey50")
        if s.error:
            text.append(f"\n{s.error}", style="red")
        if s.note:
            text.append(f"\n◌ {s.note}: nothing was written; the table and main are as they were", style="green")
        if s.status == "awaiting_review":
            text.append("\nAwaiting review: a approves (publishes to main), x rejects (drops the branch).", style="magenta")
            for sentence in s.impact:
                text.append(f"\n⚠ {sentence}", style="yellow")
        return text

    def _phases(self) -> Table:
        table = Table(box=None, pad_edge=False, show_header=True, header_style="bold")
        for column in ("", "phase", "time", "rows"):
            table.add_column(column, no_wrap=True)
        table.add_column("", overflow="fold")  # a failed phase's whole sentence, wrapped
        marks = {"pending": ("·", "grey50"), "running": ("▶", "cyan"), "done": ("✔", "green"), "failed": ("✘", "red"),
                 "cancelled": ("■", "yellow")}
        assert self.state is not None
        for name, phase in self.state.phases.items():
            mark, style = marks[phase.status]
            if phase.status == "running" and phase.started:
                elapsed = f"{time.time() - phase.started:.1f} s…"
            elif phase.ms is not None:
                elapsed = f"{phase.ms} ms"
            else:
                elapsed = ""
            note = Text(phase.message, style={"failed": "red", "cancelled": "yellow"}.get(phase.status, "grey70"))
            if phase.status == "running" and phase.tasks:
                note = Text(task_bar(*phase.tasks), style="cyan")
            table.add_row(Text(mark, style=style), Text(name, style=style if phase.status != "pending" else "grey50"),
                          elapsed, "" if phase.rows is None else f"{phase.rows:,}", note)
            for run_note in (n for n in self.state.notes if n.phase == name):
                table.add_row("", "", "", "", note_line(run_note))
        return table

    def _quality(self) -> Table | Text:
        assert self.state is not None
        if not self.state.quality:
            return Text("")
        table = Table(title="Quality tests", title_justify="left", box=None, header_style="bold")
        for column in ("test", "severity", "status", "violations"):
            table.add_column(column)
        table.add_column("sample / error", overflow="fold")
        for q in self.state.quality:
            detail = q.error or "; ".join(sample_row(q.sample_columns, r) for r in q.sample[:3])
            table.add_row(q.name, q.severity, Text(q.status, style=QUALITY_STYLE.get(q.status, "")), str(q.violations),
                          detail)
        return table

    def _chart(self) -> Table | Text:
        """This run's phase durations next to the previous runs' median."""
        assert self.state is not None
        durations = {n: p.ms for n, p in self.state.phases.items() if p.ms is not None}
        if not durations or not self.previous:
            return Text("")
        earlier: dict[str, list[int]] = {}
        for run in self.previous:
            for name, ms in run.phases.items():
                earlier.setdefault(name, []).append(ms)
        typical = {n: sorted(v)[len(v) // 2] for n, v in earlier.items()}
        scale = max([*durations.values(), *typical.values(), 1])
        table = Table(title=f"Phase times (this run vs median of {len(self.previous)} earlier)", title_justify="left",
                      box=None, header_style="bold")
        table.add_column("phase")
        table.add_column("this run")
        table.add_column("earlier")
        for name in PHASES:
            now, before = durations.get(name, 0), typical.get(name, 0)
            # the figure first: where the panel is narrow, Rich cuts a cell's end, and a bar cut short
            # misleads less than a figure cut (588 ms showed as 58)
            table.add_row(name, Text(f"{now:>6} {_bar(now, scale)}", style="cyan"),
                          Text(f"{before:>6} {_bar(before, scale)}", style="grey50"))
        return table


def sample_row(columns: list[str], values: list) -> str:
    """`id=3, amount=-5.0`: a violating row with its column names (a run recorded before they were kept: values)."""
    if len(columns) != len(values):
        return str(values)
    return ", ".join(f"{c}={v}" for c, v in zip(columns, values))
