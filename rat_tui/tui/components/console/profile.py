"""The column profile: counts from Spark over the full result, top values, and for a numeric
column a small histogram (textual-plotext)."""
from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static
from textual_plotext import PlotextPlot


def _value(value) -> str:
    return "NULL" if value is None else str(value)


def profile_table(profile) -> Table:
    table = Table(box=None, show_header=False, padding=(0, 2, 0, 0))
    table.add_column(style="bold")
    table.add_column()
    for label, value in (("type", profile.type), ("rows", f"{profile.rows:,}"), ("nulls", f"{profile.nulls:,}"),
                         ("distinct", f"{profile.distinct:,}"), ("min", _value(profile.min)),
                         ("max", _value(profile.max))):
        table.add_row(label, value)
    top = Table(title="top values", title_justify="left", box=None, padding=(0, 2, 0, 0))
    top.add_column("value")
    top.add_column("count", justify="right")
    for value, count in profile.top:
        top.add_row(_value(value), f"{count:,}")
    outer = Table.grid(padding=(0, 4))
    outer.add_row(table, top)
    return outer


class ProfileScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "dismiss", "Close")]
    DEFAULT_CSS = """
    ProfileScreen #profile { width: 90; height: auto; max-height: 90%; }
    ProfileScreen PlotextPlot { height: 12; }
    """

    def __init__(self, profile) -> None:
        super().__init__()
        self.profile = profile

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="profile") as box:
            box.border_title = f"Profile of {self.profile.column} (whole result, computed by Spark)"
            yield Static(profile_table(self.profile), id="profile-stats")
            if self.profile.histogram:
                yield PlotextPlot(id="profile-histogram")

    def on_mount(self) -> None:
        if not self.profile.histogram:
            return
        plt = self.query_one(PlotextPlot).plt
        labels = [f"{low:g}" for low, _, _ in self.profile.histogram]
        plt.bar(labels, [n for _, _, n in self.profile.histogram])
        plt.title("histogram (10 equal bins, NULLs left out)")
