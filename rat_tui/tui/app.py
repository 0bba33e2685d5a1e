"""The Textual application: wires the panels to the Workbench; every slow call runs in a thread worker."""
from __future__ import annotations

import asyncio
import difflib
import logging
import shlex
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.command import Hit, Hits, Provider
from textual.containers import Container, Horizontal
from textual.pilot import Pilot
from textual.widgets import DataTable, Footer, Header, RichLog, Static, Tree
from textual.worker import WorkerState

from ..core.commands.details import pipeline_detail, zone_files, zone_readers
from ..core.commands.workbench import Workbench
from ..core.errors import RatError
from ..core.events import (
    LogLine,
    PhaseFinished,
    QualityResultEvent,
    RunFinished,
    RunQueued,
    RunStarted,
    SessionStateChanged,
)
from ..core.landing.uploads import refresh_samples
from ..core.project.model import active_landing_files
from ..core.project.watch import PipelineChanged, ProjectWatcher, ZoneChanged
from .components.help_screen import HelpScreen
from .components.modals import (
    AskText,
    Confirm,
    PathSuggester,
    ZoneSettingsForm,
    purge_plan_text,
)
from .components.pipeline_view import PipelineView
from .components.project_tree import NodeData, ProjectTree
from .components.run_view import RunState, RunView
from .components.status_bar import StatusBar
from .components.table_view import TableView
from .components.zone_view import ZoneView
from .keymap import DEFAULT_KEYMAP, bindings, resolve_keymap
from .messages import ActionDone, ActionFailed, CoreEvent, FilesChanged, UploadProgress

log = logging.getLogger(__name__)
REMOTE_CHECK_SECONDS = 30  # how often the bucket is asked for colleagues' edits


def failure_sentence(action: str, exc: Exception) -> str:
    """One sentence for the screen; an internal bug (not a RatError) also keeps its traceback in the log."""
    if isinstance(exc, RatError):
        return exc.sentence()
    log.error("%s failed", action, exc_info=exc)
    return f"internal error ({type(exc).__name__}: {exc}); see .rat/logs/app.log"


class ActionCommands(Provider):
    """The command palette offers every keymap action by name."""

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        app = self.app
        assert isinstance(app, RatApp)
        for key in app.keymap:
            score = matcher.match(key.description)
            if score > 0:
                yield Hit(score, matcher.highlight(key.description), lambda a=key.action: app.run_action(a),
                          help=f"key {key.key}")


@dataclass
class ScriptJob:
    """A parsed `--script` that the app runs in a worker once it is on screen (headless)."""

    lines: list
    keep_going: bool = False
    events: bool = False


