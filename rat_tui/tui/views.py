"""Filling the detail panels: results of workers, events from the core, and outcomes of actions."""
from __future__ import annotations

import asyncio
import time
from functools import cached_property
from typing import TYPE_CHECKING

from rich.text import Text
from textual.containers import Container
from textual.widgets import RichLog

from ..core.events import (
    LogLine,
    PhaseFinished,
    QualityResultEvent,
    RunFinished,
    RunQueued,
    RunStarted,
    SessionStateChanged,
)
from ..core.project.watch import PipelineChanged, ZoneChanged
from .components.modals import Confirm, purge_plan_text
from .components.pipeline_view import PipelineView
from .components.project_tree import NodeData, ProjectTree
from .components.run_view import RunState, RunView
from .components.status_bar import StatusBar
from .components.table_view import TableView
from .components.zone_view import ZoneView
from .heap import freeze_long_lived
from .messages import ActionDone, ActionFailed, CoreEvent, FilesChanged, UploadProgress
from .outcomes import count, doctor, purge_total

# Run marks in the tree, per run event (RunFinished carries its own status).
RUN_MARK_STATUS = {RunQueued: "queued", RunStarted: "running"}
# Outcomes shown in a panel: logged, not toasted.
LOG_ONLY = {"preview", "preview file", "diff"}
# Outcomes that change what the tree and the detail show.
RELOADS = {"publish", "rollback", "rollback table", "purge", "compact", "doctor fix", "upload", "zone settings", "pull"}

if TYPE_CHECKING:
    from ..core.commands.workbench import Workbench
    from .components.selection_view import SelectionProgress


