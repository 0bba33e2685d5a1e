"""Key actions: each reads the tree's selection, asks what it must (a modal) and hands the work to a worker."""
from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from textual.widgets import DataTable

from ..core.commands.console_text import sql_name
from ..core.errors import RatError
from .components.console import ConsolePanel
from .components.help_screen import HelpScreen
from .components.modals import AskText, Confirm, PathSuggester, ZoneSettingsForm
from .components.pipeline_view import PipelineView
from .components.project_tree import NodeData, ProjectTree
from .components.status_bar import StatusBar
from .components.table_view import TableView
from .keymap import KeyAction, key_label
from .messages import UploadProgress
from .outcomes import count, diffed, purged, rows_shown, uploaded

if TYPE_CHECKING:
    from ..core.commands.workbench import Workbench
    from ..core.project.watch import ProjectWatcher


class Actions:
    """Mixed into the app: the `action_*` methods the keymap binds."""

    workbench: Workbench
    watcher: ProjectWatcher
    selected: NodeData | None
    watch_enabled: bool
    keymap: list[KeyAction]

    def _target(self, action_id: str) -> NodeData | None:
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

    def _zone(self, action_id: str) -> tuple[str, str] | None:
        data = self._target(action_id)
        return (data.namespace, data.name) if data is not None else None

    def _pipeline(self, action_id: str) -> str | None:
        data = self._target(action_id)
        return data.ref.fqn if data is not None and data.ref is not None else None

    def action_upload(self) -> None:
        if (selected := self._zone("upload")) is None:
            return
        namespace, zone = selected

        def chosen(value: str | None) -> None:
            if not value:
                return
            paths = shlex.split(value)
            self.run_in_worker("upload", self.workbench.upload, namespace, zone, paths,
                               progress=lambda name, copied, total: self.post_message(UploadProgress(name, copied, total)),
                               done=lambda result: uploaded(result, namespace, zone))

        self.push_screen(AskText(f"Upload into {namespace}/landing/{zone}: file paths (space-separated, → completes)",
                                 "~/Downloads/orders_2024_05.csv", suggester=PathSuggester()), chosen)

    def action_zone_settings(self) -> None:
        if (selected := self._zone("zone_settings")) is None:
            return
        namespace, zone = selected

        def save(values: dict | None) -> None:
            if values is not None:
                self.run_in_worker("zone settings", self.workbench.set_zone_settings, namespace, zone,
                                   done=f"{namespace}/{zone}: settings saved to rat.yaml", **values)

        self.push_screen(ZoneSettingsForm(f"Landing zone {namespace}/{zone}",
                                          self.workbench.zone_settings(namespace, zone)), save)

    def _submit(self, published: bool) -> None:
        fqn = self._pipeline("run_published" if published else "run")
        if fqn is None:
            return
        view = self._current(PipelineView)
        if view is not None and view.fqn == fqn:
            view.show_tab("tab-run")
        self.run_in_worker("run", self.workbench.submit, fqn, published=published)

    def action_run(self) -> None:
        self._submit(published=False)

    def action_run_published(self) -> None:
        self._submit(published=True)

    def action_cancel(self) -> None:
        fqn = self._pipeline("cancel")
        if fqn is None:
            return
        active = [rid for rid, h in self.workbench.runner.active.items() if h.record.pipeline == fqn]
        if not active:
            self.notify(f"No run of {fqn} is queued or running.", severity="warning")
            return
        for run_id in active:
            self.workbench.cancel(run_id)
        sentence = f"Cancelling {count(len(active), 'run', 'runs')} of {fqn}."
        self.notify(sentence)
        self.log_line(sentence)

    def action_preview(self) -> None:
        fqn = self._pipeline("preview")
        if fqn is not None:
            self.run_in_worker("preview", self.workbench.preview, fqn, 50,
                               done=lambda result: rows_shown(f"{fqn}: preview", result))

    def action_publish(self) -> None:
        fqn = self._pipeline("publish")
        if fqn is None:
            return

        def publish(message: str | None) -> None:
            if message is not None:
                self.run_in_worker("publish", self.workbench.publish, fqn, message,
                                   done=lambda result: f"{fqn}: published version {result['version']}"
                                   + (f" ({message})." if message else "."))

        self.push_screen(AskText(f"Publish {fqn}: message", "what changed?"), publish)

    def action_rollback(self) -> None:
        fqn = self._pipeline("rollback")
        if fqn is None:
            return
        current = self.workbench.list_versions(fqn)["current"]
        if current is None:
            self.notify(f"{fqn} has no published version yet.", severity="warning")
            return
        view = self._current(PipelineView)
        highlighted = view.selected_version() if view is not None and view.fqn == fqn else None
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
                    done=lambda result: f"{fqn}: version {result['version']} pins version {version}; "
                                        "its files are restored."))

        self.push_screen(AskText(f"Roll back {fqn} to which version? (current: {current})", value=str(default)), chosen)

    def _table_view(self, action_id: str) -> TableView | None:
        data = self._target(action_id)
        view = self._current(TableView)
        if data is None or view is None or view.fqn != data.ref.fqn:
            return None
        return view

    def action_rollback_table(self) -> None:
        view = self._table_view("rollback_table")
        snapshot = view.selected_snapshot() if view is not None else None
        if view is None or snapshot is None:
            return
        self.push_screen(
            Confirm(f"Point main of {view.fqn} at snapshot {snapshot}?",
                    "Later snapshots stay in history until purged, so this can be undone."),
            lambda ok: ok and self.run_in_worker("rollback table", self.workbench.rollback_table, view.fqn, snapshot,
                                                 done=f"{view.fqn}: main is now snapshot {snapshot}."))

    def action_diff(self) -> None:
        view = self._table_view("diff")
        if view is None:
            return
        snapshot = view.selected_snapshot()
        previous = view.previous_of(snapshot) if snapshot is not None else None
        if previous is None:
            self.notify("d diffs a snapshot with the one before it; this snapshot is the first.", severity="warning")
            return

        def diff() -> dict:
            return {"diff": self.workbench.diff_snapshots(view.fqn, previous, snapshot), "old": previous, "new": snapshot}

        self.run_in_worker("diff", diff, done=lambda result: diffed(view.fqn, result["diff"], previous, snapshot))

    def action_compact(self) -> None:
        fqn = self._pipeline("compact")
        if fqn is not None:
            self.run_in_worker("compact", self.workbench.compact, fqn,
                               done=lambda result: f"{fqn}: compacted {count(result['files_before'], 'data file')} into "
                                                   f"{result['files_after']}.")

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
            self.run_in_worker("purge", self.workbench.purge, False, done=lambda result: purged(result["purged"]))

    def action_toggle_watch(self) -> None:
        self.set_watch(not self.watch_enabled)
        self.notify(f"Watch {'on' if self.watch_enabled else 'off'}")

    def set_watch(self, on: bool) -> bool:
        if on and not self.watcher.running:
            self.watcher.start()
        elif not on:
            self.watcher.stop()
        self.watch_enabled = on
        self.query_one(StatusBar).update_status(watching=on)
        return on

    def action_pull(self) -> None:
        """Bring the bucket's newer files in: of the selected pipeline, or all of them."""
        remote = self.workbench.remote
        if remote is None:
            self.notify("This project has no bucket (set storage: in rat.yaml).", severity="warning")
            return
        data = self.query_one(ProjectTree).cursor_data
        ref = data.ref if data is not None and data.kind == "pipeline" else None
        base = f"{ref.relpath.as_posix()}/" if ref is not None else ""
        paths = [base.rstrip("/")] if ref is not None else None
        conflicts = [p for p, state in remote.changes.items() if state == "conflict" and p.startswith(base)]

        def pull(force: bool) -> None:
            self.run_in_worker("pull", self._pull, paths, force,
                               done=lambda result: f"Pulled {count(result['count'], 'file', 'files')} from the bucket.")

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

    def action_next_tab(self) -> None:
        self._switch_tab(1)

    def action_prev_tab(self) -> None:
        self._switch_tab(-1)

    def _switch_tab(self, step: int) -> None:
        """Tabs switch from anywhere ([ and ]), not only with the tab bar focused."""
        view = self._current(PipelineView)
        if view is None:
            shown = self.selected.describe() if self.selected is not None else "nothing"
            self.notify(f"Only a pipeline's panel has tabs; the right side shows {shown}.", severity="warning")
            return
        view.step_tab(step)

    def action_console(self, insert: bool = False) -> None:
        """s opens the SQL console; i also inserts, at the editor's cursor, the name of the column under
        the cursor of a focused table preview, else the name of the table under the tree's cursor."""
        name = None
        if insert:
            name = self._preview_column()
            if name is None and (data := self._target("console_insert")) is not None and data.ref is not None:
                name = sql_name(data.ref.namespace, data.ref.layer, data.ref.name)
        if not insert or name is not None:
            self.query_one(ConsolePanel).open(name)

    def _preview_column(self) -> str | None:
        grid = self.focused
        if isinstance(grid, DataTable) and grid.id == "snapshot-preview" and grid.ordered_columns:
            return sql_name(str(grid.ordered_columns[grid.cursor_column].label))
        return None

    def action_focus_tree(self) -> None:
        self.query_one(ProjectTree).focus()

    def action_focus_detail(self) -> None:
        self._detail().focus()
