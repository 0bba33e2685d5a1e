"""The project as a graph, from the keyboard: runs of a selection (`NAME+`, `+NAME`, full refresh, build),
the lineage panel, the rebuild offer after a table rollback, and watch.cascade.

Mixed into the app ahead of the other mixins; its message handlers run besides theirs (Textual calls
the handler of every class in the MRO). The Workbench calls block, so they run in thread workers.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING

from textual import work

from ..core.errors import RatError
from ..core.events import RunFinished, RunQueued, RunStarted
from ..core.project.graph import ProjectGraph, zone_node
from ..core.run.runner import RunHandle
from ..core.run.selection import Selector
from .components.lineage_view import LineageView
from .components.modals import Confirm
from .components.project_tree import NodeData, ProjectTree
from .components.selection_view import SelectionProgress, SelectionView
from .messages import ActionDone, ActionFailed, CoreEvent
from .outcomes import count
from .views import RUN_MARK_STATUS
from .workers import failure_sentence

if TYPE_CHECKING:
    from ..core.commands.workbench import Workbench

Plan = Callable[[ProjectGraph], list[str]]


def ran(title: str, runs: list[dict]) -> str:
    """One sentence for a selection's outcome."""
    states: dict[str, int] = {}
    for run in runs:
        states[run["status"]] = states.get(run["status"], 0) + 1
    sentence = f"{title}: " + ", ".join(f"{n} {status}" for status, n in states.items()) + "."
    first = next((r for r in runs if r["status"] not in ("success", "skipped")), None)
    return sentence + (f" First problem: {first['pipeline']} {first['status']}: {first['error']}" if first else "")


