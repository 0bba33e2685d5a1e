"""The help screen: every key of the current keymap, and what it does."""
from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..keymap import KeyAction, key_label

EXTRA_KEYS = [
    ("Enter", "select a tree node / preview the selected landing file"),
    ("Tab / Shift+Tab", "move focus between panels"),
    ("Ctrl+P", "command palette: every action by name"),
    ("Escape", "close a dialog"),
    ("* (tree)", "the working copy differs from the published version"),
    ("⇣ / ⇣! (tree)", "a newer version is in the bucket (pull it) / edited here and in the bucket"),
]


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def __init__(self, keymap: list[KeyAction]) -> None:
        super().__init__()
        self.keymap = keymap

    def compose(self) -> ComposeResult:
        table = Table(title="rat-tui keys (remap them under keymap: in rat.yaml, by id)", box=None, header_style="bold")
        for column in ("key", "action", "id"):
            table.add_column(column)
        for k in self.keymap:
            table.add_row(key_label(k.key), k.description, k.id)
        for key, what in EXTRA_KEYS:
            table.add_row(key, what, "")
        with VerticalScroll(classes="dialog"):
            yield Static(table)
