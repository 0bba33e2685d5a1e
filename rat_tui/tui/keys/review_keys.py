"""Review keys on a pipeline: run it in review mode, approve or reject the run awaiting review."""
from __future__ import annotations

from functools import partial

from ..components.modals import Confirm
from ..components.project_tree import ProjectTree
from ..host import AppHost
from .base import KeyGroup
from .graph_keys import GraphKeys
from .pipeline_keys import PipelineKeys


class ReviewKeys(KeyGroup):
    def __init__(self, app: AppHost, pipeline: PipelineKeys, graph: GraphKeys) -> None:
        super().__init__(app)
        self.pipeline, self.graph = pipeline, graph


    def run(self) -> None:
        self.pipeline.run("run_review")

    def downstream(self) -> None:
        self.graph.run_selector("review_downstream", "{}+", review=True)

    def _held(self, fqn: str) -> str | None:
        held = self.app.workbench.state.held_runs(fqn)
        return held[-1].run_id if held else None

    def approve(self) -> None:
        app = self.app
        fqn = self.target_pipeline("approve")
        if fqn is None:
            return
        run_id = self._held(fqn)
        if run_id is None:
            app.notify(f"No run of {fqn} is awaiting review.", severity="warning")
            return
        app.jobs.run("approve", partial(app.workbench.review.approve, run_id),
                     lambda result: f"{fqn}: run {run_id} approved; main is now snapshot {result.run.snapshot_id}.",
                     reload=True)

    def reject(self) -> bool:
        """Reject the held run of the pipeline under the cursor (after a yes); False when there is none,
        so the key does what it does elsewhere (purge)."""
        app = self.app
        data = app.query_one(ProjectTree).cursor_data
        fqn = data.ref.fqn if data is not None and data.kind == "pipeline" and data.ref is not None else None
        run_id = self._held(fqn) if fqn else None
        if run_id is None:
            return False
        app.push_screen(
            Confirm(f"Reject run {run_id} of {fqn}?", "Drops its branch; main stays as it is."),
            lambda ok: ok and app.jobs.run("reject", partial(app.workbench.review.reject, run_id),
                                           f"{fqn}: run {run_id} rejected; main is untouched.", reload=True))
        return True
