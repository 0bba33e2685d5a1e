"""A pipeline: source with highlighting, effective config with its sources, runs, versions, preview, its
triggers and ticks, unit tests.

It loads what it shows in thread workers (its detail, a version's diff against the working copy) and
fills itself from the messages they post; the app feeds it run events (a run's end with its final record,
which the Run and Runs tabs show without reading it back) and the preview's result."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from rich.console import Group
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.message import Message
from textual.widgets import DataTable, Static, TabbedContent, TabPane

from ...core.commands.browse_results import QueryResult
from ...core.commands.details import PipelineDetail, pipeline_detail
from ...core.commands.run_results import RunList
from ...core.commands.unit_results import ListedUnitTest
from ...core.commands.version_diff import version_diff
from ...core.commands.versions import VersionList
from ...core.events import Event, RunQueued
from ...core.store.state import RunRecord
from ..keymap import key_label
from .automation_pane import AutomationPane
from .freshness_view import PipelineFreshness
from .intervals_pane import IntervalsPane
from .loading import app_closing, post_loaded
from .project_tree import NodeData
from .result_table import event_row_key, selected_key, show_rows
from .run_view import LiveRuns, RunState, RunView, note_line, run_total
from .unit_tests_pane import UnitTestsPane

if TYPE_CHECKING:
    from ...core.compose import Workbench


RUNS_SHOWN = 20  # the Runs tab's last runs


class PipelineView(Vertical):
    @dataclass
    class Loaded(Message, bubble=False):
        detail: PipelineDetail
        runs: RunList
        versions: VersionList
        unit_tests: list[ListedUnitTest]

    @dataclass
    class DiffLoaded(Message, bubble=False):
        diff: str

    @dataclass
    class UnitTestsLoaded(Message, bubble=False):
        tests: list[ListedUnitTest]

    @dataclass
    class RunEnded(Message, bubble=False):
        record: RunRecord  # a run of this pipeline as it ended
        impact: list[str]  # a held one's: what its change of columns breaks downstream

    def __init__(self, workbench: Workbench, node: NodeData, live_runs: LiveRuns) -> None:
        super().__init__(id="pipeline-view")
        assert node.ref is not None
        self.workbench, self.node, self.live_runs = workbench, node, live_runs
        self.fqn = node.ref.fqn
        self.runs: dict[str, RunRecord] = {}  # the Runs tab's, by run id

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="detail")
    def load(self) -> None:
        wb, ref = self.workbench, self.node.ref
        post_loaded(self, f"show pipeline {self.node.name}", lambda: self.Loaded(
            pipeline_detail(wb.project, ref), runs_with_impact(wb, ref.fqn), wb.versions.list_versions(ref.fqn),
            wb.unit_tests.unit_test_listing(ref)))

    @work(thread=True, exclusive=True, group="unit-tests")
    def load_unit_tests(self) -> None:
        """The Tests tab again, after its tests ran or one was written."""
        post_loaded(self, f"list the unit tests of {self.fqn}",
                    lambda: self.UnitTestsLoaded(self.workbench.unit_tests.unit_test_listing(self.node.ref)))

    @on(UnitTestsLoaded)
    def _unit_tests_loaded(self, message: UnitTestsLoaded) -> None:
        if not app_closing(self.app):
            self.query_one(UnitTestsPane).show(message.tests)

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        if app_closing(self.app):
            return
        self.show_source(message.detail)
        if message.detail.partitioned and not self.query("#tab-intervals"):
            self.query_one(TabbedContent).add_pane(TabPane("Intervals", IntervalsPane(self.workbench, self.fqn),
                                                           id="tab-intervals"))
        self.show_runs(message.runs)
        self.show_versions(message.versions)
        self.query_one(UnitTestsPane).show(message.unit_tests)
        state = self.live_runs.shown(self.fqn, message.runs)
        previous = [r for r in message.runs.runs if state is None or r.run_id != state.run_id][:10]
        self.query_one(RunView).show(state, [r for r in previous if r.status == "success"])
        if message.versions.current is not None:
            self.load_version_diff(message.versions.current)

    def run_event(self, event: Event, state: RunState | None) -> None:
        """A run event (the app has applied it to `state`): a run of this pipeline queued shows live."""
        view = self.query_one(RunView)
        if isinstance(event, RunQueued) and event.pipeline == self.fqn:
            view.show(state, view.previous)
            self.show_tab("tab-run")  # a save in the editor shows its run live
        elif state is not None:
            view.changed(state.run_id)

    def run_finished(self, record: RunRecord) -> None:
        """A run of this pipeline ended with `record`: the Run and Runs tabs show it as it is stored. A held
        run's impact downstream is worked out in a worker (column lineage reads the schemas)."""
        if record.status == "awaiting_review":
            self.load_impact(record)
        else:
            self._run_ended(self.RunEnded(record, []))

    @work(thread=True, group="run-impact")
    def load_impact(self, record: RunRecord) -> None:
        post_loaded(self, f"impact of run {record.run_id}",
                    lambda: self.RunEnded(record, self.workbench.review.impact(record)))

    @on(RunEnded)
    def _run_ended(self, message: RunEnded) -> None:
        if app_closing(self.app):
            return
        record, impact = message.record, message.impact
        older = [r for r in self.runs.values() if r.run_id != record.run_id]
        self.show_runs(RunList([record, *older][:RUNS_SHOWN], {record.run_id: impact} if impact else {}))
        view = self.query_one(RunView)
        if view.state is None or view.state.run_id == record.run_id:  # not when a newer run shows live
            view.show(RunState.from_record(record, impact), view.previous)

    def show_tab(self, tab: str) -> None:
        self._on_tabs(lambda tabs: setattr(tabs, "active", tab))

    def step_tab(self, step: int) -> None:
        """The next (1) or previous (-1) tab, wrapping around."""
        def step_on(tabs: TabbedContent) -> None:
            ids = [pane.id for pane in tabs.query(TabPane)]
            tabs.active = ids[(ids.index(tabs.active) + step) % len(ids)]
        self._on_tabs(step_on)

    def _on_tabs(self, do: Callable[[TabbedContent], None], tries: int = 250) -> None:
        """A view opened a moment ago may still be composing or mounting its tabs (Textual: "No Tab with
        id" on a slow machine): then once they are (looked at every 20 ms, for 5 s at most)."""
        if not self.is_attached:
            return
        try:
            tabs = self.query_one(TabbedContent)
            if not tabs.active:  # its tab bar's initial tab has yet to reach it, and would undo this one
                raise ValueError("not mounted")
            do(tabs)
        except (NoMatches, ValueError):
            if tries:  # the app's timer: the view's own queue may not run yet
                self.app.set_timer(0.02, lambda: self._on_tabs(do, tries - 1))

    def compose(self) -> ComposeResult:
        with TabbedContent(initial="tab-source"):
            with TabPane("Source", id="tab-source"):
                yield VerticalScroll(PipelineFreshness(self.workbench.freshness, self.fqn),
                                     Static(Text("loading…", style="grey50"), id="pipeline-source"))
            with TabPane("Run", id="tab-run"):
                yield VerticalScroll(RunView())
            with TabPane("Runs", id="tab-runs"):
                yield DataTable(id="runs-table", cursor_type="row")
                yield VerticalScroll(Static(id="run-error"), id="run-error-scroll")
            with TabPane("Versions", id="tab-versions"):
                yield DataTable(id="versions-table", cursor_type="row")
                yield VerticalScroll(Static(id="version-diff"))
            with TabPane("Preview", id="tab-preview"):
                yield Static(id="preview-note")
                yield DataTable(id="preview-table")
            with TabPane("Automation", id="tab-automation"):
                yield AutomationPane(self.workbench.automation, self.fqn, self.workbench.project.state_dir)
            with TabPane("Tests", id="tab-tests"):
                yield UnitTestsPane()

    def show_source(self, detail: PipelineDetail) -> None:
        config = Table(title="Effective config", title_justify="left", box=None, header_style="bold")
        for column in ("key", "value", "from"):
            config.add_column(column)
        for key, value in detail.config.items():
            source = detail.sources.get(key, "default")
            shown = ", ".join(value) if isinstance(value, list) else "—" if value is None else str(value)
            config.add_row(key, shown, Text(source, style={"annotation": "cyan", "config.yaml": "magenta"}.get(source, "grey50")))
        tests = Table(title="Quality tests", title_justify="left", box=None, header_style="bold")
        for column in ("test", "severity", "description"):
            tests.add_column(column)
        for test in detail.tests:
            tests.add_row(test.name, Text(test.severity, style="red" if test.severity == "error" else "yellow"),
                          test.description)
        header = Text.assemble((detail.fqn, "bold"), "  ", (detail.description, "italic grey70"))
        problems = Text("\n".join(detail.problems), style="red") if detail.problems else Text("")
        source = Syntax(detail.source, "sql" if detail.kind == "sql" else "python", line_numbers=True,
                        theme="ansi_dark", word_wrap=True)
        self.query_one("#pipeline-source", Static).update(Group(header, problems, source, Text(""), config, Text(""), tests))

    def show_runs(self, runs: RunList) -> None:
        self.runs = {run.run_id: run for run in runs.runs}
        table = self.query_one("#runs-table", DataTable)
        table.clear(columns=True)
        table.add_columns("run", "status", "started (UTC)", "version", "trigger", "rows", "total")
        for run in runs.runs:
            table.add_row(run.run_id, run.status, utc_time(run.started_at, seconds=True), run.version,
                          run.trigger, f"{run.rows_written:,}", run_total(run.started_at, run.finished_at),
                          key=run.run_id)
        self.show_run_error(runs.runs[0].run_id if runs.runs else None)

    @on(DataTable.RowHighlighted, "#runs-table")
    def _run_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_run_error(event_row_key(event))

    def show_run_error(self, run_id: str | None) -> None:
        """The highlighted run's whole error, or its notes, wrapped under the table (a column would cut them)."""
        run = self.runs.get(run_id or "")
        error = self.query_one("#run-error", Static)
        notes = run.notes if run else []
        if run and run.error:
            error.update(Text.assemble((f"Run {run_id}: ", "bold"), (run.error, "red")))
        else:
            error.update(Text("\n").join([Text(f"Run {run_id}:", style="bold"), *map(note_line, notes)]) if notes else "")
        error.display = bool(run and (run.error or notes))

    def show_versions(self, versions: VersionList) -> None:
        table = self.query_one("#versions-table", DataTable)
        table.clear(columns=True)
        table.add_columns("", "version", "message", "published", "pinned from")
        for v in reversed(versions.versions):
            current = "▶" if v.version == versions.current else ""
            table.add_row(current, str(v.version), v.message, utc_time(v.published_at), str(v.pinned_from or ""),
                          key=str(v.version))
        if not versions.versions:
            self.query_one("#version-diff", Static).update(Text("Not published yet. Press P to publish.", style="grey50"))

    @on(DataTable.RowHighlighted, "#versions-table")
    def _version_highlighted(self, event: DataTable.RowHighlighted) -> None:
        version = event_row_key(event)
        if version:
            self.load_version_diff(int(version))

    @work(thread=True, exclusive=True, group="version-diff")
    def load_version_diff(self, version: int) -> None:
        wb = self.workbench
        post_loaded(self, f"diff of {self.fqn} version {version}", lambda: self.DiffLoaded(
            version_diff(wb.project, wb.version_store, self.node.ref, version).text))

    @on(DiffLoaded)
    def _diff_loaded(self, message: DiffLoaded) -> None:
        if app_closing(self.app):
            return
        diff = message.diff
        body = Syntax(diff, "diff", theme="ansi_dark") if diff else Text("Working copy equals this version.", style="green")
        self.query_one("#version-diff", Static).update(body)

    def selected_version(self) -> int | None:
        key = selected_key(self.query_one("#versions-table", DataTable))
        return int(key) if key is not None else None

    def show_preview(self, result: QueryResult) -> None:
        key = next((key_label(k.key) for k in getattr(self.app, "keymap", []) if k.id == "unit_fixture"), "U")
        hint = Text(f"{key} writes a unit test from this preview (tests/unit/preview.yaml).", style="grey50")
        note = Text(result.note + "\n", style="yellow") if result.note else Text("")
        shown = self.query_one("#preview-note", Static)
        shown.update(note + hint)
        shown.display = True
        show_rows(self.query_one("#preview-table", DataTable), result.columns, result.rows)


def utc_time(at: float | None, seconds: bool = False) -> str:
    return "" if at is None else datetime.fromtimestamp(at, timezone.utc).strftime(
        "%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


def runs_with_impact(wb: Workbench, fqn: str) -> RunList:
    """The pipeline's last runs, newest first; a newest one awaiting review with what it breaks downstream."""
    runs = wb.browse.runs(fqn, limit=RUNS_SHOWN).runs
    newest = runs[0] if runs else None
    held = newest is not None and newest.status == "awaiting_review"
    return RunList(runs, {newest.run_id: wb.review.impact(newest)} if held else {})