class RatApp(App):
    TITLE = "rat-tui"
    CSS_PATH = "app.tcss"
    BINDINGS = bindings(list(DEFAULT_KEYMAP))
    COMMANDS = App.COMMANDS | {ActionCommands}

    def __init__(self, workbench: Workbench, watch: bool | None = None, warm_spark: bool = True,
                 script: ScriptJob | None = None):
        super().__init__()
        self.script = script
        self.workbench = workbench
        settings = workbench.project.settings
        self.keymap = resolve_keymap(settings.keymap)
        self.watch_enabled = settings.watch_enabled if watch is None else watch
        self.warm_spark = warm_spark
        self._remote_check = threading.Lock()
        self.watcher = ProjectWatcher(workbench.project, lambda changes: self.post_message(FilesChanged(changes)),
                                      settings.watch_debounce_ms / 1000)
        self.selected: NodeData | None = None
        self.runs: dict[str, RunState] = {}
        self.latest_run: dict[str, str] = {}  # pipeline fqn -> run id shown in its Run tab
        self.sub_title = workbench.project.root.name
        self._unsubscribe = None

    # -- layout ---------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            yield ProjectTree()
            yield Container(Static(self._welcome(), id="welcome"), id="detail")
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

    # -- headless script --------------------------------------------------------------
    @work(thread=True, group="script")
    def run_script(self) -> None:
        import sys

        from ..script.commands import ScriptContext
        from ..script.executor import execute

        assert self.script is not None
        self.call_from_thread(self.wait_for_idle_screen)
        status = execute(ScriptContext(self.workbench, self), self.script.lines, sys.stdout,
                         self.script.keep_going, self.script.events)
        self.call_from_thread(self.exit, return_code=status)

    async def wait_for_idle_screen(self) -> None:
        """Until the tree and detail panels have loaded what the last key asked for."""
        busy = (WorkerState.PENDING, WorkerState.RUNNING)
        while any(w.state in busy for w in self.workers if w.group in ("tree", "detail", "version-diff")):
            await asyncio.sleep(0.02)
        await asyncio.sleep(0)

    def press_from_thread(self, keys: list[str]) -> None:
        self.call_from_thread(Pilot(self).press, *keys)
        self.call_from_thread(self.wait_for_idle_screen)

    def screenshot_from_thread(self, path: str) -> str:
        target = Path(path) if Path(path).is_absolute() else self.workbench.project.root / path
        svg = self.call_from_thread(self.export_screenshot)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(svg, encoding="utf-8")
        return str(target)

    def settle_from_thread(self, timeout: float | None) -> None:
        """Until saves seen by the watcher have been debounced and turned into runs."""
        deadline = None if timeout is None else time.monotonic() + timeout
        time.sleep(0.2)  # let the file system event arrive
        while self.watcher.pending or self.call_from_thread(self._auto_runs_busy):
            if deadline is not None and time.monotonic() > deadline:
                return
            time.sleep(0.05)

    def _auto_runs_busy(self) -> bool:
        return any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in self.workers if w.group == "watch")

    def screen_text(self) -> str:
        strips = self.screen._compositor.render_strips()
        return "\n".join("".join(segment.text for segment in strip) for strip in strips)

    def wait_for_text(self, text: str, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while True:
            if text in self.call_from_thread(self.screen_text):
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)

    def _tick(self) -> None:
        """Elapsed times of running phases move even when no event arrives."""
        view = self._current(RunView)
        if view is not None and view.state is not None and view.state.status in ("queued", "running"):
            view.refresh_view()

    def on_unmount(self) -> None:
        self.watcher.stop()
        if self._unsubscribe:
            self._unsubscribe()

    # -- workers --------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="tree")
    def refresh_tree(self) -> None:
        overview = self.workbench.overview()
        self.call_from_thread(lambda: self.query_one(ProjectTree).load(overview, self.selected))

    @work(thread=True, group="spark")
    def warm_up(self) -> None:
        self.workbench.spark.start_background()
        try:
            done = self.workbench.cleanup_leftovers()
        except RatError as exc:
            self.post_message(ActionFailed("start Spark", exc.sentence()))
            return
        for line in done:
            self.post_message(ActionDone("recovery", line))

    @work(thread=True, exclusive=True, group="detail")
    def load_detail(self, node: NodeData) -> None:
        wb = self.workbench
        try:
            if node.kind == "pipeline" and node.ref is not None:
                detail = pipeline_detail(wb, node.ref)
                runs = wb.runs(node.ref.fqn, limit=20)["runs"]
                versions = wb.list_versions(node.ref.fqn)
                self.call_from_thread(self._show_pipeline, node, detail, runs, versions)
            elif node.kind == "zone":
                files = zone_files(wb, node.namespace, node.name)
                readers = zone_readers(wb, node.namespace, node.name)
                settings = wb.zone_settings(node.namespace, node.name)
                self.call_from_thread(self._show_zone, node, files, readers, settings)
            elif node.kind == "table" and node.ref is not None:
                snaps = wb.snapshots(node.ref.fqn)
                table = wb.table_schema(node.ref.fqn)
                self.call_from_thread(self._show_table, node, snaps, table)
        except RatError as exc:
            self.post_message(ActionFailed(f"show {node.kind} {node.name}", exc.sentence()))

    def run_in_worker(self, action: str, fn, *args, done: str = "", **kwargs) -> None:
        """Run a Workbench call off the UI thread; report the outcome as a message."""
        self._work(action, fn, args, kwargs, done)

    @work(thread=True, group="actions")
    def _work(self, action: str, fn, args, kwargs, done: str) -> None:
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:
            self.post_message(ActionFailed(action, failure_sentence(action, exc)))
            return
        self.post_message(ActionDone(action, done.format(result=result) if done else "", result))

    # -- showing things ---------------------------------------------------------------
    def _detail(self):
        return self.query_one("#detail", Container)

    async def _replace_detail(self, widget) -> None:
        detail = self._detail()
        await detail.remove_children()
        await detail.mount(widget)

    async def _show_pipeline(self, node: NodeData, detail: dict, runs: list[dict], versions: dict) -> None:
        if node != self.selected:
            return
        view = self._current(PipelineView)
        if view is None or view.fqn != node.ref.fqn:
            view = PipelineView(node.ref.fqn)
            await self._replace_detail(view)
        self._fill_pipeline(view, detail, runs, versions)

    def _fill_pipeline(self, view: PipelineView, detail: dict, runs: list[dict], versions: dict) -> None:
        view.show_source(detail)
        view.show_runs(runs)
        view.show_versions(versions)
        fqn = view.fqn
        run_id = self.latest_run.get(fqn) or (runs[0]["run_id"] if runs else None)
        state = self.runs.get(run_id) if run_id else None
        if state is None and runs:
            state = RunState.from_record(runs[0])
        previous = [r for r in runs if state is None or r["run_id"] != state.run_id][:10]
        view.query_one(RunView).show(state, [r for r in previous if r["status"] == "success"])
        if versions["versions"]:
            self.show_version_diff(fqn, versions["current"])

    def _current(self, kind):
        found = self._detail().query(kind)
        return found.first() if found else None

    async def _show_zone(self, node: NodeData, files: list[dict], readers: list[str], settings: dict) -> None:
        if node != self.selected:
            return
        view = self._current(ZoneView)
        if view is None or (view.namespace, view.zone) != (node.namespace, node.name):
            view = ZoneView(node.namespace, node.name)
            await self._replace_detail(view)
        view.show_files(files, readers, settings)

    async def _show_table(self, node: NodeData, snaps: dict, schema: str) -> None:
        if node != self.selected:
            return
        view = TableView(node.ref.fqn)
        await self._replace_detail(view)
        view.show_snapshots(snaps, schema)

    @work(thread=True, exclusive=True, group="version-diff")
    def show_version_diff(self, fqn: str, version: int | None) -> None:
        if version is None:
            return
        wb = self.workbench
        ref = wb.resolve(fqn)
        pinned = next(v for v in wb.versions.published(ref) if v.version == version)
        files = wb.versions.read_pinned(ref, pinned)
        working = wb.project.read_pipeline_files(ref)
        lines: list[str] = []
        for name in sorted(set(files) | set(working)):
            old = files.get(name, b"").decode("utf-8", "replace").splitlines(keepends=True)
            new = working.get(name, b"").decode("utf-8", "replace").splitlines(keepends=True)
            lines += difflib.unified_diff(old, new, f"v{version}/{name}", f"working/{name}")
        view = self._current(PipelineView)
        if view is not None and view.fqn == fqn:
            self.call_from_thread(view.show_version_diff, "".join(lines))

    # -- events from the core ---------------------------------------------------------
    def on_core_event(self, message: CoreEvent) -> None:
        event = message.event
        status = self.query_one(StatusBar)
        if isinstance(event, SessionStateChanged):
            status.update_status(spark_state=event.state, spark_reason=event.reason, executors=event.executors,
                                 cores=event.cores)
            if event.state == "failed":
                self.notify(event.reason, title="Spark did not start", severity="error", timeout=10)
        if isinstance(event, RunQueued):
            self.runs[event.run_id] = RunState(event.run_id, event.pipeline)
            self.latest_run[event.pipeline] = event.run_id
        state = self.runs.get(getattr(event, "run_id", None) or "")
        if state is not None:
            state.apply(event)
        if isinstance(event, (RunQueued, RunStarted, RunFinished)):
            queued, running = self.workbench.runner.queued_and_running()
            status.update_status(queued=queued, running=running)
        view = self._current(RunView)
        if view is not None:
            pipeline_view = self._current(PipelineView)
            if isinstance(event, RunQueued) and pipeline_view is not None and pipeline_view.fqn == event.pipeline:
                view.show(self.runs[event.run_id], view.previous)
                pipeline_view.show_tab("tab-run")  # a save in the editor shows its run live
            elif state is not None:
                view.changed(state.run_id)
        self._log_event(event)
        if isinstance(event, RunFinished):
            self.runs.pop(event.run_id, None)  # from now on the stored record (with samples) is the truth
            severity = {"success": "information", "cancelled": "warning"}.get(event.status, "error")
            self.notify(event.error or f"{event.rows_written:,} rows written", title=f"{event.pipeline}: {event.status}",
                        severity=severity, timeout=6)
            self.refresh_tree()
            if self.selected is not None:
                self.load_detail(self.selected)

    def _log_event(self, event) -> None:
        log = self.query_one("#log-panel", RichLog)
        stamp = time.strftime("%H:%M:%S", time.localtime(event.at))
        if isinstance(event, LogLine):
            style = {"error": "red", "warn": "yellow"}.get(event.level, "")
            log.write(Text(f"{stamp} [{event.run_id or '-'}] {event.message}", style=style))
        elif isinstance(event, PhaseFinished):
            log.write(Text(f"{stamp} [{event.run_id}] {event.phase} {'ok' if event.ok else 'FAILED'} "
                           f"in {event.ms} ms{'' if event.ok else ': ' + event.message}", style="" if event.ok else "red"))
        elif isinstance(event, QualityResultEvent):
            log.write(f"{stamp} [{event.run_id}] quality {event.name}: {event.status} ({event.violations})")
        elif isinstance(event, (RunQueued, RunStarted, RunFinished)):
            log.write(f"{stamp} [{event.run_id}] {event.kind} {event.pipeline}"
                      + (f" {event.status}" if isinstance(event, RunFinished) else ""))
        elif isinstance(event, SessionStateChanged):
            log.write(f"{stamp} Spark {event.state} {event.reason}")

    def on_files_changed(self, message: FilesChanged) -> None:
        for change in message.changes:
            if isinstance(change, PipelineChanged):
                self.auto_run(change)
            elif isinstance(change, ZoneChanged):
                self.refresh_zone(change)
        self.refresh_tree()

    @work(thread=True, group="zone")
    def refresh_zone(self, change: ZoneChanged) -> None:
        """New or changed files in a zone get fresh samples; the zone panel reloads."""
        zone_dir = self.workbench.project.zone_dir(change.namespace, change.zone)
        try:
            refresh_samples(zone_dir, active_landing_files(zone_dir))
        except Exception as exc:  # a half-written or unreadable file: the upload check reports it
            self.post_message(ActionFailed(f"sample of {change.namespace}/{change.zone}", str(exc).splitlines()[0]))
        if self.selected is not None and (self.selected.kind, self.selected.namespace, self.selected.name) == (
                "zone", change.namespace, change.zone):
            self.load_detail(self.selected)
        if change.active and self.workbench.project.settings.watch_run_on_landing and active_landing_files(zone_dir):
            for fqn in zone_readers(self.workbench, change.namespace, change.zone):
                handle = self.workbench.request_run(self.workbench.resolve(fqn), trigger="landing")
                self.post_message(ActionDone("auto-run", f"new files in {change.zone}: running {fqn} ({handle.run_id})"))

    @work(thread=True, exclusive=True, group="remote")
    def check_remote(self) -> None:
        """Connect on the first call, then look for colleagues' edits; new files come in at once."""
        remote = self.workbench.remote
        assert remote is not None
        if not self._remote_check.acquire(blocking=False):
            return  # the previous check is still waiting on the bucket: do not pile up
        try:
            self._check_remote(remote)
        finally:
            self._remote_check.release()

    def _check_remote(self, remote) -> None:
        try:
            first = not remote.connected
            pulled = remote.connect()["pulled"] if first else remote.refresh()
        except Exception as exc:  # never let a network problem close the app
            sentence = failure_sentence("checking the bucket", exc)
            state = "refused credentials" if "credentials" in sentence else "unreachable"
            if self.query_one(StatusBar).bucket_state != state:
                self.post_message(ActionFailed("bucket", sentence))
            self.call_from_thread(self.query_one(StatusBar).update_status, bucket_state=state)
            return
        waiting = len(remote.changes)
        self.call_from_thread(self.query_one(StatusBar).update_status,
                              bucket_state=f"{waiting} change(s) to pull" if waiting else "in step")
        if first or pulled or remote.changes:
            self.call_from_thread(self.refresh_tree)
        if pulled:
            self.post_message(ActionDone("bucket", f"pulled {len(pulled)} new file(s) from the bucket"))

    @work(thread=True, group="purge")
    def auto_purge(self) -> None:
        try:
            result = self.workbench.auto_purge()
        except Exception as exc:  # e.g. the bucket is unreachable: try again tomorrow, say so now
            self.post_message(ActionFailed("auto-purge", failure_sentence("auto-purge", exc)))
            return
        if result["purged"]:
            self.post_message(ActionDone("auto-purge", f"removed {result['purged']} old processed landing file(s)"))

    def _zone(self) -> tuple[str, str] | None:
        if self.selected is None or self.selected.kind != "zone":
            self.notify("Select a landing zone first.", severity="warning")
            return None
        return self.selected.namespace, self.selected.name

    def action_upload(self) -> None:
        if (selected := self._zone()) is None:
            return
        namespace, zone = selected

        def chosen(value: str | None) -> None:
            if not value:
                return
            paths = shlex.split(value)
            self.run_in_worker("upload", self.workbench.upload, namespace, zone, paths,
                               progress=lambda name, copied, total: self.post_message(UploadProgress(name, copied, total)),
                               done=f"uploaded {{result[files]}} into {namespace}/{zone}")

        self.push_screen(AskText(f"Upload into {namespace}/landing/{zone}: file paths (space-separated, → completes)",
                                 "~/Downloads/orders_2024_05.csv", suggester=PathSuggester()), chosen)

    def action_zone_settings(self) -> None:
        if (selected := self._zone()) is None:
            return
        namespace, zone = selected

        def save(values: dict | None) -> None:
            if values is not None:
                self.run_in_worker("zone settings", self.workbench.set_zone_settings, namespace, zone,
                                   done=f"{namespace}/{zone}: settings saved to rat.yaml", **values)

        self.push_screen(ZoneSettingsForm(f"Landing zone {namespace}/{zone}",
                                          self.workbench.zone_settings(namespace, zone)), save)

    def on_upload_progress(self, message: UploadProgress) -> None:
        view = self._current(ZoneView)
        if view is not None:
            view.show_progress(message.name, message.copied, message.total)

    @work(thread=True, group="watch")
    def auto_run(self, change: PipelineChanged) -> None:
        wb = self.workbench
        for path, problem in wb.record_saves(change.paths).items():  # a failed upload does not stop the draft run
            self.post_message(ActionFailed(f"save {path}", problem))
        if not wb.project.pipeline_dir(change.pipeline).is_dir():
            return
        try:
            handle = wb.request_run(change.pipeline, trigger="watch")
        except RatError as exc:
            self.post_message(ActionFailed(f"auto-run {change.pipeline.fqn}", exc.sentence()))
            return
        self.post_message(ActionDone("auto-run", f"saved: running {change.pipeline.fqn} ({handle.run_id})"))

    def on_action_done(self, message: ActionDone) -> None:
        if message.summary:
            self.notify(message.summary, title=message.action)
        if message.action == "pull":
            self.check_remote()
        if message.action in ("publish", "rollback", "rollback table", "purge", "compact", "doctor fix", "upload",
                              "zone settings", "pull"):
            self.refresh_tree()
            if self.selected is not None:
                self.load_detail(self.selected)
        if message.action == "preview":
            view = self._current(PipelineView)
            if view is not None:
                view.show_preview(message.result)
                view.show_tab("tab-preview")
        elif message.action == "preview file":
            view = self._current(ZoneView)
            if view is not None:
                view.show_preview(message.result)
        elif message.action == "table preview":
            view = self._current(TableView)
            if view is not None:
                view.show_preview(message.result)
        elif message.action == "diff":
            view = self._current(TableView)
            if view is not None:
                view.show_diff(message.result["diff"], message.result["old"], message.result["new"])
        elif message.action == "doctor":
            found = message.result["findings"]
            detail = "\n".join(f"{f['kind']}: {f['object']} — {f['detail']} (fix: {f['fix']})" for f in found)
            if not found:
                self.notify("No inconsistencies found.", title="doctor")
            else:
                self.push_screen(Confirm(f"Apply the fixes of {len(found)} finding(s)?", detail),
                                 lambda ok: ok and self.run_in_worker("doctor fix", self.workbench.doctor, True,
                                                                      done="fixes applied"))
        elif message.action == "purge plan":
            self.push_screen(Confirm("Purge all of this?", purge_plan_text(message.result)), self._purge_confirmed)

    def on_action_failed(self, message: ActionFailed) -> None:
        self.notify(message.error, title=f"{message.action} failed", severity="error", timeout=10)
        self.query_one("#log-panel", RichLog).write(Text(f"{message.action} failed: {message.error}", style="red"))

    # -- selection --------------------------------------------------------------------
    @on(Tree.NodeHighlighted, "#project-tree")
    def node_highlighted(self, event: Tree.NodeHighlighted) -> None:
        data = event.node.data
        if data is None or data.kind == "namespace" or data == self.selected:
            return
        self.selected = data
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
            self.run_in_worker("preview file", self.workbench.sample, view.namespace, view.zone, str(event.row_key.value))

    # -- actions ------------------------------------------------------------------------
    def _pipeline(self) -> str | None:
        if self.selected is None or self.selected.kind not in ("pipeline", "table") or self.selected.ref is None:
            self.notify("Select a pipeline first.", severity="warning")
            return None
        return self.selected.ref.fqn

    def _submit(self, published: bool) -> None:
        fqn = self._pipeline()
        if fqn is None:
            return
        view = self._current(PipelineView)
        if view is not None:
            view.show_tab("tab-run")
        self.run_in_worker("run", self.workbench.submit, fqn, published=published)

    def action_run(self) -> None:
        self._submit(published=False)

    def action_run_published(self) -> None:
        self._submit(published=True)

    def action_cancel(self) -> None:
        fqn = self._pipeline()
        active = [rid for rid, h in self.workbench.runner.active.items() if h.record.pipeline == fqn]
        if not active:
            self.notify(f"No run of {fqn} is queued or running.", severity="warning")
            return
        for run_id in active:
            self.workbench.cancel(run_id)
        self.notify(f"Cancelling {len(active)} run(s) of {fqn}")

    def action_preview(self) -> None:
        fqn = self._pipeline()
        if fqn is not None:
            self.run_in_worker("preview", self.workbench.preview, fqn, 50, done="")

    def action_publish(self) -> None:
        fqn = self._pipeline()
        if fqn is None:
            return

        def publish(message: str | None) -> None:
            if message is not None:
                self.run_in_worker("publish", self.workbench.publish, fqn, message,
                                   done=f"{fqn}: published version {{result[version]}}")

        self.push_screen(AskText(f"Publish {fqn}: message", "what changed?"), publish)

    def action_rollback(self) -> None:
        fqn = self._pipeline()
        if fqn is None:
            return
        current = self.workbench.list_versions(fqn)["current"]
        if current is None:
            self.notify(f"{fqn} has no published version yet.", severity="warning")
            return
        view = self._current(PipelineView)
        highlighted = view.selected_version() if view is not None else None
        default = highlighted if highlighted not in (None, current) else max(current - 1, 1)

        def chosen(value: str | None) -> None:
            if not value:
                return
            try:
                version = int(value)
            except ValueError:
                self.notify(f"'{value}' is not a version number.", severity="error")
                return
            self.push_screen(
                Confirm(f"Roll back {fqn} to version {version}?",
                        "Pins that version as a new published version and restores its files to the working "
                        "folder. The working copy is saved as a file version first, so nothing is lost."),
                lambda ok: ok and self.run_in_worker(
                    "rollback", self.workbench.rollback, fqn, version, True,
                    done=f"{fqn}: version {{result[version]}} pins version {version}"))

        self.push_screen(AskText(f"Roll back {fqn} to which version? (current: {current})", value=str(default)), chosen)

    def action_rollback_table(self) -> None:
        view = self._current(TableView)
        snapshot = view.selected_snapshot() if view is not None else None
        if view is None or snapshot is None:
            self.notify("Select a table and one of its snapshots first.", severity="warning")
            return
        self.push_screen(
            Confirm(f"Point main of {view.fqn} at snapshot {snapshot}?",
                    "Later snapshots stay in history until purged, so this can be undone."),
            lambda ok: ok and self.run_in_worker("rollback table", self.workbench.rollback_table, view.fqn, snapshot,
                                                 done=f"{view.fqn}: main is now snapshot {snapshot}"))

    def action_diff(self) -> None:
        view = self._current(TableView)
        snapshot = view.selected_snapshot() if view is not None else None
        previous = view.previous_of(snapshot) if snapshot is not None else None
        if previous is None:
            self.notify("Select a snapshot that has an earlier one.", severity="warning")
            return

        def diff() -> dict:
            return {"diff": self.workbench.diff_snapshots(view.fqn, previous, snapshot), "old": previous, "new": snapshot}

        self.run_in_worker("diff", diff)

    def action_compact(self) -> None:
        fqn = self._pipeline()
        if fqn is not None:
            self.run_in_worker("compact", self.workbench.compact, fqn,
                               done=f"{fqn}: {{result[files_before]}} data files → {{result[files_after]}}")

    def action_doctor(self) -> None:
        def check() -> dict:
            try:
                return self.workbench.doctor()
            except RatError as exc:  # findings are the answer here, not a failure
                return exc.result

        self.run_in_worker("doctor", check)

    def action_purge(self) -> None:
        self.run_in_worker("purge plan", self.workbench.purge, True)

    def _purge_confirmed(self, ok: bool | None) -> None:
        if ok:
            self.run_in_worker("purge", self.workbench.purge, False, done="purged {result[purged]}")

    def action_toggle_watch(self) -> None:
        self.watch_enabled = not self.watch_enabled
        if self.watch_enabled:
            self.watcher.start()
        else:
            self.watcher.stop()
        self.query_one(StatusBar).update_status(watching=self.watch_enabled)
        self.notify(f"Watch {'on' if self.watch_enabled else 'off'}")

    def action_pull(self) -> None:
        """Bring the bucket's newer files in: of the selected pipeline, or all of them."""
        remote = self.workbench.remote
        if remote is None:
            self.notify("This project has no bucket (set storage: in rat.yaml).", severity="warning")
            return
        ref = self.selected.ref if self.selected is not None and self.selected.kind == "pipeline" else None
        base = f"{ref.relpath.as_posix()}/" if ref is not None else ""
        paths = [base.rstrip("/")] if ref is not None else None
        conflicts = [p for p, state in remote.changes.items() if state == "conflict" and p.startswith(base)]

        def pull(force: bool) -> None:
            self.run_in_worker("pull", self._pull, paths, force, done="pulled {result[count]} file(s) from the bucket")

        if conflicts:
            self.push_screen(Confirm(f"Take the bucket's copy of {len(conflicts)} file(s) you also edited?",
                                     "\n".join(conflicts) + "\n\nYour edits are kept as local versions (versions panel)."),
                             lambda yes: pull(True) if yes else None)
        else:
            pull(False)

    def _pull(self, paths: list[str] | None, force: bool) -> dict:
        return {"count": len(self.workbench.pull(paths, force)["pulled"])}

    def action_refresh(self) -> None:
        self.refresh_tree()
        if self.selected is not None:
            self.load_detail(self.selected)

    def action_toggle_log(self) -> None:
        self.query_one("#log-panel").toggle_class("shown")

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.keymap))

    def action_focus_tree(self) -> None:
        self.query_one(ProjectTree).focus()

    def action_focus_detail(self) -> None:
        self._detail().focus()
