"""Freshness in the TUI (issue 39): every table sorted by how late it is (`f`), and the line a pipeline's
panel shows. Loaded in thread workers: a policy with a `column` asks Spark, and the UI never waits on it."""
from __future__ import annotations

from dataclasses import dataclass

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

from ...core.freshness.service import FreshnessService
from ...core.freshness.status import Freshness, by_lateness
from ...core.text import age_label
from .loading import app_closing, post_loaded

STATUS_STYLE = {"fresh": "green", "warn": "yellow", "error": "bold red", "never": "grey50"}


def freshness_line(found: Freshness) -> Text:
    """`warn · 7h 12m old (warn after 6h, error after 1d)`: the pipeline panel's line."""
    limits = ", ".join(f"{name} after {value}" for name, value in (("warn", found.warn_after),
                                                                  ("error", found.error_after)) if value)
    age = "no successful run yet" if found.age_s is None else f"{age_label(found.age_s)} old"
    measured = " by its newest value" if found.newest_value is not None else ""
    return Text.assemble(("freshness ", "bold"), (found.status, STATUS_STYLE[found.status]),
                         f" · {age}{measured} ({limits})")


def freshness_table(found: list[Freshness]) -> Table:
    table = Table(box=None, header_style="bold")
    table.add_column("pipeline", no_wrap=True)
    for column in ("status", "age", "warn after", "error after", "last success", "newest value"):
        table.add_column(column, no_wrap=True)
    for f in by_lateness(found):
        table.add_row(f.pipeline, Text(f.status, style=STATUS_STYLE[f.status]), age_label(f.age_s) if f.age_s is not None
                      else "", f.warn_after or "", f.error_after or "", _utc(f.last_success_at), _utc(f.newest_value))
    return table


def _utc(at) -> str:
    return "" if at is None else at.strftime("%Y-%m-%d %H:%M")


@dataclass
class Surveyed(Message, bubble=False):
    """What `FreshnessService.survey` found, posted to the widget that asked."""

    found: list[Freshness]
    failed: list[str]


class PipelineFreshness(Static):
    """A pipeline panel's freshness line, above its source; hidden when the pipeline has no policy."""

    DEFAULT_CSS = "PipelineFreshness { display: none; }"

    def __init__(self, freshness: FreshnessService, fqn: str) -> None:
        super().__init__(id="pipeline-freshness")
        self.freshness, self.fqn = freshness, fqn

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="pipeline-freshness")
    def load(self) -> None:
        post_loaded(self, f"show the freshness of {self.fqn}", lambda: Surveyed(*self.freshness.survey(self.fqn)))

    @on(Surveyed)
    def _loaded(self, message: Surveyed) -> None:
        if app_closing(self.app) or not (message.found or message.failed):
            return
        self.update(freshness_line(message.found[0]) if message.found else Text(message.failed[0], style="red"))
        self.display = True


class FreshnessPane(VerticalScroll):
    def __init__(self, freshness: FreshnessService) -> None:
        super().__init__(classes="freshness-pane")
        self.freshness = freshness

    def compose(self) -> ComposeResult:
        yield Static(Text("loading…", style="grey50"), classes="freshness-body")

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="freshness-view")
    def load(self) -> None:
        post_loaded(self, "show the freshness of the tables", lambda: Surveyed(*self.freshness.survey()))

    @on(Surveyed)
    def _loaded(self, message: Surveyed) -> None:
        if app_closing(self.app):
            return
        parts: list = []
        if message.found:
            parts.append(freshness_table(message.found))
        else:
            parts.append(Text("No pipeline has a freshness policy. Add freshness: {warn_after: 6h, error_after: 1d} "
                              "to a pipeline's config.yaml, or to rat.yaml for every pipeline.", style="grey50"))
        parts += [Text(sentence, style="red") for sentence in message.failed]
        self.query_one(".freshness-body", Static).update(Group(*parts))


class FreshnessScreen(ModalScreen[None]):
    """Every table with a freshness policy, the latest first (`f`); Escape closes."""

    BINDINGS = [Binding("escape", "dismiss", "Close")]

    def __init__(self, freshness: FreshnessService) -> None:
        super().__init__()
        self.freshness = freshness

    def compose(self) -> ComposeResult:
        dialog = Vertical(classes="dialog")
        dialog.styles.width = 150  # wider than a dialog: pipeline names are long (max-width 95% still holds)
        with dialog:
            yield Label(Text.assemble(("Freshness: every table, the latest first", "bold"), ("  (times in UTC)", "grey50")))
            yield FreshnessPane(self.freshness)
            yield Label(Text("Escape to close", style="grey50"))
