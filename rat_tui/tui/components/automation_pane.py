"""What runs by itself: a pipeline's triggers with their next time (local and relative) and its last ticks
with outcome and reason (its Automation tab), or every trigger of the project (`A`). Loads in a thread
worker, and again every few seconds so the relative times move."""
from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from ...core.automation.scheduler import other_scheduler
from ...core.automation.service import Automation, TickEntry, TriggerInfo
from .loading import app_closing, post_loaded

RELOAD_SECONDS = 5.0
OUTCOME_STYLE = {"fired": "green", "skipped": "yellow", "failed": "red", "cancelled": "yellow", "rejected": "red"}


def relative(at: datetime | None, now: float) -> str:
    """`in 3h 12m`, `5m ago`: the largest two units."""
    if at is None:
        return ""
    seconds = int(at.timestamp() - now)
    left, parts = abs(seconds), []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if left >= size or (unit == "s" and not parts):
            parts.append(f"{left // size}{unit}")
            left %= size
        if len(parts) == 2:
            break
    return f"in {' '.join(parts)}" if seconds >= 0 else f"{' '.join(parts)} ago"


def local(at: datetime | None) -> str:
    return "" if at is None else at.astimezone().strftime("%Y-%m-%d %H:%M")


def next_run_text(found: TriggerInfo | None, now: float) -> str:
    """The status bar's: `next ns.bronze.a 06:00 (in 3h 12m)`, or "" when no cron trigger is set."""
    if found is None or found.next_at is None:
        return ""
    return f"next {found.pipeline} {found.next_at.astimezone().strftime('%H:%M')} ({relative(found.next_at, now)})"


def scheduler_line(state_dir: Path) -> str:
    other = other_scheduler(state_dir)
    if other:
        return f"Triggers run in {other}; this app only shows them."
    return "Triggers are evaluated by this app every few seconds while no `rat-tui serve` runs."


def triggers_table(triggers: list[TriggerInfo], now: float, with_pipeline: bool) -> Table:
    table = Table(title="Triggers", title_justify="left", box=None, header_style="bold")
    for column in (["pipeline"] if with_pipeline else []) + ["kind", "spec", "next (local)", "", "last fired"]:
        table.add_column(column)
    for t in triggers:
        row = [t.kind, t.spec, local(t.next_at), relative(t.next_at, now), relative(t.last_fired_at, now)]
        table.add_row(*([t.pipeline] if with_pipeline else []), *row)
    return table


def ticks_table(ticks: list[TickEntry], now: float) -> Table:
    table = Table(title="Last ticks", title_justify="left", box=None, header_style="bold")
    for column in ("scheduled for (local)", "kind", "outcome", "run", "reason"):
        table.add_column(column, overflow="fold")
    for t in ticks:
        table.add_row(local(t.scheduled_for), t.kind, _outcome(t), t.run_id or "", t.reason)
    return table


def _outcome(tick: TickEntry) -> Text:
    """`fired → failed` for a fired tick whose run failed: a red run is no green "fired"."""
    if tick.outcome == "fired" and tick.run_status and tick.run_status != "success":
        return Text(f"fired → {tick.run_status}", style=OUTCOME_STYLE.get(tick.run_status, ""))
    return Text(tick.outcome, style=OUTCOME_STYLE.get(tick.outcome, ""))


class AutomationPane(VerticalScroll):
    @dataclass
    class Loaded(Message, bubble=False):
        triggers: list[TriggerInfo]
        ticks: list[TickEntry]
        scheduler: str

    def __init__(self, automation: Automation, fqn: str | None, state_dir: Path) -> None:
        super().__init__(classes="automation-pane")
        self.automation, self.fqn, self.state_dir = automation, fqn, state_dir

    def compose(self) -> ComposeResult:
        yield Static(Text("loading…", style="grey50"), classes="automation-body")

    def on_mount(self) -> None:
        self.load()
        self.set_interval(RELOAD_SECONDS, self.load)

    @work(thread=True, exclusive=True, group="automation")
    def load(self) -> None:
        what = f"the triggers of {self.fqn}" if self.fqn else "the project's triggers"
        post_loaded(self, f"show {what}", lambda: self.Loaded(
            self.automation.triggers(self.fqn), self.automation.ticks(self.fqn, limit=20) if self.fqn else [],
            scheduler_line(self.state_dir)))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        if app_closing(self.app):
            return
        now = time.time()
        parts: list = [Text(message.scheduler, style="grey50"), Text("")]
        if not message.triggers:
            where = "its config.yaml" if self.fqn else "a pipeline's config.yaml"
            parts.append(Text(f"No triggers. Add `triggers:` to {where} (cron, landing, after, webhook, stale).",
                              style="grey50"))
        else:
            parts.append(triggers_table(message.triggers, now, with_pipeline=self.fqn is None))
        if self.fqn:
            parts += [Text(""), ticks_table(message.ticks, now) if message.ticks else Text("No ticks yet.", style="grey50")]
        self.query_one(".automation-body", Static).update(Group(*parts))


class AutomationScreen(ModalScreen[None]):
    """Every trigger of the project with its next time (`A`); Escape closes."""

    BINDINGS = [Binding("escape", "dismiss", "Close")]

    def __init__(self, automation: Automation, state_dir: Path) -> None:
        super().__init__()
        self.automation, self.state_dir = automation, state_dir

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog automation-dialog"):
            yield Label(Text("Automation: every trigger of the project", style="bold"))
            yield AutomationPane(self.automation, None, self.state_dir)
            yield Label(Text("Escape to close", style="grey50"))
