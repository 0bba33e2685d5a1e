"""The Textual application: layout, start-up, the selection and what the right side shows, the bindings
and the palette. The panels load what they show themselves (`components/`); what the keys do is in
`keys/` (`keys/keyboard.py` maps each key id to it); what the app shows of the core's one event stream (runs,
the session, watch-and-run's and the other services' notices) and of outcomes is in `reactions.py`;
watch-and-run is the core's (`core/background/watching.py`)."""
from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import TypeVar

from rich.text import Text
from textual import on, work
from textual.actions import SkipAction
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Header, Tree
from textual.widgets.tree import TreeNode

from ..core.compose import Workbench
from ..core.failures import failure_sentence
from .background import Background
from .components.console import ConsolePanel
from .components.detail_area import DetailArea
from .components.group_view import GroupView
from .components.help_screen import HelpScreen
from .components.lineage_view import LineageView
from .components.loading import app_closing
from .components.log_panel import LogPanel
from .components.pipeline_view import PipelineView
from .components.project_tree import NodeData, ProjectTree
from .components.run_view import LiveRuns
from .components.selection_view import SelectionProgress, SelectionView
from .components.status_bar import StatusBar
from .components.table_view import TableView
from .components.whole_footer import WholeHintsFooter
from .components.zone_view import ZoneView
from .heap import freeze_long_lived, release
from .internal_errors import InternalErrors
from .jobs import Jobs
from .keymap import DEFAULT_KEYMAP, bindings, resolve_keymap
from .keys.keyboard import Keyboard
from .messages import ActionDone, ActionFailed, CoreEvent, UploadProgress
from .palette import PaletteCommands, key_commands
from .reactions import Reactions
from .screen_state import screen_text, wait_for_idle_screen
from .script_host import AppScreen, ScriptJob

W = TypeVar("W", bound=Widget)


