"""The SQL console panel (`s`): buffers as tabs over the editor, the results below.

It takes the detail panel's place while open (the tree stays, so `i` inserts a table's name).
Every call into Spark or onto disk runs in a thread worker that posts a message (`messages.py`);
the panel only puts answers on screen.
"""
from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from textual import on, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Tab, Tabs

from ....core.commands.completion import Completions
from ....core.failures import failure_sentence
from ....core.commands.console import QueryCancelled
from ....core.store.console_store import ConsoleStore
from ....core.text import count
from ...heap import freeze_long_lived
from ...keymap import CONSOLE_KEYMAP, console_key_label, footer_keys
from ..modals import AskText
from ..project_tree import ProjectTree
from .editor import SqlEditor
from .history import HistoryScreen
from .messages import (
    BuffersLoaded,
    ExportProgress,
    HistoryLoaded,
    ProfileDone,
    SparkWaiting,
    StatementDone,
    StatementEnded,
)
from .profile import ProfileScreen
from .results import GridAction, ResultsView

if TYPE_CHECKING:
    from ....core.compose import Workbench

SAVE_DELAY = 0.4  # seconds of quiet typing before the buffers are written


def _failure(exc: Exception) -> str:
    return failure_sentence("console", exc)


class ConsolePanel(Vertical):
    BINDINGS = [Binding(k.key, k.action, k.description, show=k.show, id=k.id, key_display=footer_keys(k.key),
                        priority=k.id in ("console_run", "console_close", "console_cancel"))  # the editor would eat them
                for k in CONSOLE_KEYMAP if k.needs != "result"]
    DEFAULT_CSS = """
    ConsolePanel { display: none; width: 1fr; border: round $primary-darken-2; border-title-color: $text; }
    ConsolePanel.shown { display: block; }
    ConsolePanel:focus-within { border: round $accent; }
    ConsolePanel Tabs { height: 2; }
    ConsolePanel SqlEditor { height: 45%; min-height: 5; }
    """

    def __init__(self, workbench: Workbench) -> None:
        super().__init__(id="console")
        self.workbench = workbench
        self.store = ConsoleStore(workbench.project.state_dir)
        self.texts: list[str] = [""]
        self.tab_ids: list[str] = []
        self._next_tab = 0
        self.running: str | None = None  # job group of the statement or export under way
        self.result = None  # the ConsoleResult on screen: export and profile use its statement
        self._results_seen = False
        self.loaded = False
        self._save_timer = None

    def compose(self) -> ComposeResult:
        self.border_title = "SQL console"
        yield Tabs(id="console-tabs")
        yield SqlEditor(id="console-editor")
        yield ResultsView(id="console-results-view")

    def on_mount(self) -> None:
        self.load()

    @property
    def editor(self) -> SqlEditor:
        return self.query_one(SqlEditor)

    @property
    def results(self) -> ResultsView:
        return self.query_one(ResultsView)

    # -- open and close ---------------------------------------------------------------
    def open(self, insert: str | None = None) -> None:
        self.add_class("shown")
        self.app.query_one("#detail").display = False
        if insert:
            self.editor.insert_name(insert)
        self.editor.focus()
        self.refresh_catalog()

    def close(self) -> None:
        self.remove_class("shown")
        self.app.query_one("#detail").display = True
        self.app.query_one(ProjectTree).focus()
        self.app.show_cursor_node()  # not what the right side showed before the console (a finished rebuild)

    def action_escape(self) -> None:
        """Esc: closes the completion list, else cancels what runs, else closes the console."""
        if self.editor.completion_open:
            self.editor.close_completion()
        elif self.running is not None:
            self.action_cancel()
        else:
            self.close()

    def action_cancel(self) -> None:
        """Ctrl+C: cancels what runs; with nothing running the key goes on to the editor or grid (copy)."""
        if self.running is None:
            raise SkipAction()
        self.workbench.console.cancel_console(self.running)
        self.results.say("Cancelling…")

    # -- buffers --------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="console-load")
    def load(self) -> None:
        texts, active = self.store.load_buffers()
        self.post_message(BuffersLoaded(texts, active, self.workbench.console.completion_catalog()))

    @work(thread=True, exclusive=True, group="console-catalog")
    def refresh_catalog(self) -> None:
        self.editor.completions = Completions(self.workbench.console.completion_catalog())

    async def on_buffers_loaded(self, message: BuffersLoaded) -> None:
        self.editor.completions = Completions(message.catalog)
        if self.loaded:
            return
        self.loaded = True
        freeze_long_lived()  # the catalog loaded PyIceberg
        typed = self.editor.text  # a name inserted before the file was read is kept
        self.texts = message.texts
        if typed.strip():
            self.texts[message.active] = typed + self.texts[message.active]
        for _ in self.texts:
            await self._add_tab()
        self._show(message.active)

    async def _add_tab(self) -> None:
        self._next_tab += 1
        tab_id = f"buffer-{self._next_tab}"
        self.tab_ids.append(tab_id)
        await self.query_one(Tabs).add_tab(Tab(f"Query {self._next_tab}", id=tab_id))

    @property
    def active(self) -> int:
        tabs = self.query_one(Tabs)
        return self.tab_ids.index(tabs.active) if tabs.active in self.tab_ids else 0

    def _show(self, index: int) -> None:
        self.query_one(Tabs).active = self.tab_ids[index]

    @on(Tabs.TabActivated)
    def tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        index = self.active
        if self.editor.text != self.texts[index]:
            self.editor.text = self.texts[index]
        self._schedule_save()

    @on(SqlEditor.Edited)
    def edited(self) -> None:
        if self.tab_ids:
            self.texts[self.active] = self.editor.text
        self._schedule_save()

    def _schedule_save(self) -> None:
        if self._save_timer is not None:
            self._save_timer.stop()
        self._save_timer = self.set_timer(SAVE_DELAY, lambda: self.save(list(self.texts), self.active))

    @work(thread=True, exclusive=True, group="console-save")
    def save(self, texts: list[str], active: int) -> None:
        self.store.save_buffers(texts, active)

    async def action_new_buffer(self, text: str = "") -> None:
        self.texts.append(text)
        await self._add_tab()
        self._show(len(self.texts) - 1)
        self.editor.focus()

    async def action_close_buffer(self) -> None:
        index = self.active
        if len(self.texts) == 1:
            self.editor.text = ""
            return
        self.texts.pop(index)
        tab_id = self.tab_ids.pop(index)
        await self.query_one(Tabs).remove_tab(tab_id)
        self._show(min(index, len(self.texts) - 1))

    def action_next_buffer(self) -> None:
        self._show((self.active + 1) % len(self.tab_ids))

    def action_focus_results(self) -> None:
        grid = self.results.grid
        if grid is not None and not grid.has_focus:
            grid.focus()
        else:
            self.editor.focus()

    # -- running --------------------------------------------------------------------
    def _start(self, what: str) -> str | None:
        if self.running is not None:
            self.app.notify(f"A statement is still running; Esc cancels it before {what}.", severity="warning")
            return None
        self.running = f"console-{secrets.token_hex(4)}"
        return self.running

    async def action_run_statement(self) -> None:
        if self.editor.completion_open:  # it stayed open over the result, taking the next keys
            self.editor.close_completion()
        sql = self.editor.current_statement()
        if not sql:
            self.results.say(f"Nothing to run: type a statement ({console_key_label('console_run')} runs the one "
                             "under the cursor).")
            return
        group = self._start("running another")
        if group is not None:
            # The last result goes: under "Running…" or the new statement's error it would pass for its answer.
            self.result = None
            await self.results.clear()
            self.results.say("Running… (Esc or Ctrl+C cancels)")
            self.run_statement(sql, group, max(1, self.workbench.project.settings.console_max_rows))

    @work(thread=True, group="console-run")
    def run_statement(self, sql: str, group: str, max_rows: int) -> None:
        try:
            result = self.workbench.console.console_query(sql, max_rows, group, on_waiting=lambda: self.post_message(
                SparkWaiting()))
        except QueryCancelled:
            self.post_message(StatementEnded(group, "Cancelled.", cancelled=True))
            return
        except Exception as exc:
            self.store.add_history(sql, False)
            self.post_message(StatementEnded(group, _failure(exc)))
            return
        self.store.add_history(sql, True, result.table.num_rows, result.elapsed_ms)
        self.post_message(StatementDone(group, result))

    def on_spark_waiting(self) -> None:
        self.results.say("Spark is starting; the statement runs as soon as it is ready (Esc cancels).")

    async def on_statement_done(self, message: StatementDone) -> None:
        if message.group == self.running:
            self.running = None
        self.result = message.result
        await self.results.show(message.result)
        if not self._results_seen:
            self._results_seen = True
            freeze_long_lived()  # the first result loaded pyarrow's and pandas' modules

    def on_statement_ended(self, message: StatementEnded) -> None:
        if message.group == self.running:
            self.running = None
        self.results.say(message.sentence, error=not (message.ok or message.cancelled))

    # -- history --------------------------------------------------------------------
    def action_history(self) -> None:
        self.load_history()

    @work(thread=True, exclusive=True, group="console-history")
    def load_history(self) -> None:
        self.post_message(HistoryLoaded(self.store.history()))

    def on_history_loaded(self, message: HistoryLoaded) -> None:
        async def chosen(sql: str | None) -> None:
            if not sql:
                return
            if self.editor.text.strip():
                await self.action_new_buffer(sql)
            else:
                self.editor.text = sql
            self.editor.focus()

        self.app.push_screen(HistoryScreen(message.entries), chosen)

    # -- export ---------------------------------------------------------------------
    def action_export(self) -> None:
        sql = self.result.sql if self.result is not None else self.editor.current_statement()
        if not sql:
            self.results.say("Nothing to export: run a statement first.")
            return

        def chosen(path: str | None) -> None:
            if path and (group := self._start("exporting")) is not None:
                self.results.say(f"Exporting to {path}…")
                self.export(path, sql, group)

        self.app.push_screen(AskText("Export the full result to (.csv, .parquet or .json; relative to the project)",
                                     "exports/result.csv", value="exports/result.csv"), chosen)

    @work(thread=True, group="console-export")
    def export(self, path: str, sql: str, group: str) -> None:
        def progress(phase: str, done: int, total: int) -> None:
            self.post_message(ExportProgress(phase, done, total))

        result = self._ended(group, self.workbench.console.export, path, sql, progress, group)
        if result is not None:
            self.post_message(StatementEnded(group, f"Exported {count(result.rows, 'row')} to {result.path} "
                                                    f"({result.format}).", ok=True))

    def _ended(self, group: str, call, *args, **kwargs):
        """The call's answer; None after posting how it ended (cancelled, or the failure's sentence)."""
        try:
            return call(*args, **kwargs)
        except QueryCancelled:
            self.post_message(StatementEnded(group, "Cancelled.", cancelled=True))
        except Exception as exc:
            self.post_message(StatementEnded(group, _failure(exc)))
        return None

    def on_export_progress(self, message: ExportProgress) -> None:
        if self.running is not None:
            share = f" {message.done}/{message.total} tasks" if message.total > 1 else ""
            self.results.say(f"Exporting: {message.phase}{share}… (Esc cancels)")

    # -- result keys ----------------------------------------------------------------
    @on(GridAction)
    def grid_action(self, message: GridAction) -> None:
        if message.action == "profile":
            self._profile(message.grid.cursor_column)
            return
        text = self.results.copy_text(message.action)
        if text is not None:
            self.app.copy_to_clipboard(text)
            self.app.notify(f"Copied {'the row' if message.action == 'copy_row' else 'the cell'}.", timeout=2)

    def _profile(self, column: int) -> None:
        if self.result is None or not self.result.columns:
            return
        group = self._start("profiling")
        if group is not None:
            self.results.say(f"Profiling {self.result.columns[column]} over the whole result… (Esc cancels)")
            self.profile(self.result.sql, column, group)

    @work(thread=True, group="console-profile")
    def profile(self, sql: str, column: int, group: str) -> None:
        profile = self._ended(group, self.workbench.console.profile_column, sql, column, group)
        if profile is not None:
            self.post_message(StatementEnded(group, f"Profiled {profile.column}.", ok=True))
            self.post_message(ProfileDone(profile))

    def on_profile_done(self, message: ProfileDone) -> None:
        self.app.push_screen(ProfileScreen(message.profile))

    def on_unmount(self) -> None:
        # The last keystrokes before quitting: one small write at shutdown, when nothing is drawn anyway.
        if self.loaded:
            self.store.save_buffers(self.texts, self._active_at_exit())

    def _active_at_exit(self) -> int:
        try:
            return self.active
        except Exception:  # the tabs are already gone
            return 0
