"""The project as a graph, from the keyboard: runs of a selection (`NAME+`, `+NAME`, full refresh, build)
with their progress panel, the lineage panels, and the rebuild offer after a table rollback.
The Workbench calls block, so they run in thread workers."""
from __future__ import annotations

from functools import partial

from ...core.commands.run_results import SelectionResult
from ...core.failures import failure_sentence
from ...core.errors import RatError
from ...core.project.graph import zone_node
from ...core.store.state import RunRecord
from ..components.lineage_view import LineageView
from ..components.modals import Confirm
from ..components.project_tree import NodeData
from ..messages import ActionDone, ActionFailed
from ..outcomes import count, ran
from .base import KeyGroup



class GraphKeys(KeyGroup):
    def run_selector(self, action_id: str, pattern: str, full_refresh: bool = False, review: bool = False) -> None:
        """`review`: every run of the selection stops on its branch, later ones reading their upstream's."""
        fqn = self.target_pipeline(action_id)
        if fqn is not None:
            selector = pattern.format(fqn)
            title = f"{selector} (full refresh)" if full_refresh else f"{selector} (for review)" if review else selector
            self.run_graph(title, full_refresh, selector=selector, review=review)

    def build(self) -> None:
        self.run_graph("build of every namespace", False)

    def run_graph(self, title: str, full_refresh: bool, selector: str | None = None, names: list[str] | None = None,
                  rebuild: bool = False, review: bool = False) -> None:
        """The runs service plans the pipelines (`runs.plan`): of `selector`, exactly `names`, or (neither) all."""
        self.app.run_worker(partial(self._run_plan, title, selector, names, full_refresh, self.app.selected, rebuild,
                                    review), thread=True, group="selection")

    def _run_plan(self, title: str, selector: str | None, names: list[str] | None, full_refresh: bool,
                  opened_on: NodeData | None, rebuild: bool = False, review: bool = False) -> None:
        """In a worker thread: work out the pipelines, show them (all queued), run them, say how it went."""
        app, wb = self.app, self.app.workbench
        try:
            names = wb.runs.plan(selector, names)
            if not names:
                return
            app.call_from_thread(app.show_selection, title, names, opened_on)
            result = wb.tables.rebuild_stale(names) if rebuild else wb.runs.run_pipelines(names, full_refresh, review=review)
        except RatError as exc:
            if not isinstance(exc.result, SelectionResult) or not exc.result.runs:
                app.post_message(ActionFailed(f"run {title}", exc.sentence()))
                return
            result = exc.result
        except Exception as exc:
            app.post_message(ActionFailed(f"run {title}", failure_sentence(f"run {title}", exc)))
            return
        app.post_message(ran_message(title, result.runs))

    def lineage(self) -> None:
        data = self.target("lineage")
        if data is not None:
            self.show_lineage(zone_node(data.namespace, data.name) if data.kind == "zone" else data.ref.fqn)

    def show_lineage(self, center: str | None) -> None:
        app = self.app
        view = app.detail.current(LineageView)
        if view is not None and view.center == center:
            view.load()
        else:
            opened_on = app.selected
            app.detail.show(lambda: LineageView(app.workbench, center, opened_on))

    def offer_rebuild(self, stale: list[str]) -> None:
        """After a table rollback: offer to rebuild the tables built from the data it removed."""
        if not stale:
            return
        question = f"Rebuild {count(len(stale), 'stale table', 'stale tables')}?"
        detail = ("Built from data the rollback removed:\n" + "\n".join(f"  {name}" for name in stale)
                  + "\n\nEach goes back to its last snapshot built from data still there (or is fully refreshed), "
                    "then runs, in dependency order (a failure skips what reads it); the rolled-back table "
                    "itself is not re-run.")
        self.app.push_screen(Confirm(question, detail), lambda ok: ok and self.run_graph(
            f"rebuild of {count(len(stale), 'stale table', 'stale tables')}", False, names=stale, rebuild=True))


def ran_message(title: str, runs: list[RunRecord]) -> ActionDone | ActionFailed:
    """How a selection went, as the outcome the app shows (a failure when any run did not succeed)."""
    sentence = ran(title, runs)
    failed = any(r.status != "success" for r in runs)
    return ActionFailed(f"run {title}", sentence) if failed else ActionDone("run selection", sentence)
