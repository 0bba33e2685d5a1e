"""The Textual application: layout, start-up, the selection and what the right side shows, the keys and
the palette. The panels load what they show themselves (`components/`); the keys' work is in `keys/`;
watch-and-run is the core's (`core/commands/watching.py`), whose notices the app shows."""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

from rich.text import Text
from textual import on, work
from textual.actions import SkipAction
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Header, Tree
from textual.widgets.tree import TreeNode
from textual.worker import WorkerState

from ..core.automation.scheduler import INTERVAL_SECONDS
from ..core.commands import watching
from ..core.commands.failures import failure_sentence
from ..core.commands.settings_watch import SettingsReloaded
from ..core.commands.workbench import Workbench
from ..core.events import RunFinished, RunQueued, RunStarted, SessionStateChanged, WarmUpProgress
from .background import Background
from .components.automation_pane import AutomationScreen
from .components.intervals_pane import IntervalsScreen
from .components.console import ConsolePanel
from .components.detail_area import DetailArea
from .components.loading import app_closing
from .components.group_view import GroupView
from .components.help_screen import HelpScreen
from .components.lineage_view import LineageView
from .components.log_panel import LogPanel, run_mark
from .components.pipeline_view import PipelineView
from .components.project_tree import NodeData, ProjectTree
from .components.run_view import LiveRuns, RunView
from .components.selection_view import SelectionProgress, SelectionView
from .components.status_bar import StatusBar
from .components.table_view import TableView
from .components.whole_footer import WholeHintsFooter
from .components.zone_view import ZoneView
from .heap import freeze_long_lived, release
from .internal_errors import InternalErrors
from .jobs import Jobs
from .keymap import DEFAULT_KEYMAP, bindings, key_label, label_of, resolve_keymap
from .keys.graph import GraphKeys, ran_message
from .keys.landing import LandingKeys
from .keys.pipeline import PipelineKeys
from .keys.review import ReviewKeys
from .keys.tables import TableKeys
from .keys.upkeep import UpkeepKeys
from .keys.view import ViewKeys
from .messages import ActionDone, ActionFailed, CoreEvent, UploadProgress, WatchNotice
from .outcomes import run_outcome, toast
from .palette import PaletteCommands, key_commands
from .script_host import AppScreen, ScriptJob

REMOTE_CHECK_SECONDS = 30  # how often the bucket is asked for colleagues' edits
W = TypeVar("W", bound=Widget)