class Views:
    """Mixed into the app: handlers that put data on screen."""

    workbench: Workbench
    selected: NodeData | None
    runs: dict[str, RunState]
    latest_run: dict[str, str]
    spark_heap_frozen: bool
    selection: SelectionProgress | None  # graph_actions.py

    def _detail(self):
        return self.query_one("#detail", Container)

    @cached_property
    def _detail_lock(self) -> asyncio.Lock:
        return asyncio.Lock()

    @property
    def closing(self) -> bool:
        """Textual clears `_running` as its shutdown begins: from then on it prunes the panels while
        messages and workers may still arrive, and what they would fill is dropped."""
        return not getattr(self, "_running", True)

    async def _replace_detail(self, widget) -> bool:
        """Show `widget` as the detail panel; False when another replacement took its place meanwhile
        (two reloads at once), so the caller leaves the removed view unfilled."""
        async with self._detail_lock:  # two removes then two mounts would mount twice
            found = self.query("#detail")
            if not found or self.closing:
                return False
            await found.first().remove_children()
            await found.first().mount(widget)
        return widget.is_attached and not self.closing

    async def _show_pipeline(self, node: NodeData, detail: dict, runs: list[dict], versions: dict) -> None:
        if node != self.selected:
            return
        view = self._current(PipelineView)
        if view is None or view.fqn != node.ref.fqn:
            view = PipelineView(node.ref.fqn)
            if not await self._replace_detail(view):
                return
            live = self.runs.get(self.latest_run.get(view.fqn, ""))
            if live is not None and live.status in ("queued", "running"):
                view.show_tab("tab-run")  # opening a pipeline that is running shows the run
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
        """The detail panel's view of that kind; None while another view replaces it or the app closes."""
        if self._detail_lock.locked() or self.closing:
            return None
        found = self.query(f"#detail {kind.__name__}")
        return found.first() if found else None

    async def _show_zone(self, node: NodeData, files: list[dict], readers: list[str], settings: dict) -> None:
        if node != self.selected:
            return
        view = self._current(ZoneView)
        if view is None or (view.namespace, view.zone) != (node.namespace, node.name):
            view = ZoneView(node.namespace, node.name)
            if not await self._replace_detail(view):
                return
        view.show_files(files, readers, settings)

    async def _show_table(self, node: NodeData, snaps: dict, schema: str) -> None:
        if node != self.selected:
            return
        view = TableView(node.ref.fqn)
        if await self._replace_detail(view):
            view.show_snapshots(snaps, schema)

    def on_core_event(self, message: CoreEvent) -> None:
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
        if isinstance(event, RunQueued):
            self.runs[event.run_id] = RunState(event.run_id, event.pipeline)
            self.latest_run[event.pipeline] = event.run_id
        state = self.runs.get(getattr(event, "run_id", None) or "")
        if state is not None:
            state.apply(event)
        if isinstance(event, (RunQueued, RunStarted, RunFinished)):
            queued, running = self.workbench.runner.queued_and_running()
            status.update_status(queued=queued, running=running)
            mark = RUN_MARK_STATUS.get(type(event)) or getattr(event, "status", None)
            self.query_one(ProjectTree).set_run_status(event.pipeline, mark, event.at)
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
            if self.selection is None or not self.selection.owns(event.run_id):  # a selection says it once, at its end
                self.notify(event.error or f"{count(event.rows_written, 'row')} written",
                            title=f"{event.pipeline}: {event.status}", severity=severity, timeout=6)
            self.refresh_tree()
            if self.selected is not None:
                self.load_detail(self.selected)

    def log_line(self, text: str, style: str = "", at: float | None = None) -> None:
        """One readable, time-stamped line in the log panel (`l`)."""
        if self.closing:  # a worker's outcome arriving as the app exits: the panel may be gone
            return
        stamp = time.strftime("%H:%M:%S", time.localtime(at))
        self.query_one("#log-panel", RichLog).write(Text(f"{stamp} {text}", style=style))

    def _log_event(self, event) -> None:
        at = event.at
        if isinstance(event, LogLine):
            style = {"error": "red", "warn": "yellow"}.get(event.level, "")
            self.log_line(f"[{event.run_id or '-'}] {event.message}", style, at)
        elif isinstance(event, PhaseFinished):
            self.log_line(f"[{event.run_id}] {event.phase} {'ok' if event.ok else 'FAILED'} in {event.ms} ms"
                          f"{'' if event.ok else ': ' + event.message}", "" if event.ok else "red", at)
        elif isinstance(event, QualityResultEvent):
            self.log_line(f"[{event.run_id}] quality test {event.name}: {event.status} "
                          f"({count(event.violations, 'violation', 'violations')})", at=at)
        elif isinstance(event, RunFinished):
            rows = f", {count(event.rows_written, 'row', 'rows')} written" if event.status == "success" else ""
            self.log_line(f"[{event.run_id}] {event.pipeline}: run {event.status}{rows}"
                          + (f": {event.error}" if event.error else ""), "" if event.status == "success" else "red", at)
        elif isinstance(event, (RunQueued, RunStarted)):
            self.log_line(f"[{event.run_id}] {event.pipeline}: run {RUN_MARK_STATUS[type(event)]}", at=at)
        elif isinstance(event, SessionStateChanged):
            self.log_line(f"Spark {event.state} {event.reason}".rstrip(), at=at)

    def on_files_changed(self, message: FilesChanged) -> None:
        for change in message.changes:
            if isinstance(change, PipelineChanged):
                self.auto_run(change)
            elif isinstance(change, ZoneChanged):
                self.refresh_zone(change)
        self.refresh_tree()

    def on_upload_progress(self, message: UploadProgress) -> None:
        view = self._current(ZoneView)
        if view is not None:
            view.show_progress(message.name, message.copied, message.total)

    def _upload_ended(self) -> None:
        view = self._current(ZoneView)
        if view is not None:
            view.upload_ended()

    def on_action_done(self, message: ActionDone) -> None:
        if message.summary:
            self.log_line(message.summary)
            if message.action not in LOG_ONLY:
                self.notify(message.summary, title=message.action)
        if message.action == "pull":
            self.check_remote()
        if message.action == "upload":
            self._upload_ended()
        if message.action in RELOADS:
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
            self._doctor_found(message.result["findings"])
        elif message.action == "purge plan":
            total = purge_total(message.result["purged"])
            if not total:
                self.log_line("Purge: nothing to purge.")
                self.notify("Purge: nothing to purge.", title="purge", timeout=10)
                return
            question = f"Purge {count(total, 'item', 'items')}?"
            self.log_line(f"Purge: {count(total, 'item', 'items')} can go; asking first.")
            self.push_screen(Confirm(question, purge_plan_text(message.result)), self._purge_confirmed)

    def _doctor_found(self, found: list[dict]) -> None:
        sentence = doctor(found)
        self.log_line(sentence, "" if not found else "yellow")
        if not found:  # the answer people wait for: long enough to read
            self.notify(sentence, title="doctor", timeout=12)
            return
        detail = "\n".join(f"{f['kind']}: {f['object']} — {f['detail']} (fix: {f['fix']})" for f in found)
        self.push_screen(Confirm(f"Apply the fixes of {count(len(found), 'finding', 'findings')}?", detail),
                         lambda ok: ok and self.run_in_worker(
                             "doctor fix", self.workbench.doctor, True,
                             done=lambda result: f"Doctor: fixed {count(len(result['findings']), 'finding', 'findings')}."))

    def on_action_failed(self, message: ActionFailed) -> None:
        self.notify(message.error, title=f"{message.action} failed", severity="error", timeout=10)
        self.log_line(f"{message.action} failed: {message.error}", "red")
        if message.action == "upload":
            self._upload_ended()
