"""Modal screens: ask for a message, confirm an action, show a purge plan."""
from __future__ import annotations

import os
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Button, Input, Label, Static, Switch

from ...core.commands.upkeep_results import PurgeReport
from ...core.project.settings import ZoneSettings, zone_settings_problem
from ...core.text import count


class AskText(ModalScreen[str | None]):
    """One line of text (publish message, version number); Enter accepts, Escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, prompt: str, placeholder: str = "", value: str = "", suggester: Suggester | None = None) -> None:
        super().__init__()
        self.prompt, self.placeholder, self.value, self.suggester = prompt, placeholder, value, suggester

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.prompt)
            yield Input(value=self.value, placeholder=self.placeholder, id="ask-input", suggester=self.suggester)
            yield Label(Text("Enter to accept · Escape to cancel", style="grey50"))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class PathSuggester(Suggester):
    """Completes the last path typed; → accepts the suggestion."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        head, _, last = value.rpartition(" ")
        if not last:
            return None
        typed = Path(last).expanduser()
        folder, prefix = (typed, "") if last.endswith("/") else (typed.parent, typed.name)
        # The first name in order, and a stat for that one only: this runs on the UI thread at each key, and a
        # folder of 8,000 entries (a landing folder, /tmp) took 0.4 s a key when every entry was stat'ed.
        try:
            with os.scandir(folder) as entries:
                first = min((e for e in entries if e.name.startswith(prefix)), key=lambda e: e.name, default=None)
            if first is None:
                return None
            name = first.name + ("/" if first.is_dir() else "")
        except OSError:
            return None
        completed = last + name[len(prefix):]
        return f"{head} {completed}" if head else completed


class Confirm(ModalScreen[bool]):
    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("n,escape", "answer(False)", "No")]

    def __init__(self, question: str, detail: str = "") -> None:
        super().__init__()
        self.question, self.detail = question, detail

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text(self.question, style="bold"))  # a Label would cut a long question at the edge
            if self.detail:
                yield VerticalScroll(Static(self.detail), classes="dialog-detail")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Yes (y)", id="yes", variant="warning")
                yield Button("No (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


class NumberInput(Input):
    """A number field that says why a typed letter did not appear (Textual's number Input drops it silently)."""

    class Refused(Message):
        pass

    def restricted(self) -> None:
        self.post_message(self.Refused())


class ZoneSettingsForm(ModalScreen[dict | None]):
    """Edit a landing zone's retention settings (saved into rat.yaml, comments kept)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+s", "save", "Save")]

    def __init__(self, title: str, settings: ZoneSettings) -> None:
        super().__init__()
        self.title_text, self.settings = title, settings

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(self.title_text, style="bold"))
            yield Label("Keep processed files for (days)")
            yield NumberInput(value=f"{self.settings.processed_max_age_days:g}", type="number", id="max-age")
            yield Label("", id="max-age-error", classes="field-error")
            with Horizontal(classes="dialog-buttons"):
                yield Label("Purge them automatically (at start and daily)  ")
                yield Switch(value=self.settings.auto_purge, id="auto-purge")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save (ctrl+s)", id="save", variant="primary")
                yield Button("Cancel (esc)", id="cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "save":
            self.action_save()
        else:
            self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_save()

    def action_save(self) -> None:
        """Closes with the values only when the core would take them; else the sentence goes under the field
        and what was typed stays."""
        days = self.query_one("#max-age", Input).value.strip()
        try:
            number = float(days)
            values = {"processed_max_age_days": int(number) if number.is_integer() else number,  # 30, not 30.0
                      "auto_purge": self.query_one("#auto-purge", Switch).value}
            problem = zone_settings_problem(values)
        except ValueError:
            problem = f"'{days}' is not a number of days"
        self._say(problem)
        if problem:
            self.query_one("#max-age", Input).focus()
        else:  # only what changed: an unchanged dialog writes nothing into rat.yaml
            self.dismiss({key: value for key, value in values.items() if value != getattr(self.settings, key)})

    @on(NumberInput.Refused)
    def _refused(self) -> None:
        self._say("Only a number of days goes here (digits and a point).")

    def _say(self, problem: str | None) -> None:
        error = self.query_one("#max-age-error", Label)
        error.update(Text(problem or ""))
        error.display = bool(problem)

    def action_cancel(self) -> None:
        self.dismiss(None)


def purge_plan_text(result: PurgeReport) -> str:
    """The dry-run list, grouped, with sizes; only the kinds that have something to purge."""
    lines = []
    labels = {
        "processed_files": "processed landing files", "bucket_processed_files": "processed landing files in the bucket",
        "snapshots_expired": "snapshots to expire",
        "orphan_files": "orphan files", "orphan_branches": "orphan run branches", "stuck_runs": "stuck runs",
        "file_versions": "old file versions",
    }
    listed = result.listed()
    for key, label in labels.items():
        items = listed.get(key, [])
        if not items:
            continue
        lines.append(f"{label}: {len(items)}")
        for item in items[:20]:
            where = f"{item.table} " if item.table is not None else ""
            lines.append(f"    {where}{item.name}" + (f"  ({count(item.bytes, 'byte')})" if item.bytes is not None else ""))
        if len(items) > 20:
            lines.append(f"    … and {len(items) - 20} more")
    return "\n".join(lines)