class RatApp(App):
    detail: DetailArea  # the right side (compose)

    TITLE = "rat-tui"
    CSS_PATH = "app.tcss"
    BINDINGS = bindings(list(DEFAULT_KEYMAP))
    COMMANDS = {PaletteCommands}

    def __init__(self, workbench: Workbench, watch: bool | None = None, warm_spark: bool = True,
                 script: ScriptJob | None = None):
        super().__init__()
        self.script = script
        self.workbench = workbench
        settings = workbench.project.settings
        self.keymap = resolve_keymap(settings.keymap)
        # A script starts with the watcher off: its own `write` followed by `run` must run once (docs/script.md).
        default_watch = settings.watch_enabled if script is None else False
        self.watch_at_start = default_watch if watch is None else watch
        self.warm_spark = warm_spark
        self.selected: NodeData | None = None
        self.selection: SelectionProgress | None = None  # the selection the progress view shows
        self.live_runs = LiveRuns()
        self.sub_title = workbench.project.root.name
        self._unsubscribe: list[Callable[[], None]] = []
        self.spark_heap_frozen = False
        self.jobs = Jobs(self)
        self.background = Background(self)
        self.pipeline_keys, self.table_keys, self.review_keys = PipelineKeys(self), TableKeys(self), ReviewKeys(self)
        self.landing_keys, self.upkeep_keys, self.graph_keys = LandingKeys(self), UpkeepKeys(self), GraphKeys(self)
        self.view_keys = ViewKeys(self)
        self.internal_errors = InternalErrors(self)

    # -- layout ---------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        self.detail = DetailArea(Text("Select a pipeline, landing zone or table in the tree.\n"
                                      "r run · p preview · P publish · b roll back · x purge · w watch · ? help"))
        yield Header()
        with Horizontal(id="main"):
            yield ProjectTree()
            yield self.detail
            yield ConsolePanel(self.workbench)
        yield LogPanel()
        yield StatusBar()
        yield WholeHintsFooter()

    def on_mount(self) -> None:
        wb = self.workbench
        self.set_interval(0.5, self._tick)
        if wb.project.settings.keymap:
            self.set_keymap(wb.project.settings.keymap)
        self._unsubscribe = [wb.events.subscribe(lambda e: self.post_message(CoreEvent(e))),
                             wb.watching.notices.subscribe(lambda n: self.post_message(WatchNotice(n))),
                             wb.settings_watch.notices.subscribe(lambda n: self.post_message(WatchNotice(n))),
                             self.background.watch_outside()]
        self.query_one(StatusBar).update_status(master=wb.project.settings.spark_master, watching=self.watch_at_start,
                                                spark_state=wb.spark.state.value,  # a session started before
                                                warm="pending" if self.warm_spark else "")
        self.query_one(ProjectTree).focus()
        self.refresh_tree()
        if self.watch_at_start:
            wb.watching.set(True)
        wb.settings_watch.start()
        if self.warm_spark:
            self.background.warm_up()
        freeze_long_lived()
        if self.script is not None:
            self.run_worker(lambda: AppScreen(self).run(self.script), thread=True, group="script")
        else:
            self.background.auto_purge()
            self.set_interval(86400, self.background.auto_purge)
            self.background.schedule()
            self.set_interval(INTERVAL_SECONDS, self.background.schedule)
            if wb.remote is not None:
                self.query_one(StatusBar).update_status(bucket=wb.remote.config.bucket, bucket_state="connecting")
                self.check_remote()
                self.set_interval(REMOTE_CHECK_SECONDS, self.check_remote)

    def _tick(self) -> None:
        """Elapsed times of running phases move even when no event arrives."""
        view = self.detail.current(RunView)
        if view is not None and view.state is not None and view.state.status in ("queued", "running"):
            view.refresh_view()

    def on_unmount(self) -> None:
        release()
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self.workbench.watching.stop()
        self.workbench.outside.stop()
        self.workbench.settings_watch.stop()

    # -- errors: a bug is logged and said once; the app stays -------------------------
    def _handle_exception(self, error: Exception) -> None:
        if not self.internal_errors.survivable(error):
            super()._handle_exception(error)
            return
        widget = self.internal_errors.failed_widget()
        self.internal_errors.report(error, "the screen" if widget is None else type(widget).__name__)
        if widget is not None and self.detail in widget.ancestors:
            self.call_later(self.show_cursor_node)  # a panel whose handler failed handles nothing more

    async def _dispatch_message(self, message) -> None:
        try:
            await super()._dispatch_message(message)
        except Exception as exc:
            if not self.internal_errors.app_runs:
                raise
            self.internal_errors.report(exc, "the app")

    async def _dispatch_action(self, namespace, action_name, params) -> bool:
        try:
            return await super()._dispatch_action(namespace, action_name, params)
        except SkipAction:
            raise
        except Exception as exc:
            if not self.internal_errors.app_runs:
                raise
            self.internal_errors.report(exc, f"the key {action_name}")
            return True

    @property
    def closing(self) -> bool:
        return app_closing(self)

    def notify(self, message: str, **options) -> None:  # type: ignore[override]
        if not (isinstance(self.screen, HelpScreen) and self.screen.hold(message, options)):  # shown once it closes
            super().notify(message, **options)

    def log_line(self, text: str, style: str = "", at: float | None = None) -> None:
        """One readable, time-stamped line in the log panel (`l`)."""
        if not self.closing:  # a worker's outcome arriving as the app exits: the panel may be gone
            self.query_one(LogPanel).line(text, style, at)

    def update_from_thread(self, kind: type[W], method: str, *args, **kwargs) -> None:
        """From a worker: call a main-screen widget's method on the UI thread. A worker may finish as the
        app closes, when the widget is already gone: then there is nothing to update."""
        def apply() -> None:
            found = self.query(kind)
            if found and not self.closing:
                getattr(found.first(), method)(*args, **kwargs)

        self.call_from_thread(apply)

    @work(thread=True, exclusive=True, group="tree")
    def refresh_tree(self) -> None:
        read_at = time.time()  # run events after this moment may not be in the overview yet
        try:
            overview = self.workbench.overview()
        except Exception as exc:  # the state or a folder went under it: a notice, the app stays (F5 tries again)
            self.post_message(ActionFailed("Refresh", failure_sentence("refresh", exc)))
            return
        self.update_from_thread(ProjectTree, "load", overview, read_at)

    def check_remote(self) -> None:
        self.background.check_remote()

    def get_system_commands(self, screen):
        yield from key_commands(self, self.keymap)
        yield from super().get_system_commands(screen)

    # -- the selection and the right side ---------------------------------------------
    @on(Tree.NodeHighlighted, "#project-tree")
    def node_highlighted(self, event: Tree.NodeHighlighted) -> None:
        if event.node.data is not None and event.node.data != self.selected:
            self.show_node(event.node)

    def show_node(self, node: TreeNode[NodeData]) -> None:
        data = node.data
        self.selected = data
        if data.kind in ("namespace", "layer", "group"):
            self.detail.show(lambda: GroupView(node))
        else:
            self.detail.show(lambda: self.node_view(data), self._opened)

    def show_cursor_node(self) -> None:
        """A fresh panel for the node under the tree's cursor, whatever the right side shows now."""
        node = self.query_one(ProjectTree).cursor_node
        if node is not None and node.data is not None:
            self.show_node(node)

    def load_detail(self, node: NodeData) -> None:
        """Show the node's panel, or reload it in place. A reload of the node a lineage or selection panel
        was opened on (a run finished, F5) keeps that panel (a lineage redraws its marks)."""
        panel = self.detail.current(LineageView) or self.detail.current(SelectionView)
        if panel is not None and node == panel.opened_on:
            if isinstance(panel, LineageView):
                panel.load()
            return
        shown = self.detail.current(PipelineView) or self.detail.current(ZoneView)
        if shown is not None and shown.node == node:
            shown.load()
        else:
            self.detail.show(lambda: self.node_view(node), self._opened)

    async def show_detail(self, node: NodeData) -> None:
        """A new panel for a pipeline, zone or table now; it loads what it shows once mounted."""
        view = self.node_view(node)
        if await self.detail.replace(view):
            self._opened(view)

    def node_view(self, node: NodeData) -> Widget:
        if node.kind == "pipeline":
            return PipelineView(self.workbench, node, self.live_runs)
        return ZoneView(self.workbench, node) if node.kind == "zone" else TableView(self.workbench, node)

    def _opened(self, view: Widget) -> None:
        if isinstance(view, PipelineView) and self.live_runs.in_flight(view.fqn):
            view.show_tab("tab-run")  # opening a pipeline that is running shows the run

    async def show_selection(self, title: str, names: list[str], opened_on: NodeData | None = None) -> None:
        self.selection = SelectionProgress(title, names)
        await self.detail.replace(SelectionView(self.selection, opened_on or self.selected))

    def reload(self) -> None:
        self.refresh_tree()
        if self.selected is not None:
            self.load_detail(self.selected)

    def target(self, action_id: str) -> NodeData | None:
        """The tree node under the cursor when it is what the key acts on (keymap `needs`), else None
        after one notice saying so: keys never act on whatever the right side showed last."""
        key = next(k for k in self.keymap if k.id == action_id)
        data = self.query_one(ProjectTree).cursor_data
        kinds = {"pipeline": ("pipeline", "table"), "table": ("table",), "zone": ("zone",),
                 "node": ("pipeline", "table", "zone")}[key.needs]
        if data is not None and data.kind in kinds:
            return data
        where = data.describe() if data is not None else "nothing"
        wanted = {"zone": "landing zone", "node": "pipeline or landing zone"}.get(key.needs, key.needs)
        self.notify(f"{key_label(key.key)} ({key.description}) needs a {wanted} under the cursor; it is on {where}.",
                    severity="warning")
        return None

    def target_zone(self, action_id: str) -> tuple[str, str] | None:
        data = self.target(action_id)
        return (data.namespace, data.name) if data is not None else None

    def target_pipeline(self, action_id: str) -> str | None:
        data = self.target(action_id)
        return data.ref.fqn if data is not None and data.ref is not None else None

    # -- what the core and the workers report -----------------------------------------
    def on_core_event(self, message: CoreEvent) -> None:
        if self.closing:  # runs still in flight post events while the app closes and its panels are gone
            return
        event = message.event
        status = self.query_one(StatusBar)
        if isinstance(event, SessionStateChanged):
            status.update_status(spark_state=event.state, spark_reason=event.reason, executors=event.executors,
                                 cores=event.cores)
            if event.state == "failed":
                self.notify(event.reason, title="Spark did not start", severity="error", timeout=10)
            elif event.state == "ready" and not self.spark_heap_frozen:
                self.spark_heap_frozen = True
                freeze_long_lived()  # pyspark and the gateway's objects are there now
        elif isinstance(event, WarmUpProgress):
            status.update_status(warm=event.state, warm_done=event.done, warm_total=event.total)
        if self.selection is not None and self.selection.apply(event):
            view = self.detail.current(SelectionView)
            if view is not None and view.progress is self.selection:
                view.refresh_view()
        state = self.live_runs.apply(event)
        if isinstance(event, (RunQueued, RunStarted, RunFinished)):
            queued, running = self.workbench.runner.queued_and_running()
            status.update_status(queued=queued, running=running)
            self.query_one(ProjectTree).set_run_status(event.pipeline, run_mark(event), event.at)
            lineage = self.detail.current(LineageView)
            if lineage is not None:
                lineage.set_status(event.pipeline, run_mark(event), event.at)
        pipeline_view = self.detail.current(PipelineView)
        if pipeline_view is not None:
            pipeline_view.run_event(event, state)
        self.query_one(LogPanel).log_event(event)
        if isinstance(event, RunFinished):
            self.live_runs.finished(event.run_id)  # from now on the stored record (with samples) is the truth
            text, severity = run_outcome(event, label_of(self.keymap, "log"))
            if self.selection is None or not self.selection.owns(event.run_id):  # a selection says it once, at its end
                self.notify(text, title=f"{event.pipeline}: {event.status}", severity=severity, timeout=6, markup=False)
            self.reload()

    def on_watch_notice(self, message: WatchNotice) -> None:
        if self.closing:
            return
        notice = message.notice
        if isinstance(notice, watching.FilesChanged):
            self.refresh_tree()
        elif isinstance(notice, watching.WatchToggled):
            self.query_one(StatusBar).update_status(watching=notice.on)
        elif isinstance(notice, watching.RunRequested):
            self.post_message(ActionDone("auto-run", notice.sentence()))
        elif isinstance(notice, watching.WatchFailed):
            self.post_message(ActionFailed(notice.what, notice.sentence))
        elif isinstance(notice, SettingsReloaded):  # what is shown, and F5, u, r, read by the new settings
            message = ActionFailed if notice.problems else ActionDone
            self.post_message(message("settings", notice.sentence()))
            self.reload()
        elif isinstance(notice, watching.CascadeRan):
            self.post_message(ran_message(notice.title, notice.runs))
        elif isinstance(notice, watching.ZoneUpdated):
            shown = self.selected
            if shown is not None and (shown.kind, shown.namespace, shown.name) == ("zone", notice.namespace,
                                                                                   notice.zone):
                self.load_detail(shown)

    def on_action_done(self, message: ActionDone) -> None:
        if self.closing:
            return
        if message.summary:
            self.log_line(message.summary)
            if message.toast:
                self.notify(message.summary, title=message.action)
        if message.then is not None:
            message.then()
        if message.reload:
            self.reload()

    def on_action_failed(self, message: ActionFailed) -> None:
        if self.closing:
            return
        self.notify(toast(message.error, f"the log ({label_of(self.keymap, 'log')})"), title=f"{message.action} failed",
                    severity="error", timeout=10, markup=False)
        self.log_line(f"{message.action} failed: {message.error}", "red")
        if message.then is not None:
            message.then()

    def on_upload_progress(self, message: UploadProgress) -> None:
        self.landing_keys.progress(message)

    @on(LineageView.Jump)
    def lineage_jump(self, message: LineageView.Jump) -> None:
        tree = self.query_one(ProjectTree)
        if tree.reveal(message.name):
            tree.focus()
        else:
            self.notify(f"{message.name} is not in the project tree.", severity="warning")

    # -- the screen, for tests and `--script` ------------------------------------------
    async def wait_for_idle_screen(self) -> None:
        """Until the tree and the detail panel have loaded and shown what the last key asked for (their
        workers done, then the messages those posted handled, which may start more)."""
        busy = (WorkerState.PENDING, WorkerState.RUNNING)
        while True:
            while any(w.state in busy for w in self.workers if w.group in ("tree", "detail", "version-diff")):
                await asyncio.sleep(0.02)
            await self._handled_posted_messages()
            if not any(w.state in busy for w in self.workers if w.group in ("tree", "detail", "version-diff")):
                return

    async def _handled_posted_messages(self) -> None:
        """Until every node of the main screen has handled what was posted to it so far."""
        handled = []
        for node in (self, *self.screen_stack[0].walk_children(with_self=True)):
            done = asyncio.Event()
            if node.call_later(done.set):
                handled.append(asyncio.ensure_future(done.wait()))
        if handled:
            _, pending = await asyncio.wait(handled, timeout=5)  # a node removed meanwhile never gets there
            for waiting in pending:
                waiting.cancel()

    def screen_text(self) -> str:
        strips = self.screen._compositor.render_strips()
        return "\n".join("".join(segment.text for segment in strip) for strip in strips)

    # -- keys -------------------------------------------------------------------------
    def action_run(self, action_id: str = "run") -> None:
        self.pipeline_keys.run(action_id)

    def action_cancel(self) -> None:
        self.pipeline_keys.cancel()

    def action_preview(self) -> None:
        self.pipeline_keys.preview()

    def action_unit_tests(self) -> None:
        self.pipeline_keys.unit_tests()

    def action_unit_fixture(self) -> None:
        self.pipeline_keys.unit_fixture()

    def action_publish(self) -> None:
        self.pipeline_keys.publish()

    def action_rollback(self) -> None:
        self.pipeline_keys.rollback()

    def action_compact(self) -> None:
        self.pipeline_keys.compact()

    def action_run_downstream(self) -> None:
        self.graph_keys.run_selector("run_downstream", "{}+")

    def action_run_upstream(self) -> None:
        self.graph_keys.run_selector("run_upstream", "+{}")

    def action_full_refresh(self) -> None:
        self.graph_keys.run_selector("full_refresh", "{}+", full_refresh=True)

    def action_build(self) -> None:
        self.graph_keys.build()

    def action_lineage(self) -> None:
        self.graph_keys.lineage()

    def action_project_lineage(self) -> None:
        self.graph_keys.show_lineage(None)

    def action_rollback_table(self) -> None:
        self.table_keys.rollback()

    def action_diff(self) -> None:
        self.table_keys.diff()

    def action_upload(self) -> None:
        self.landing_keys.upload()

    def action_zone_settings(self) -> None:
        self.landing_keys.settings()

    def action_pin_dialect(self) -> None:
        self.landing_keys.pin_dialect()

    def action_doctor(self) -> None:
        self.upkeep_keys.doctor()

    def action_purge(self) -> None:
        self.review_keys.reject() or self.upkeep_keys.purge()

    def action_review(self, what: str) -> None:
        getattr(self.review_keys, what)()

    def action_pull(self) -> None:
        self.upkeep_keys.pull()

    def action_toggle_watch(self) -> None:
        on = self.set_watch(not self.workbench.watching.running)
        self.notify(f"Watch {'on' if on else 'off'}")

    def set_watch(self, on: bool) -> bool:
        return self.workbench.watching.set(on)

    def action_refresh(self) -> None:
        self.reload()

    def action_toggle_log(self) -> None:
        self.query_one(LogPanel).toggle_class("shown")

    def action_automation(self) -> None:
        self.push_screen(AutomationScreen(self.workbench.automation, self.workbench.project.state_dir))

    def action_intervals(self) -> None:
        self.push_screen(IntervalsScreen(self.workbench))

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.keymap))

    def action_next_tab(self) -> None:
        self.view_keys.switch_tab(1)

    def action_prev_tab(self) -> None:
        self.view_keys.switch_tab(-1)

    def action_console(self, insert: bool = False) -> None:
        self.view_keys.console(insert)

    def action_focus_tree(self) -> None:
        self.query_one(ProjectTree).focus()

    def action_focus_detail(self) -> None:
        """The detail panel's first focusable part (the container itself takes no focus)."""
        target = next((w for w in self.detail.query("*") if w.focusable), None)
        if target is not None:
            target.focus()
        else:
            self.notify("The detail panel has nothing to focus.", severity="warning")
