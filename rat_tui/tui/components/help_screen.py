"""The help screen: every key of the current keymap, what the tree's marks mean, how tabs move."""
from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..keymap import CONSOLE_KEYMAP, GROUPS, INTERVALS_KEYMAP, KeyAction, key_label

EXTRA_KEYS = [
    ("Enter", "select a tree node / preview the selected landing file / in a lineage: show that node in the tree"),
    ("Tab / Shift+Tab", "move focus between panels"),
    ("Tab to the tab bar, then ← / →", "switch detail tabs there ([ / ] work from anywhere; ← / → in a tab do not)"),
    ("Ctrl+P", "command palette: every action by name"),
    ("After L / G", "the lineage panel has the focus: ↑ / ↓ move in it, Enter shows that node in the tree; "
                    "Esc or F1 returns to the tree"),
    ("Escape", "close a dialog"),
]

EDITOR_KEYS = ("Ctrl+F find, F3 find next, Ctrl+G go to line, Ctrl+_ comment, Ctrl+S / Ctrl+O save / open a .sql "
               "file, Ctrl+Z / Ctrl+Y undo / redo")

# What the marks in the tree mean (the same glyphs and colours as ProjectTree draws).
LEGEND = [
    (("○", "grey50"), "never run (cyan: queued)"),
    (("◐", "cyan"), "running"),
    (("●", "green"), "last run succeeded (red: failed, yellow: cancelled, grey: skipped or rejected)"),
    (("◌", "green"), "last run succeeded with nothing new in its landing zones: it wrote nothing"),
    (("◉", "green"), "last run succeeded with notes on what it did to the data (its Run tab lists them)"),
    (("◆", "magenta"), "a run awaits review: a approves it, x rejects it (its diff is in the Run tab)"),
    (("*", "yellow"), "the working copy differs from the published version"),
    (("◷", "yellow"), "the table is past its freshness warn_after (red: error_after); f lists the latest first"),
    (("⇣", "cyan"), "a newer version is in the bucket (g pulls it); ⇣! it was also edited here"),
    (("@123456", "grey50"), "after a table: the last 6 digits of its current snapshot (empty: no snapshot)"),
    (("3 files", "grey50"), "after a zone: its active landing files"),
]


class HelpScreen(ModalScreen[None]):
    """Toasts would be drawn over the keys: those already up are hidden, new ones wait until it closes."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]
    DEFAULT_CSS = "HelpScreen Toast { visibility: hidden; }"

    def __init__(self, keymap: list[KeyAction]) -> None:
        super().__init__()
        self.keymap = keymap
        self.held: list[tuple[str, dict]] | None = []  # None once closing: the app shows them itself again

    def hold(self, message: str, options: dict) -> bool:
        """Keep a notification for when the screen closes; False when it is closing already."""
        if self.held is not None:
            self.held.append((message, options))
        return self.held is not None

    def on_unmount(self) -> None:
        held, self.held = self.held or [], None
        for message, options in held:
            self.app.notify(message, **options)

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="help"):
            yield Static(Group(self._legend(), self._keys(), Text(""), self._more()))

    @staticmethod
    def _legend() -> Text:
        text = Text("Marks in the tree\n", style="italic")
        for (mark, style), meaning in LEGEND:
            text.append_text(Text.assemble("  ", (mark, style), "  ", meaning, "\n"))
        return text

    def _keys(self) -> Table:
        table = Table(title="Keys act on the tree's cursor (remap them by id under keymap: in rat.yaml)",
                      title_justify="left", box=None, show_header=False, padding=(0, 1, 0, 0))
        for style in ("bold", "", "grey50", "bold", "", "grey50"):
            table.add_column(style=style)
        tabs = {k.id: key_label(k.key) for k in self.keymap if k.id in ("prev_tab", "next_tab")}
        rows = [(key_label(k.key), k.description, k.id) for group in GROUPS for k in self.keymap
                if k.group == group and k.id not in tabs]
        rows.append((f"{tabs['prev_tab']} / {tabs['next_tab']}", "previous / next tab", "prev_tab, next_tab"))
        half = (len(rows) + 1) // 2
        for left, right in zip(rows[:half], rows[half:] + [("", "", "")]):
            table.add_row(*left, *right)
        return table

    @staticmethod
    def _more() -> Table:
        table = Table(box=None, show_header=False, padding=(0, 2, 0, 0))
        table.add_column(style="bold")
        table.add_column()
        for key, what in EXTRA_KEYS:
            table.add_row(key, what)
        table.add_row("In the SQL console", ", ".join(f"{key_label(k.key)} {k.description.lower()}" for k in CONSOLE_KEYMAP))
        table.add_row("In the Intervals tab", ", ".join(f"{key_label(k.key)} {k.palette.lower()}" for k in INTERVALS_KEYMAP))
        table.add_row("In its editor", EDITOR_KEYS)
        return table
