"""What the app shows of what the core and the workers report. Every event of the project's one stream comes
here by type: run events become marks in the tree and the lineage, the status bar, the open panel and the
log (a run's end redraws only what it touched); the services' notices (watch-and-run, outside changes, live
settings) and outcomes become toasts, log lines and reloads."""
from __future__ import annotations

from ..core.background import watching
from ..core.background.outside import OtherProcessRun, StateVanished
from ..core.background.settings_watch import SettingsReloaded
from ..core.events import Event, Notice, RunFinished, RunQueued, RunStarted, SessionStateChanged, WarmUpProgress
from .components.lineage_view import LineageView
from .components.log_panel import LogPanel, run_mark
from .components.pipeline_view import PipelineView
from .components.project_tree import ProjectTree
from .components.run_view import RunView
from .components.selection_view import SelectionView
from .components.status_bar import StatusBar
from .heap import freeze_long_lived
from .host import AppHost
from .keymap import label_of
from .keys.graph_keys import ran_message
from .messages import ActionDone, ActionFailed
from .outcomes import run_outcome, toast


class Reactions:
    def __init__(self, app: AppHost) -> None:
        self.app = app
        self.spark_heap_frozen = False

    def tick(self) -> None:
        """Elapsed times of running phases move even when no event arrives."""
        view = self.app.detail.current(RunView)
        if view is not None and view.state is not None and view.state.status in ("queued", "running"):
            view.refresh_view()

    def event(self, event: Event) -> None:
        """One event of the stream, on the app's thread."""
        if isinstance(event, Notice):
            self.notice(event)
        else:
            self.run_event(event)

    def run_event(self, event: Event) -> None:
        app = self.app
        status = app.query_one(StatusBar)
        if isinstance(event, SessionStateChanged):
            status.update_status(spark_state=event.state, spark_reason=event.reason, executors=event.executors,
                                 cores=event.cores)
            if event.state == "failed":
                app.notify(event.reason, title="Spark did not start", severity="error", timeout=10)
            elif event.state == "ready" and not self.spark_heap_frozen:
                self.spark_heap_frozen = True
                freeze_long_lived()  # pyspark and the gateway's objects are there now
        elif isinstance(event, WarmUpProgress):
            status.update_status(warm=event.state, warm_done=event.done, warm_total=event.total)
        if app.selection is not None and app.selection.apply(event):
            view = app.detail.current(SelectionView)
            if view is not None and view.progress is app.selection:
                view.refresh_view()
        state = app.live_runs.apply(event)
        if isinstance(event, (RunQueued, RunStarted, RunFinished)):
            queued, running = app.workbench.runner.queued_and_running()
            status.update_status(queued=queued, running=running)
            app.query_one(ProjectTree).set_run_status(event.pipeline, run_mark(event), event.at)
            lineage = app.detail.current(LineageView)
            if lineage is not None:
                lineage.set_status(event.pipeline, run_mark(event), event.at)
        pipeline_view = app.detail.current(PipelineView)
        if pipeline_view is not None:
            pipeline_view.run_event(event, state)
        app.query_one(LogPanel).log_event(event)
        if isinstance(event, RunFinished):
            self.run_finished(event)

    def run_finished(self, event: RunFinished) -> None:
        """The toast, and only what the run touched redrawn: its tree nodes, and its pipeline's panel from the
        record the event carries (nothing read back from the state, no overview of every table)."""
        app = self.app
        app.live_runs.finished(event.run_id)  # from now on the record (with samples) is the truth
        text, severity = run_outcome(event, label_of(app.keymap, "log"))
        if app.selection is None or not app.selection.owns(event.run_id):  # a selection says it once, at its end
            app.notify(text, title=f"{event.pipeline}: {event.status}", severity=severity, timeout=6, markup=False)
        main = event.record.snapshot_id if event.record is not None else None
        if not app.query_one(ProjectTree).run_ended(event.pipeline, main):
            app.refresh_tree()  # its table has no node yet (a first run makes it): the tree reads it
        shown = app.detail.current(PipelineView)
        if shown is not None:
            if shown.fqn == event.pipeline and event.record is not None:
                shown.run_finished(event.record)
        elif app.selected is not None:  # a table, zone, lineage or selection panel shows what runs change
            # ... or the run's own panel was being replaced (opened, reloaded) and missed the end: it opens
            # on the run, as the panel it replaces would have shown it
            selected = app.selected
            app.load_detail(selected, run_tab=selected.kind == "pipeline" and selected.ref is not None
                            and selected.ref.fqn == event.pipeline)

    def notice(self, notice: Notice) -> None:
        app = self.app
        if isinstance(notice, OtherProcessRun):  # a tree mark now, then the tree and the open panel reload
            app.query_one(ProjectTree).set_run_status(notice.pipeline, notice.status, notice.at)
            app.post_message(ActionDone("another process", notice.sentence(), toast=False, reload=True))
        elif isinstance(notice, StateVanished):
            app.post_message(ActionDone("state deleted", notice.sentence, reload=True))
        elif isinstance(notice, watching.FilesChanged):
            app.refresh_tree()
        elif isinstance(notice, watching.WatchToggled):
            app.query_one(StatusBar).update_status(watching=notice.on)
        elif isinstance(notice, watching.RunRequested):
            app.post_message(ActionDone("auto-run", notice.sentence()))
        elif isinstance(notice, watching.WatchFailed):
            app.post_message(ActionFailed(notice.what, notice.sentence))
        elif isinstance(notice, SettingsReloaded):  # what is shown, and F5, u, r, read by the new settings
            message = ActionFailed if notice.problems else ActionDone
            app.post_message(message("settings", notice.sentence()))
            app.reload()
        elif isinstance(notice, watching.CascadeRan):
            app.post_message(ran_message(notice.title, notice.runs))
        elif isinstance(notice, watching.ZoneUpdated):
            shown = app.selected
            if shown is not None and (shown.kind, shown.namespace, shown.name) == ("zone", notice.namespace,
                                                                                   notice.zone):
                app.load_detail(shown)

    def action_done(self, message: ActionDone) -> None:
        app = self.app
        if message.summary:
            app.log_line(message.summary)
            if message.toast:
                app.notify(message.summary, title=message.action)
        app.jobs.settle(message.job)
        if message.reload:
            app.reload()

    def action_failed(self, message: ActionFailed) -> None:
        app = self.app
        app.notify(toast(message.error, f"the log ({label_of(app.keymap, 'log')})"), title=f"{message.action} failed",
                   severity="error", timeout=10, markup=False)
        app.log_line(f"{message.action} failed: {message.error}", "red")
        app.jobs.settle(message.job)
