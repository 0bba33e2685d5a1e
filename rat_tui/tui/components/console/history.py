"""The query history (F8): the newest first, filtered as you type; Enter puts one in the editor."""
from __future__ import annotations

import time

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from ....core.text import count

SHOWN = 200


def _line(entry) -> str:
    sql = " ".join(entry.sql.split())
    when = time.strftime("%m-%d %H:%M", time.localtime(entry.at))
    outcome = count(entry.rows, "row") if entry.ok and entry.rows is not None else "ok" if entry.ok else "failed"
    return f"{when}  {outcome:>12}  {sql[:120]}"


class HistoryScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Close")]
    DEFAULT_CSS = """
    HistoryScreen #history { width: 120; max-width: 95%; height: 80%; }
    HistoryScreen OptionList { height: 1fr; }
    """

    def __init__(self, entries: list) -> None:
        super().__init__()
        self.entries = entries

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="history") as box:
            box.border_title = f"Query history ({len(self.entries)}): type to search, Enter to use, Esc to close"
            yield Input(placeholder="search", id="history-search")
            yield OptionList(id="history-list")

    def on_mount(self) -> None:
        self._fill("")

    def _fill(self, search: str) -> None:
        words = search.lower().split()
        found = [e for e in self.entries if all(w in e.sql.lower() for w in words)][:SHOWN]
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(_line(e), id=str(i)) for i, e in enumerate(found)])
        self.shown = found
        if found:
            options.highlighted = 0

    @on(Input.Changed)
    def search(self, event: Input.Changed) -> None:
        self._fill(event.value)

    @on(Input.Submitted)
    def take_highlighted(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is not None and self.shown:
            self.dismiss(self.shown[options.highlighted].sql)

    @on(OptionList.OptionSelected)
    def take(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.shown[int(event.option.id)].sql)

    def on_key(self, event) -> None:
        """Up and down move in the list while typing in the search field."""
        if event.key in ("up", "down"):
            options = self.query_one(OptionList)
            options.action_cursor_up() if event.key == "up" else options.action_cursor_down()
            event.stop()