class GraphActions:
    workbench: Workbench
    selected: NodeData | None
    selection: SelectionProgress | None = None  # the selection the progress view shows
    _cascade_lock = threading.Lock()

    # -- keys ---------------------------------------------------------------------------
    def action_run_downstream(self) -> None:
        self._run_selector("run_downstream", "{}+")

    def action_run_upstream(self) -> None:
        self._run_selector("run_upstream", "+{}")

    def action_full_refresh(self) -> None:
        self._run_selector("full_refresh", "{}+", full_refresh=True)

    def action_build(self) -> None:
        self.run_graph("build of every namespace", lambda graph: graph.order(graph.pipelines()), False, self.selected)

    def _run_selector(self, action_id: str, pattern: str, full_refresh: bool = False) -> None:
        fqn = self._pipeline(action_id)
        if fqn is not None:
            selector = pattern.format(fqn)
            title = f"{selector} (full refresh)" if full_refresh else selector
            self.run_graph(title, Selector.parse(selector).select, full_refresh, self.selected)

    def action_lineage(self) -> None:
        data = self._target("lineage")
        if data is not None:
            center = zone_node(data.namespace, data.name) if data.kind == "zone" else data.ref.fqn
            self.load_lineage(center, self.selected)

    def action_project_lineage(self) -> None:
        self.load_lineage(None, self.selected)

    # -- workers ------------------------------------------------------------------------
    @work(thread=True, group="selection")
    def run_graph(self, title: str, plan: Plan, full_refresh: bool, opened_on: NodeData | None) -> None:
        self._run_plan(title, plan, full_refresh, opened_on, show=True)

    def _run_plan(self, title: str, plan: Plan, full_refresh: bool, opened_on: NodeData | None, show: bool) -> None:
        """In a worker thread: work out the pipelines, show them (all queued), run them, say how it went."""
        wb = self.workbench
        try:
            names = plan(wb.graph())
            if not names:  # e.g. a cascade from a pipeline nothing reads
                return
            if show:
                self.call_from_thread(self.show_selection, title, names, opened_on)
            result = wb.run_pipelines(names, full_refresh)
        except RatError as exc:
            if not exc.result.get("runs"):
                self.post_message(ActionFailed(f"run {title}", exc.sentence()))
                return
            result = exc.result
        except Exception as exc:
            self.post_message(ActionFailed(f"run {title}", failure_sentence(f"run {title}", exc)))
            return
        sentence = ran(title, result["runs"])
        failed = any(r["status"] != "success" for r in result["runs"])
        self.post_message(ActionFailed(f"run {title}", sentence) if failed else ActionDone("run selection", sentence))

    @work(thread=True, exclusive=True, group="lineage")
    def load_lineage(self, center: str | None, opened_on: NodeData | None) -> None:
        try:
            lineage = self.workbench.lineage()
        except RatError as exc:  # e.g. a cyclic ref while being edited
            self.post_message(ActionFailed("lineage", exc.sentence()))
            return
        self.call_from_thread(self._show_lineage, center, opened_on, lineage)

    @cached_property
    def _cascaded(self) -> set[str]:
        return set()

    @work(thread=True, group="watch")
    def cascade(self, fqn: str, handle: RunHandle) -> None:
        """watch.cascade: once the saved pipeline's run succeeds, run what is downstream of it. Saves that
        joined an already queued run share its handle: only the first of them cascades."""
        with self._cascade_lock:
            if handle.run_id in self._cascaded:
                return
            self._cascaded.add(handle.run_id)
        if handle.wait().status != "success":
            return

        def downstream(graph: ProjectGraph) -> list[str]:
            return graph.order(n for n in graph.downstream_of(fqn) if graph.nodes[n].kind == "pipeline")

        self._run_plan(f"downstream of {fqn}", downstream, False, None, show=False)

    # -- panels -------------------------------------------------------------------------
    async def show_selection(self, title: str, names: list[str], opened_on: NodeData | None = None) -> None:
        self.selection = SelectionProgress(title, names)
        await self._replace_detail(SelectionView(self.selection, opened_on or self.selected))

    async def _show_lineage(self, center: str | None, opened_on: NodeData | None, lineage: dict) -> None:
        if opened_on != self.selected:  # the cursor moved on meanwhile
            return
        view = self._current(LineageView)
        if view is None or view.center != center:
            view = LineageView(center, opened_on)
            if not await self._replace_detail(view):
                return
            view.show(lineage)
            view.tree.focus()  # Enter jumps from here; keys still act on the project tree's cursor
            return
        view.show(lineage)

    def load_detail(self, node: NodeData):
        """A reload of the node a lineage or selection panel was opened on (a run finished, F5) keeps that
        panel (a lineage redraws its marks); a cursor move shows the node's own panel as always."""
        panel = self._current(LineageView) or self._current(SelectionView)
        if panel is not None and node == panel.opened_on:
            if isinstance(panel, LineageView):
                self.load_lineage(panel.center, node)
            return None
        return super().load_detail(node)

    # -- messages -----------------------------------------------------------------------
    def on_core_event(self, message: CoreEvent) -> None:
        event = message.event
        if self.selection is not None and self.selection.apply(event):
            view = self._current(SelectionView)
            if view is not None and view.progress is self.selection:
                view.refresh_view()
        if isinstance(event, (RunQueued, RunStarted, RunFinished)):
            lineage = self._current(LineageView)
            if lineage is not None:
                lineage.set_status(event.pipeline, RUN_MARK_STATUS.get(type(event)) or event.status, event.at)

    def on_lineage_view_jump(self, message: LineageView.Jump) -> None:
        tree = self.query_one(ProjectTree)
        if tree.reveal(message.name):
            tree.focus()
        else:
            self.notify(f"{message.name} is not in the project tree.", severity="warning")

    def on_action_done(self, message: ActionDone) -> None:
        """After a table rollback: offer to rebuild the tables built from the data it removed."""
        stale = (message.result or {}).get("stale_downstream") if message.action == "rollback table" else None
        if not stale:
            return
        question = f"Rebuild {count(len(stale), 'stale table', 'stale tables')}?"
        detail = ("Built from data the rollback removed:\n" + "\n".join(f"  {name}" for name in stale)
                  + "\n\nThey run in dependency order (a failure skips what reads it); the rolled-back table "
                    "itself is not re-run.")
        self.push_screen(Confirm(question, detail), lambda ok: ok and self.run_graph(
            f"rebuild of {count(len(stale), 'stale table', 'stale tables')}", lambda graph: graph.order(stale), False,
            self.selected))
