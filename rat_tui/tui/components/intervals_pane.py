"""Intervals of partitioned pipelines (issue 39): a strip per pipeline (done, failed, missing, stale) and its
ranges of one status in a table; the backfill key (INTERVALS_KEYMAP, listed in the help) backfills the missing
or failed intervals of the range under the cursor, as one run. A pipeline's Intervals tab shows its own; `I`
shows every partitioned pipeline of the project. Loads and backfills in thread workers."""
from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, Static

from ...core.compose import Workbench
from ...core.errors import RatError
from ...core.store.intervals import IntervalState
from ..keymap import INTERVALS_KEYMAP, key_label
from .loading import app_closing, post_loaded

MARKS = {"done": ("█", "green"), "failed": ("█", "red"), "missing": ("·", "grey50"), "stale": ("█", "yellow")}
WORST_FIRST = ("failed", "missing", "stale", "done")  # a mark standing for several intervals shows the worst
STRIP_WIDTH = 100
BACKFILLS = ("missing", "failed")


@dataclass(frozen=True)
class Range:
    """Neighbouring intervals of one pipeline with one status."""

    pipeline: str
    status: str
    start: str
    end: str
    count: int


def ranges(pipeline: str, states: list[IntervalState]) -> list[Range]:
    out: list[Range] = []
    for state in states:
        if out and out[-1].status == state.status and out[-1].end == state.start:
            last = out[-1]
            out[-1] = Range(pipeline, last.status, last.start, state.end, last.count + 1)
        else:
            out.append(Range(pipeline, state.status, state.start, state.end, 1))
    return out


def strip(states: list[IntervalState], width: int = STRIP_WIDTH) -> Text:
    """One mark per interval; past `width` intervals, one mark per group of them."""
    per_mark = max(1, -(-len(states) // width))
    text = Text()
    for index in range(0, len(states), per_mark):
        group = {s.status for s in states[index:index + per_mark]}
        mark, style = MARKS[next(status for status in WORST_FIRST if status in group)]
        text.append(mark, style=style)
    return text


def legend() -> Text:
    return Text.assemble(*(part for status, (mark, style) in MARKS.items() for part in ((mark, style), f" {status}  ")),
                         (f"{key_label(INTERVALS_KEYMAP[0].key)}: backfill the range under the cursor", "grey50"))


class IntervalsPane(Vertical):
    BINDINGS = [Binding(k.key, k.action, k.description) for k in INTERVALS_KEYMAP]

    @dataclass
    class Loaded(Message, bubble=False):
        strips: dict[str, list[IntervalState]]
        problems: dict[str, str]  # pipeline -> why its partitions cannot say its intervals

    def __init__(self, workbench: Workbench, fqn: str | None) -> None:
        super().__init__(classes="intervals-pane")
        self.workbench, self.fqn = workbench, fqn
        self.ranges: list[Range] = []

    DEFAULT_CSS = "IntervalsPane { height: auto; } IntervalsPane DataTable { height: auto; max-height: 16; }"

    def compose(self) -> ComposeResult:
        yield Static(Text("loading…", style="grey50"), classes="intervals-strips")
        yield DataTable(classes="intervals-ranges", cursor_type="row")

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="intervals")
    def load(self) -> None:
        post_loaded(self, "show the intervals", lambda: self.Loaded(*self.workbench.intervals.interval_overview(self.fqn)))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        if app_closing(self.app):
            return
        parts: list = [legend(), Text("")]
        for fqn, problem in message.problems.items():
            parts += [Text(fqn, style="bold"), Text(problem, style="red")]
        if not message.strips and not message.problems:
            where = "its config.yaml" if self.fqn else "a pipeline's config.yaml"
            parts.append(Text(f"No intervals. Add `partitions: {{column, grain, start}}` to {where}.", style="grey50"))
        for fqn, states in message.strips.items():
            counts = {status: sum(s.status == status for s in states) for status in MARKS}
            summary = ", ".join(f"{n} {status}" for status, n in counts.items() if n)
            parts += [Text.assemble((fqn, "bold"), "  ", (summary, "grey50")), strip(states)]
        self.query_one(".intervals-strips", Static).update(Group(*parts))
        self.ranges = [r for fqn, states in message.strips.items() for r in ranges(fqn, states)]
        table = self.query_one(".intervals-ranges", DataTable)
        table.clear(columns=True)
        table.add_columns("pipeline", "from", "to (exclusive)", "status", "intervals")
        for r in self.ranges:
            mark, style = MARKS[r.status]
            table.add_row(r.pipeline, r.start, r.end, Text(r.status, style=style), str(r.count))

    def action_backfill(self) -> None:
        table = self.query_one(".intervals-ranges", DataTable)
        if not self.ranges or table.cursor_row >= len(self.ranges):
            self.notify("No range under the cursor", severity="warning")
            return
        chosen = self.ranges[table.cursor_row]
        if chosen.status not in BACKFILLS:
            self.notify(f"Those {chosen.count} interval(s) are {chosen.status}: nothing to backfill "
                        "(backfill --stale does stale ones)", severity="warning")
            return
        self.notify(f"Backfilling {chosen.count} {chosen.status} interval(s) of {chosen.pipeline}…")
        self.backfill(chosen)

    @work(thread=True, group="intervals-backfill")
    def backfill(self, chosen: Range) -> None:
        try:
            result = self.workbench.intervals.backfill(chosen.pipeline, chosen.start, chosen.end, BACKFILLS)
            run = result.run  # none when another run did the range meanwhile
            self.app.call_from_thread(self.notify, f"Backfill run {run.run_id} of {chosen.pipeline}: {run.status}"
                                      if run else result.note or f"nothing to backfill in {chosen.pipeline}")
        except RatError as exc:
            self.app.call_from_thread(self.notify, exc.sentence(), severity="error")
        self.app.call_from_thread(self.load)


class IntervalsScreen(ModalScreen[None]):
    """Every partitioned pipeline's intervals (`I`); Escape closes."""

    BINDINGS = [Binding("escape", "dismiss", "Close")]

    def __init__(self, workbench: Workbench) -> None:
        super().__init__()
        self.workbench = workbench

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog intervals-dialog"):
            yield Label(Text("Intervals: every partitioned pipeline of the project", style="bold"))
            yield IntervalsPane(self.workbench, None)
            yield Label(Text("Escape to close", style="grey50"))