GROUP_KINDS = ("namespace", "layer", "group")  # tree nodes whose panel is a GroupView of their children


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
        self._unsubscribe: Callable[[], None] = lambda: None
        self.jobs = Jobs(self)
        self.background = Background(self)
        self.keys = Keyboard(self, self.background)
        self.reactions = Reactions(self)
        self.internal_errors = InternalErrors(self)

    # -- layout ---------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        self.detail = DetailArea(Text("Select a pipeline, landing zone or table in the tree.\n"
                                      "r run · p preview · P publish · b roll back · x purge · w watch · ? help"))
        yield Header()
        with Horizontal(id="main"):
            yield ProjectTree(self.background.until_warm)
            yield self.detail
            yield ConsolePanel(self.workbench)
        yield LogPanel()
        yield StatusBar()
        yield WholeHintsFooter()

    def on_mount(self) -> None:
        wb = self.workbench
        self.set_interval(0.5, self.reactions.tick)
        if wb.project.settings.keymap:
            self.set_keymap(wb.project.settings.keymap)
        self._unsubscribe = wb.events.subscribe(lambda event: self.post_message(CoreEvent(event)))  # the one adapter
        self.query_one(StatusBar).update_status(master=wb.project.settings.spark_master, watching=self.watch_at_start,
                                                spark_state=wb.spark.state.value,  # a session started before
                                                warm="pending" if self.warm_spark else "")
        self.query_one(ProjectTree).focus()
        self.refresh_tree()
        if self.watch_at_start:
            wb.watching.set(True)
        wb.settings_watch.start()
        wb.outside.start()  # other processes' runs, state deleted under the app
        if self.warm_spark:
            self.background.warm_up()
        freeze_long_lived()
        if self.script is not None:
            self.run_worker(lambda: AppScreen(self, wb).run(self.script), thread=True, group="script")
        else:
            self.background.start_rounds()

    def on_unmount(self) -> None:
        release()
        self._unsubscribe()
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
            key = params[0] if action_name == "key" and params else action_name  # key('<id>'): the id
            self.internal_errors.report(exc, f"the key {key}")
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

    def update_from_thread(self, kind: type[W], update: Callable[[W], None]) -> None:
        """From a worker: `update` a main-screen widget on the UI thread. A worker may finish as the app
        closes, when the widget is already gone: then there is nothing to update."""
        def apply() -> None:
            found = self.query(kind)
            if found and not self.closing:
                update(found.first())

        self.call_from_thread(apply)

    @work(thread=True, exclusive=True, group="tree")
    def refresh_tree(self) -> None:
        read_at = time.time()  # run events after this moment may not be in the overview yet
        try:
            overview = self.workbench.browse.overview()
        except Exception as exc:  # the state or a folder went under it: a notice, the app stays (F5 tries again)
            self.post_message(ActionFailed("Refresh", failure_sentence("refresh", exc)))
            return
        self.update_from_thread(ProjectTree, lambda tree: tree.load(overview, read_at))

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
        if data.kind in GROUP_KINDS:
            self.detail.show(lambda: GroupView(node))
        else:
            self.detail.show(lambda: self.node_view(data), self._opened)

    def show_cursor_node(self) -> None:
        """A fresh panel for the node under the tree's cursor, whatever the right side shows now."""
        node = self.query_one(ProjectTree).cursor_node
        if node is not None and node.data is not None:
            self.show_node(node)

    def load_detail(self, node: NodeData, run_tab: bool = False) -> None:
        """Show the node's panel, or reload it in place. A reload of the node a lineage or selection panel
        was opened on (a run finished, F5) keeps that panel (a lineage redraws its marks). `run_tab`: a new
        pipeline panel opens on its Run tab."""
        panel = self.detail.current(LineageView) or self.detail.current(SelectionView)
        if panel is not None and node == panel.opened_on:
            if isinstance(panel, LineageView):
                panel.load()
            return
        shown = self.detail.current(PipelineView) or self.detail.current(ZoneView)
        if shown is not None and shown.node == node:
            shown.load()
        elif node.kind in GROUP_KINDS:  # its panel is made from the tree's node, which the reload rebuilt
            self.show_cursor_node()
        else:
            self.detail.show(lambda: self.node_view(node), partial(self._opened, run_tab=run_tab))

    async def show_detail(self, node: NodeData) -> None:
        """A new panel for a pipeline, zone or table now; it loads what it shows once mounted."""
        view = self.node_view(node)
        if await self.detail.replace(view):
            self._opened(view)

    def node_view(self, node: NodeData) -> Widget:
        if node.kind == "pipeline":
            return PipelineView(self.workbench, node, self.live_runs)
        return ZoneView(self.workbench, node) if node.kind == "zone" else TableView(self.workbench, node)

    def _opened(self, view: Widget, run_tab: bool = False) -> None:
        if isinstance(view, PipelineView) and (run_tab or self.live_runs.in_flight(view.fqn)):
            view.show_tab("tab-run")  # opening a pipeline that is running shows the run

    async def show_selection(self, title: str, names: list[str], opened_on: NodeData | None = None) -> None:
        self.selection = SelectionProgress(title, names)
        await self.detail.replace(SelectionView(self.selection, opened_on or self.selected))

    def reload(self) -> None:
        self.refresh_tree()
        if self.selected is not None:
            self.load_detail(self.selected)

    # -- what the core and the workers report -----------------------------------------
    def on_core_event(self, message: CoreEvent) -> None:
        if not self.closing:  # runs still in flight post events while the app closes and its panels are gone
            self.reactions.event(message.event)

    def on_action_done(self, message: ActionDone) -> None:
        if not self.closing:
            self.reactions.action_done(message)

    def on_action_failed(self, message: ActionFailed) -> None:
        if not self.closing:
            self.reactions.action_failed(message)

    def on_upload_progress(self, message: UploadProgress) -> None:
        self.keys.landing.progress(message)

    @on(LineageView.Jump)
    def lineage_jump(self, message: LineageView.Jump) -> None:
        tree = self.query_one(ProjectTree)
        if tree.reveal(message.name):
            tree.focus()
        else:
            self.notify(f"{message.name} is not in the project tree.", severity="warning")

    # -- the screen, for tests and `--script` ------------------------------------------
    async def wait_for_idle_screen(self) -> None:
        await wait_for_idle_screen(self)

    def screen_text(self) -> str:
        return screen_text(self)

    # -- keys: every binding of the keymap but Textual's own runs key('<id>') ---------
    def action_key(self, action_id: str) -> None:
        self.keys.press(action_id)
