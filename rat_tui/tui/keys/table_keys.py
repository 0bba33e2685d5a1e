"""Keys on a table under the cursor: roll back to the selected history entry (a state main had: a run's
end, a compaction; then offer to rebuild what it left stale), diff a whole run (main before → after)."""
from __future__ import annotations

from functools import partial

from ..components.modals import Confirm
from ..components.table_view import TableView
from ..host import AppHost
from .base import KeyGroup
from .graph_keys import GraphKeys


class TableKeys(KeyGroup):
    def __init__(self, app: AppHost, graph: GraphKeys) -> None:
        super().__init__(app)
        self.graph = graph


    def _view(self, action_id: str) -> TableView | None:
        data = self.target(action_id)
        view = self.app.detail.current(TableView)
        if data is None or view is None or data.ref is None or view.fqn != data.ref.fqn:
            return None
        return view

    def rollback(self) -> None:
        app = self.app
        view = self._view("rollback_table")
        entry = view.selected_entry() if view is not None else None
        if view is None or entry is None:
            return
        fqn, snapshot = view.fqn, entry.snapshot_id
        after = f" (main after run {entry.run_id})" if entry.kind == "run" else ""
        app.push_screen(
            Confirm(f"Point main of {fqn} at snapshot {snapshot}{after}?",
                    "Later runs stay in history until purged, so this can be undone."),
            lambda ok: ok and app.jobs.run("rollback table", partial(app.workbench.tables.rollback_table, fqn, snapshot),
                                           f"{fqn}: main is now snapshot {snapshot}.", reload=True,
                                           then=lambda result: self.graph.offer_rebuild(result.stale_downstream)))

    def diff(self) -> None:
        view = self._view("diff")
        entry = view.selected_entry() if view is not None else None
        if view is None or entry is None:
            return
        if entry.kind == "create":
            self.app.notify("d diffs a run with main before it; this entry is the table's creation (no rows).",
                            severity="warning")
            return
        view.diff(entry)
