"""Keys on what is shown: the pipeline panel's tabs, the SQL console (with a name to insert)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import DataTable

from ...core.commands.console_text import sql_name
from ..components.console import ConsolePanel
from ..components.pipeline_view import PipelineView

if TYPE_CHECKING:
    from ..app import RatApp


class ViewKeys:
    def __init__(self, app: RatApp) -> None:
        self.app = app

    def switch_tab(self, step: int) -> None:
        """Tabs switch from anywhere ([ and ]), not only with the tab bar focused."""
        app = self.app
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
            if name is None and (data := self.app.target("console_insert")) is not None and data.ref is not None:
                name = sql_name(data.ref.namespace, data.ref.layer, data.ref.name)
        if not insert or name is not None:
            self.app.query_one(ConsolePanel).open(name)

    def _preview_column(self) -> str | None:
        grid = self.app.focused
        if isinstance(grid, DataTable) and grid.id == "snapshot-preview" and grid.ordered_columns:
            return sql_name(str(grid.ordered_columns[grid.cursor_column].label))
        return None
