"""Thread workers: every call into the command layer that may wait on Spark, disk or the bucket.

They report back by posting messages (or `call_from_thread` for a view that is already shown).
"""
from __future__ import annotations

import difflib
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import work

from ..core.commands.details import pipeline_detail, zone_files, zone_readers
from ..core.errors import RatError
from ..core.lake.session import SessionState
from ..core.landing.uploads import refresh_samples
from ..core.project.model import active_landing_files
from ..core.project.watch import PipelineChanged, ZoneChanged
from .components.pipeline_view import PipelineView
from .components.project_tree import NodeData, ProjectTree
from .components.status_bar import StatusBar
from .messages import ActionDone, ActionFailed

if TYPE_CHECKING:
    from ..core.commands.workbench import Workbench

log = logging.getLogger(__name__)
Summary = str | Callable[[Any], str]


def failure_sentence(action: str, exc: Exception) -> str:
    """One sentence for the screen; an internal bug (not a RatError) also keeps its traceback in the log."""
    if isinstance(exc, RatError):
        return exc.sentence()
    log.error("%s failed", action, exc_info=exc)
    return f"internal error ({type(exc).__name__}: {exc}); see .rat/logs/app.log"


class Workers:
    """Mixed into the app: the workers; the view handlers (`views.py`) fill the panels with their results."""

    workbench: Workbench
    selected: NodeData | None
    _remote_check: threading.Lock

    @work(thread=True, exclusive=True, group="tree")
    def refresh_tree(self) -> None:
        read_at = time.time()  # run events after this moment may not be in the overview yet
        overview = self.workbench.overview()
        self._update(ProjectTree, "load", overview, read_at)

    def _update(self, kind, method: str, *args, **kwargs) -> None:
        """From a worker: call a main-screen widget's method on the UI thread. A worker may finish as the
        app closes, when the widget is already gone: then there is nothing to update."""
        def apply() -> None:
            found = self.query(kind)
            if found and not self.closing:
                getattr(found.first(), method)(*args, **kwargs)

        self.call_from_thread(apply)

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
        self.workbench.warm_up()  # after the recovery, which would only interrupt it

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

    def run_in_worker(self, action: str, fn, *args, done: Summary = "", **kwargs) -> None:
        """Run a Workbench call off the UI thread; report the outcome as a message whose summary is
        `done` (a sentence, or a function of the result that returns one)."""
        self._work(action, fn, args, kwargs, done)

    @work(thread=True, group="actions")
    def _work(self, action: str, fn, args, kwargs, done: Summary) -> None:
        try:
            result = fn(*args, **kwargs)
            summary = done(result) if callable(done) else done
        except Exception as exc:
            self.post_message(ActionFailed(action, failure_sentence(action, exc)))
            return
        self.post_message(ActionDone(action, summary, result))

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

    @work(thread=True, group="zone")
    def refresh_zone(self, change: ZoneChanged) -> None:
        """New or changed files in a zone get fresh samples; the zone panel reloads."""
        zone_dir = self.workbench.project.zone_dir(change.namespace, change.zone)
        try:
            refresh_samples(zone_dir, active_landing_files(zone_dir))
        except Exception as exc:  # a half-written or unreadable file: the upload check reports it
            self.post_message(ActionFailed(f"sample of {change.namespace}/{change.zone}", str(exc).splitlines()[0]))
        def zone_shown() -> bool:
            selected = self.selected
            return selected is not None and (selected.kind, selected.namespace, selected.name) == (
                "zone", change.namespace, change.zone)

        if zone_shown():
            self.load_detail(self.selected)
        auto_run = change.active and self.workbench.project.settings.watch_run_on_landing and active_landing_files(zone_dir)
        readers = zone_readers(self.workbench, change.namespace, change.zone) if auto_run else []
        if readers:
            for fqn in readers:
                handle = self.workbench.request_run(self.workbench.resolve(fqn), trigger="landing")
                self.post_message(ActionDone("auto-run", f"new files in {change.zone}: running {fqn} ({handle.run_id})"))
        elif change.active and self.workbench.spark.state in (SessionState.READY, SessionState.BUSY):
            # Converted now, on the warm session, so the next run reads Parquet; an auto-run reads the CSV itself.
            try:
                typed = self.workbench.make_typed_twins(change.namespace, change.zone)
            except Exception as exc:  # the runs read the CSV then: slower, never wrong
                self.post_message(ActionFailed(f"typed copy of {change.namespace}/{change.zone}",
                                               failure_sentence("typed copy", exc)))
                return
            if typed["typed"] and zone_shown():
                self.load_detail(self.selected)

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
            shown = self.query(StatusBar)  # the app may be closing
            if shown and shown.first().bucket_state != state:
                self.post_message(ActionFailed("bucket", sentence))
            self._update(StatusBar, "update_status", bucket_state=state)
            return
        waiting = len(remote.changes)
        self._update(StatusBar, "update_status", bucket_state=f"{waiting} change(s) to pull" if waiting else "in step")
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
        if wb.project.settings.watch_cascade:  # graph_actions.py: the downstream, once this run succeeded
            self.cascade(change.pipeline.fqn, handle)
