"""Keys on a pipeline (or its table) under the cursor: run, cancel, preview, unit tests, publish, roll back code,
compact."""
from __future__ import annotations

from functools import partial

from ...core.commands.browse_results import QueryResult
from ...core.run.runner import RunHandle
from ..components.modals import AskText, Confirm
from ..components.pipeline_view import PipelineView
from ..components.unit_tests_pane import UnitTestsPane
from ..keymap import label_of
from ..outcomes import count, fixture_written, rows_shown, unit_tested
from .base import KeyGroup


# The run keys (keymap ids) besides `run` itself, and what each asks of the run
RUN_OPTIONS: dict[str, dict[str, bool]] = {"run_published": {"published": True},
                                           "run_reload_files": {"reload_files": True},
                                           "run_review": {"review": True}}  # stops before main, awaiting a or x


class PipelineKeys(KeyGroup):
    def run(self, action_id: str) -> None:
        app = self.app
        fqn = self.target_pipeline(action_id)
        if fqn is None:
            return
        if action_id == "run_published" and app.workbench.versions.list_versions(fqn).current is None:
            # no run starts: a warning, not a "run failed" toast over a run that never was
            app.notify(f"{fqn} has no published version yet; {label_of(app.keymap, 'publish')} publishes the "
                       "working copy.", severity="warning")
            return
        view = app.detail.current(PipelineView)
        if view is not None and view.fqn == fqn:
            view.show_tab("tab-run")
        if action_id == "run":  # pressed again before the run starts: that run, not one more
            app.jobs.run("run", partial(app.workbench.runs.run_unless_queued, fqn), _queued_already)
            return
        app.jobs.run("run for review" if action_id == "run_review" else "run",
                     partial(app.workbench.runs.submit, fqn, **RUN_OPTIONS[action_id]))

    def cancel(self) -> None:
        app = self.app
        fqn = self.target_pipeline("cancel")
        if fqn is None:
            return
        active = [rid for rid, h in app.workbench.runner.active.items() if h.record.pipeline == fqn]
        if not active:
            app.notify(f"No run of {fqn} is queued or running.", severity="warning")
            return
        for run_id in active:
            app.workbench.runs.cancel(run_id)
        sentence = f"Cancelling {count(len(active), 'run', 'runs')} of {fqn}."
        app.notify(sentence)
        app.log_line(sentence)

    def preview(self) -> None:
        fqn = self.target_pipeline("preview")
        if fqn is not None:
            self.app.jobs.run("preview", partial(self.app.workbench.console.preview, fqn, 50),
                              lambda result: rows_shown(f"{fqn}: preview", result), toast=False, then=self._previewed)

    def _previewed(self, result: QueryResult) -> None:
        view = self.app.detail.current(PipelineView)
        if view is not None:
            view.show_preview(result)
            view.show_tab("tab-preview")

    def unit_tests(self) -> None:
        """T: the pipeline's unit tests in a worker; the Tests tab shows them running, then their outcome
        (a failure also toasts its sentence)."""
        app = self.app
        fqn = self.target_pipeline("unit_tests")
        if fqn is None:
            return
        view = self._tests_tab(fqn)
        if view is not None:
            view.query_one(UnitTestsPane).running()
        app.jobs.run("unit tests", partial(app.workbench.unit_tests.unit_test, fqn), lambda result: unit_tested(fqn, result),
                     ended=lambda: self._tests_done(fqn))

    def unit_fixture(self) -> None:
        """U: a unit test written from the pipeline's preview, then shown (with its outcome) in the Tests tab."""
        app = self.app
        fqn = self.target_pipeline("unit_fixture")
        if fqn is not None:
            app.jobs.run("unit test from preview", partial(app.workbench.unit_tests.unit_fixture, fqn),
                         lambda result: fixture_written(fqn, result), ended=lambda: self._tests_done(fqn, True))

    def _tests_tab(self, fqn: str) -> PipelineView | None:
        view = self.app.detail.current(PipelineView)
        if view is None or view.fqn != fqn:
            return None
        view.show_tab("tab-tests")
        return view

    def _tests_done(self, fqn: str, show: bool = False) -> None:
        view = self._tests_tab(fqn) if show else self.app.detail.current(PipelineView)
        if view is not None and view.fqn == fqn:
            view.load_unit_tests()

    def publish(self) -> None:
        app = self.app
        fqn = self.target_pipeline("publish")
        if fqn is None:
            return

        def publish(message: str | None) -> None:
            if message is not None:
                app.jobs.run("publish", partial(app.workbench.versions.publish, fqn, message),
                             lambda result: f"{fqn}: published version {result.version}"
                             + (f" ({message})." if message else ".")
                             + (f" Warning: {result.warning}; a run of it fails." if result.warning else ""),
                             reload=True)

        app.push_screen(AskText(f"Publish {fqn}: message", "what changed?"), publish)

    def rollback(self) -> None:
        app = self.app
        fqn = self.target_pipeline("rollback")
        if fqn is None:
            return
        current = app.workbench.versions.list_versions(fqn).current
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
            rerun = (" Watch is on: the restored files then run the pipeline, as a save does."
                     if app.workbench.watching.running else "")
            app.push_screen(
                Confirm(f"Roll back {fqn} to version {version}?",
                        "Pins that version as a new published version and restores its files to the working "
                        "folder. The working copy is saved as a file version first, so nothing is lost." + rerun),
                lambda ok: ok and app.jobs.run(
                    "rollback", partial(app.workbench.versions.rollback, fqn, version, True),
                    lambda result: f"{fqn}: version {result.version} pins version {version}; its files are restored.",
                    reload=True))

        app.push_screen(AskText(f"Roll back {fqn} to which version? (current: {current})", value=str(default)), chosen)

    def compact(self) -> None:
        fqn = self.target_pipeline("compact")
        if fqn is not None:
            self.app.jobs.run("compact", partial(self.app.workbench.tables.compact, fqn),
                              lambda result: f"{fqn}: compacted {count(result.files_before, 'data file')} into "
                                             f"{result.files_after}.", reload=True)


def _queued_already(asked: tuple[RunHandle, bool]) -> str:
    handle, new = asked
    return "" if new else f"run {handle.run_id} of {handle.record.pipeline} is queued already; it runs next"
