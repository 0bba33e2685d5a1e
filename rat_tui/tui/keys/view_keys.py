"""Keys on what is shown: the pipeline panel's tabs, the SQL console (with a name to insert), the panes and
screens the app opens (log, automation, freshness, intervals, help), focus, watching and refresh."""
from __future__ import annotations


from textual.widgets import DataTable, TabbedContent

from ...core.commands.console_text import sql_name
from ..components.automation_pane import AutomationScreen
from ..components.freshness_view import FreshnessScreen
from ..components.intervals_pane import IntervalsScreen
from ..components.console import ConsolePanel
from ..components.help_screen import HelpScreen
from ..components.log_panel import LogPanel
from ..components.pipeline_view import PipelineView
from ..components.project_tree import ProjectTree
from .base import KeyGroup


class ViewKeys(KeyGroup):
    def switch_tab(self, step: int) -> None:
        """Tabs switch from anywhere ([ and ]), not only with the tab bar focused."""
        app = self.app
        cursor = app.query_one(ProjectTree).cursor_node
        if app.detail.replacing or (cursor is not None and cursor.data is not None and cursor.data != app.selected):
            # the arrow key sent with it moved the cursor: the tabs meant are those of the view to come
            app.detail.after_shown(lambda view: view.step_tab(step) if isinstance(view, PipelineView) else None)
            return
        view = app.detail.current(PipelineView)
        if view is None:
            shown = app.selected.describe() if app.selected is not None else "nothing"
            app.notify(f"Only a pipeline's panel has tabs; the right side shows {shown}.", severity="warning")
            return
        view.step_tab(step)

    def console(self, insert: bool) -> None:
        """s opens the SQL console; i also inserts, at the editor's cursor, the name of the column under
        the cursor of a focused table preview, else the name of the table under the tree's cursor."""
        name = None
        if insert:
            name = self._preview_column()
            if name is None and (data := self.target("console_insert")) is not None and data.ref is not None:
                name = sql_name(data.ref.namespace, data.ref.layer, data.ref.name)
        if not insert or name is not None:
            self.app.query_one(ConsolePanel).open(name)

    def _preview_column(self) -> str | None:
        grid = self.app.focused
        if isinstance(grid, DataTable) and grid.id == "snapshot-preview" and grid.ordered_columns:
            return sql_name(str(grid.ordered_columns[grid.cursor_column].label))
        return None

    def toggle_watch(self) -> None:
        watching = self.app.workbench.watching
        on = watching.set(not watching.running)
        self.app.notify(f"Watch {'on' if on else 'off'}")

    def toggle_log(self) -> None:
        self.app.query_one(LogPanel).toggle_class("shown")

    def automation(self) -> None:
        wb = self.app.workbench
        self.app.push_screen(AutomationScreen(wb.automation, wb.project.state_dir))

    def freshness(self) -> None:
        self.app.push_screen(FreshnessScreen(self.app.workbench.freshness))

    def intervals(self) -> None:
        self.app.push_screen(IntervalsScreen(self.app.workbench))

    def help(self) -> None:
        self.app.push_screen(HelpScreen(self.app.keymap))

    def focus_tree(self) -> None:
        self.app.query_one(ProjectTree).focus()

    def focus_detail(self) -> None:
        """The first focusable part of the tab shown (its table, say, so the tab's own keys work), else of the
        detail panel (the container itself takes no focus); the tab bar came first and kept a tab's keys away."""
        detail = self.app.detail
        shown = [tabs.active_pane for tabs in detail.query(TabbedContent) if tabs.active_pane is not None]
        parts = [w for pane in shown for w in pane.query("*")] + list(detail.query("*"))
        target = next((w for w in parts if w.focusable), None)
        if target is not None:
            target.focus()
        else:
            self.app.notify("The detail panel has nothing to focus.", severity="warning")
