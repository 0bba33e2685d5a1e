"""Keys on a pipeline (or its table) under the cursor: run, cancel, preview, publish, roll back code, compact."""
from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from ..components.modals import AskText, Confirm
from ..components.pipeline_view import PipelineView
from ..outcomes import count, rows_shown

if TYPE_CHECKING:
    from ..app import RatApp


class PipelineKeys:
    def __init__(self, app: RatApp) -> None:
        self.app = app

    def run(self, published: bool, review: bool = False) -> None:
        """`review`: the run stops before main with its diff, awaiting approve or reject."""
        app = self.app
        fqn = app.target_pipeline("run_review" if review else "run_published" if published else "run")
        if fqn is None:
            return
        view = app.detail.current(PipelineView)
        if view is not None and view.fqn == fqn:
            view.show_tab("tab-run")
        app.jobs.run("run for review" if review else "run",
                     partial(app.workbench.submit, fqn, published=published, review=review))

    def cancel(self) -> None:
        app = self.app
        fqn = app.target_pipeline("cancel")
        if fqn is None:
            return
        active = [rid for rid, h in app.workbench.runner.active.items() if h.record.pipeline == fqn]
        if not active:
            app.notify(f"No run of {fqn} is queued or running.", severity="warning")
            return
        for run_id in active:
            app.workbench.cancel(run_id)
        sentence = f"Cancelling {count(len(active), 'run', 'runs')} of {fqn}."
        app.notify(sentence)
        app.log_line(sentence)

    def preview(self) -> None:
        fqn = self.app.target_pipeline("preview")
        if fqn is not None:
            self.app.jobs.run("preview", partial(self.app.workbench.preview, fqn, 50),
                              lambda result: rows_shown(f"{fqn}: preview", result), toast=False, then=self._previewed)

    def _previewed(self, result: dict) -> None:
        view = self.app.detail.current(PipelineView)
        if view is not None:
            view.show_preview(result)
            view.show_tab("tab-preview")

    def publish(self) -> None:
        app = self.app
        fqn = app.target_pipeline("publish")
        if fqn is None:
            return

        def publish(message: str | None) -> None:
            if message is not None:
                app.jobs.run("publish", partial(app.workbench.publish, fqn, message),
                             lambda result: f"{fqn}: published version {result['version']}"
                             + (f" ({message})." if message else "."), reload=True)

        app.push_screen(AskText(f"Publish {fqn}: message", "what changed?"), publish)

    def rollback(self) -> None:
        app = self.app
        fqn = app.target_pipeline("rollback")
        if fqn is None:
            return
        current = app.workbench.list_versions(fqn)["current"]
        if current is None:
            app.notify(f"{fqn} has no published version yet.", severity="warning")
            return
        view = app.detail.current(PipelineView)
        highlighted = view.selected_version() if view is not None and view.fqn == fqn else None
        default = highlighted if highlighted not in (None, current) else max(current - 1, 1)

        def chosen(value: str | None) -> None:
            if not value:
                return
            try:
                version = int(value)
            except ValueError:
                app.notify(f"'{value}' is not a version number.", severity="error")
                return
            app.push_screen(
                Confirm(f"Roll back {fqn} to version {version}?",
                        "Pins that version as a new published version and restores its files to the working "
                        "folder. The working copy is saved as a file version first, so nothing is lost."),
                lambda ok: ok and app.jobs.run(
                    "rollback", partial(app.workbench.rollback, fqn, version, True),
                    lambda result: f"{fqn}: version {result['version']} pins version {version}; its files are restored.",
                    reload=True))

        app.push_screen(AskText(f"Roll back {fqn} to which version? (current: {current})", value=str(default)), chosen)

    def compact(self) -> None:
        fqn = self.app.target_pipeline("compact")
        if fqn is not None:
            self.app.jobs.run("compact", partial(self.app.workbench.compact, fqn),
                              lambda result: f"{fqn}: compacted {count(result['files_before'], 'data file')} into "
                                             f"{result['files_after']}.", reload=True)
