"""The Textual application: the layout, start-up and the selection; the rest is mixed in from
`workers`, `views`, `actions` and `script_host`."""
from __future__ import annotations

import threading

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult, SystemCommand
from textual.command import DiscoveryHit, Hits
from textual.containers import Container, Horizontal
from textual.system_commands import SystemCommandsProvider
from textual.widgets import DataTable, Footer, Header, RichLog, Static, Tree

from ..core.commands.workbench import Workbench
from ..core.project.watch import ProjectWatcher
from .actions import Actions
from .components.console import ConsolePanel
from .components.group_view import GroupView
from .components.pipeline_view import PipelineView
from .components.project_tree import NodeData, ProjectTree
from .components.run_view import RunState, RunView
from .components.status_bar import StatusBar
from .components.table_view import TableView
from .components.zone_view import ZoneView
from .graph_actions import GraphActions
from .heap import freeze_long_lived, release
from .keymap import DEFAULT_KEYMAP, GROUPS, bindings, key_label, resolve_keymap
from .messages import CoreEvent, FilesChanged
from .outcomes import rows_shown
from .script_host import ScriptHost, ScriptJob
from .views import Views
from .workers import Workers

REMOTE_CHECK_SECONDS = 30  # how often the bucket is asked for colleagues' edits


class PaletteCommands(SystemCommandsProvider):
    """Textual's system-commands provider without its alphabetical sort on discovery, so the palette
    opens on the app's actions group by group (`RatApp.get_system_commands`), Textual's own last."""

    async def discover(self) -> Hits:
        for name, help_text, callback, discover in self.app.get_system_commands(self.screen):
            if discover:
                yield DiscoveryHit(name, callback, help=help_text)


class RatApp(GraphActions, ScriptHost, Workers, Views, Actions, App):
    """Wiring and bindings; the workers, view handlers, actions and script host are mixed in."""

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
        # A script starts with the watcher off: its own `write` followed by `run` must run once (SCRIPT.md).
        default_watch = settings.watch_enabled if script is None else False
        self.watch_enabled = default_watch if watch is None else watch
        self.warm_spark = warm_spark
        self._remote_check = threading.Lock()
        self.watcher = ProjectWatcher(workbench.project, lambda changes: self.post_message(FilesChanged(changes)),
                                      settings.watch_debounce_ms / 1000)
        self.selected: NodeData | None = None
        self.runs: dict[str, RunState] = {}
        self.latest_run: dict[str, str] = {}  # pipeline fqn -> run id shown in its Run tab
        self.sub_title = workbench.project.root.name
        self._unsubscribe = None
        self.spark_heap_frozen = False

    # -- layout ---------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            yield ProjectTree()
            yield Container(Static(self._welcome(), id="welcome"), id="detail")
            yield ConsolePanel(self.workbench)
        yield RichLog(id="log-panel", markup=False, wrap=True, max_lines=2000)
        yield StatusBar()
        yield Footer()

    def _welcome(self) -> Text:
        return Text("Select a pipeline, landing zone or table in the tree.\n"
                    "r run · p preview · P publish · b roll back · x purge · w watch · ? help")

    def on_mount(self) -> None:
        self.set_interval(0.5, self._tick)
        if self.workbench.project.settings.keymap:
            self.set_keymap(self.workbench.project.settings.keymap)
        self._unsubscribe = self.workbench.events.subscribe(lambda e: self.post_message(CoreEvent(e)))
        self.query_one(StatusBar).update_status(master=self.workbench.project.settings.spark_master,
                                                watching=self.watch_enabled)
        self.query_one(ProjectTree).focus()
        self.refresh_tree()
        if self.watch_enabled:
            self.watcher.start()
        if self.warm_spark:
            self.warm_up()
        freeze_long_lived()
        if self.script is not None:
            self.run_script()
        else:
            self.auto_purge()
            self.set_interval(86400, self.auto_purge)
            if self.workbench.remote is not None:
                self.query_one(StatusBar).update_status(bucket=self.workbench.remote.config.bucket,
                                                        bucket_state="connecting")
                self.check_remote()
                self.set_interval(REMOTE_CHECK_SECONDS, self.check_remote)

    def _tick(self) -> None:
        """Elapsed times of running phases move even when no event arrives."""
        view = self._current(RunView)
        if view is not None and view.state is not None and view.state.status in ("queued", "running"):
            view.refresh_view()

    def on_core_event(self, message: CoreEvent) -> None:
        """Runs still in flight post events while the app closes and its panels are already gone: those
        events stop here, before the mixins' handlers (later in the MRO) look for the panels."""
        if self.closing:
            message.prevent_default()

    def on_unmount(self) -> None:
        release()
        self.watcher.stop()
        if self._unsubscribe:
            self._unsubscribe()

    def get_system_commands(self, screen):
        """The palette opens on the app's actions, group by group with their keys, then Textual's own
        (one provider, so the order is fixed; the palette lists discovery hits in the order given)."""
        for group in GROUPS:
            for k in self.keymap:
                if k.group == group:
                    yield SystemCommand(f"{group}: {k.palette}", f"key {key_label(k.key)}",
                                        lambda a=k.action: self.run_action(a))
        yield from super().get_system_commands(screen)

    # -- selection --------------------------------------------------------------------
    @on(Tree.NodeHighlighted, "#project-tree")
    def node_highlighted(self, event: Tree.NodeHighlighted) -> None:
        data = event.node.data
        if data is None or data == self.selected:
            return
        self.selected = data
        if data.kind in ("namespace", "layer", "group"):
            self.run_worker(self._replace_detail(GroupView(event.node)), group="detail", exclusive=True)
        else:
            self.load_detail(data)

    @on(DataTable.RowHighlighted, "#snapshots-table")
    def snapshot_highlighted(self, event: DataTable.RowHighlighted) -> None:
        view = self._current(TableView)
        if view is not None and event.row_key.value:
            self.run_in_worker("table preview", self.workbench.table_preview, view.fqn, int(event.row_key.value))

    @on(DataTable.RowHighlighted, "#versions-table")
    def version_highlighted(self, event: DataTable.RowHighlighted) -> None:
        view = self._current(PipelineView)
        if view is not None and event.row_key.value:
            self.show_version_diff(view.fqn, int(event.row_key.value))

    @on(DataTable.RowSelected, "#zone-files")
    def zone_file_selected(self, event: DataTable.RowSelected) -> None:
        view = self._current(ZoneView)
        if view is not None:
            name = str(event.row_key.value)
            self.run_in_worker("preview file", self.workbench.sample, view.namespace, view.zone, name,
                               done=lambda result: rows_shown(f"{view.namespace}/{view.zone}/{name}", result))

    # -- actions ------------------------------------------------------------------------

