"""SVG snapshots of the main screens and modals at a fixed size (pytest-textual-snapshot).

Update them with `pytest tests/tui/test_snapshots.py --snapshot-update` after a deliberate UI change.
Everything here is the real app on a copy of the sample; where the screen would show what changes
from run to run (run ids, clocks, Iceberg snapshot ids, publish times), the test fixes it: runs are
recorded in state.db and fed as events with fixed times, and the table and versions panels get
fixed answers from the command layer. What those panels do with live data is tested elsewhere.
"""
from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from devkit.pilot import select, until
from rat_tui.core.commands.browse_results import Overview, TableOverview
from rat_tui.core.commands.table_results import TableHistory, TablePreview
from rat_tui.core.commands.versions import VersionList
from rat_tui.core.compose import Workbench
from rat_tui.core.events import PhaseFinished, PhaseProgress, PhaseStarted, RunQueued, RunStarted
from rat_tui.core.lake.history import HistoryEntry
from rat_tui.core.project.model import PipelineRef
from rat_tui.core.store.state import QualityOutcome
from rat_tui.core.unittests.execute import UnitResult
from rat_tui.tui.components import run_view
from tests.snapshothelpers import PHASES, QUERY_REFUSED, T0, compare, make_app, record_failed_run, record_run, settle

RAW_ORDERS = "ecommerce.bronze.raw_orders"


def press_until(key: str, text: str, zone: str | None = None):
    """A run_before: (select a zone,) press one key, wait until `text` is on screen."""
    async def run_before(pilot) -> None:
        if zone is not None:
            await select(pilot, "zone", zone)
        await settle(pilot)
        await pilot.press(key)
        await until(pilot, lambda: text in pilot.app.screen_text(), 20, repr(text))
        await settle(pilot)

    return run_before


def test_project_tree_and_welcome(snap_compare, sample_copy: Path):
    assert compare(snap_compare, make_app(sample_copy), settle)


def test_pipeline_source_with_config_sources(snap_compare, sample_copy: Path):
    async def open_pipeline(pilot) -> None:
        await select(pilot, "pipeline", "ecommerce.silver.clean_orders")
        await settle(pilot)

    assert compare(snap_compare, make_app(sample_copy), open_pipeline)


def test_help_screen_lists_every_key(snap_compare, sample_copy: Path):
    assert compare(snap_compare, make_app(sample_copy), press_until("question_mark", "Marks in the tree"))


def test_palette_opens_on_the_apps_actions(snap_compare, sample_copy: Path):
    assert compare(snap_compare, make_app(sample_copy), press_until("ctrl+p", "Run: Run the selected pipeline"))


def test_run_view_live(snap_compare, sample_copy: Path, monkeypatch: pytest.MonkeyPatch):
    start = time.time()  # events must be newer than the tree's data, so their marks show
    monkeypatch.setattr(run_view, "time", SimpleNamespace(time=lambda: start + 4.2))  # the elapsed times

    async def live(pilot) -> None:
        app = pilot.app
        await select(pilot, "pipeline", RAW_ORDERS)
        await settle(pilot)
        publish = app.workbench.events.publish
        publish(RunQueued("a1b2c3d4", RAW_ORDERS, at=start))
        publish(RunStarted("a1b2c3d4", RAW_ORDERS, "draft", at=start + 0.1))
        for offset, phase, ms in ((0.1, "branch_creation", 48), (0.2, "config_loading", 1)):
            publish(PhaseStarted("a1b2c3d4", phase, at=start + offset))
            publish(PhaseFinished("a1b2c3d4", phase, ms, True, at=start + offset + ms / 1000))
        publish(PhaseStarted("a1b2c3d4", "build_result", at=start + 0.3))
        publish(PhaseProgress("a1b2c3d4", "build_result", 41, 96, at=start + 4.0))
        await until(pilot, lambda: "41/96 tasks" in app.screen_text(), 10, "the live run")
        await settle(pilot)

    assert compare(snap_compare, make_app(sample_copy), live)


def test_run_view_finished(snap_compare, sample_copy: Path):
    app = make_app(sample_copy)
    fqn = "ecommerce.silver.clean_orders"
    record_run(app.workbench, "0f1e2d3c", fqn, T0, {k: v * 2 for k, v in PHASES.items()}, 300)
    record_run(app.workbench, "9a8b7c6d", fqn, T0 + 3600, PHASES, 300, [
        QualityOutcome("no_null_ids", "error", "passed", 0, 41),
        QualityOutcome("positive_amounts", "warn", "warned", 2, 38, [{"order_id": 17, "amount": -3.5}])])

    async def finished(pilot) -> None:
        await select(pilot, "pipeline", fqn)
        await settle(pilot)
        await pilot.press("]")  # Source → Run
        await settle(pilot)

    assert compare(snap_compare, app, finished)


async def test_the_phase_times_chart_shows_every_figure_whole(sample_copy: Path):
    """At 120 columns the chart cut this run's 588 ms to `58`: the figure came after a bar that filled the
    column. Figures come first now, so a narrow panel cuts a bar's end, never a number."""
    app = make_app(sample_copy)
    fqn = "ecommerce.silver.clean_orders"
    record_run(app.workbench, "0f1e2d3c", fqn, T0, {k: v * 2 for k, v in PHASES.items()}, 300)
    record_run(app.workbench, "9a8b7c6d", fqn, T0 + 3600, PHASES, 300)
    async with app.run_test(size=(100, 40)) as pilot:
        await select(pilot, "pipeline", fqn)
        await settle(pilot)
        await pilot.press("]")
        await until(pilot, lambda: "Phase times" in pilot.app.screen_text(), 20, "the chart")
        lines = pilot.app.screen_text().split("Phase times", 1)[1].splitlines()
        for phase, ms in PHASES.items():
            row = next(line for line in lines if f" {phase} " in line)
            assert f" {ms} " in row and f" {ms * 2} " in row, row


def test_unit_tests_tab_with_a_failure(snap_compare, sample_copy: Path):
    """Outcomes as `T` leaves them (fixed times); what T does live is in test_tui_unit_tests.py."""
    app = make_app(sample_copy)
    fqn = "ecommerce.silver.clean_orders"
    app.workbench.unit_tests.unit_last.update({
        (fqn, "types_and_cleans"): UnitResult(fqn, "types_and_cleans", "passed", ms=412),
        (fqn, "updates_in_place"): UnitResult(
            fqn, "updates_in_place", "failed", [{"order_id": 1, "status": "shipped"}],
            [{"order_id": 1, "status": "paid"}, {"order_id": 2, "status": "placed"}],
            "ecommerce/pipelines/silver/clean_orders/tests/unit/updates_in_place.yaml: 1 expected row(s) missing, "
            "2 unexpected row(s) (expect.table_after)", ms=530, failed_in=["table_after"])})

    async def tests_tab(pilot) -> None:
        await select(pilot, "pipeline", fqn)
        await settle(pilot)
        await pilot.press("[")  # Source → Tests (the last tab)
        await settle(pilot)

    assert compare(snap_compare, app, tests_tab)


def fixed_mtimes(project: Path) -> None:
    """The zone panel prints each file's modification time; a copy's is now."""
    for file in (project / "ecommerce" / "landing" / "orders").rglob("*.csv"):
        os.utime(file, (T0, T0))


def test_zone_view_with_a_file_preview(snap_compare, sample_copy: Path):
    fixed_mtimes(sample_copy)

    async def zone(pilot) -> None:
        await select(pilot, "zone", "ecommerce.orders")
        await settle(pilot)
        pilot.app.query_one("#zone-files").focus()
        await pilot.press("enter")
        await until(pilot, lambda: pilot.app.query_one("#zone-preview").row_count > 0, 20, "the file preview")
        await settle(pilot)

    assert compare(snap_compare, make_app(sample_copy), zone)


TABLE = PipelineRef("ecommerce", "bronze", "raw_orders")
SNAPSHOTS = {"snapshots": [
    {"kind": "create", "snapshot_id": 1111111111111111111, "base_snapshot_id": None,
     "snapshot_ids": [1111111111111111111], "committed_at": "2024-06-01T09:00:00+00:00", "operation": "append", "run_id": None,
     "strategy": None, "added_rows": 0, "updated_rows": 0, "deleted_rows": 0, "total_rows": 0, "on_main": True,
     "is_current": False},
    {"kind": "run", "snapshot_id": 2222222222222576867, "base_snapshot_id": 1111111111111111111,
     "snapshot_ids": [2222222222222576867], "committed_at": "2024-06-01T09:00:02+00:00", "operation": "append", "run_id": "9a8b7c6d",
     "strategy": "incremental", "added_rows": 300, "updated_rows": 0, "deleted_rows": 0, "total_rows": 300,
     "on_main": True, "is_current": False},
    {"kind": "run", "snapshot_id": 3333333333333333333, "base_snapshot_id": 2222222222222576867,
     "snapshot_ids": [3333333333333333000, 3333333333333333333], "committed_at": "2024-06-02T09:00:02+00:00",
     "operation": "append", "run_id": "5e4f3a2b", "strategy": "incremental", "added_rows": 4, "updated_rows": 2, "deleted_rows": 0,
     "total_rows": 304, "on_main": True, "is_current": True}],
    "refs": {"main": 3333333333333333333}}
PREVIEW = {"snapshot_id": 2222222222222576867, "columns": ["order_id", "customer_id", "amount", "status"],
           "rows": [[1, 17, "35.50", "shipped"], [2, 4, "12.00", "new"], [3, 17, "99.90", "returned"]]}


def fixed_table(wb: Workbench, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table in the tree and its panel, with fixed snapshot ids (real ones are random)."""
    overview = wb.browse.overview

    def with_table() -> Overview:
        found = overview()
        ns = next(n for n in found.namespaces if n.name == "ecommerce")
        ns.tables[:] = [TableOverview(TABLE, 3333333333333333333, None)]
        return found

    monkeypatch.setattr(wb.browse, "overview", with_table)
    monkeypatch.setattr(wb.tables, "history", lambda fqn: TableHistory([HistoryEntry(**e) for e in SNAPSHOTS["snapshots"]],
                                                                SNAPSHOTS["refs"]))
    monkeypatch.setattr(wb.tables, "table_schema", lambda fqn: "order_id bigint, customer_id bigint, amount decimal(10,2), "
                                                        "status string")
    monkeypatch.setattr(wb.tables, "table_preview",
                        lambda fqn, snapshot_id=None, limit=20: TablePreview(**{**PREVIEW, "snapshot_id": snapshot_id}))


def test_table_view_with_preview(snap_compare, sample_copy: Path, monkeypatch: pytest.MonkeyPatch):
    app = make_app(sample_copy)
    fixed_table(app.workbench, monkeypatch)

    async def table(pilot) -> None:
        await select(pilot, "table", RAW_ORDERS)
        await until(pilot, lambda: "Preview at snapshot" in pilot.app.screen_text(), 20, "the preview")
        await settle(pilot)

    assert compare(snap_compare, app, table)


def test_versions_with_diff(snap_compare, sample_copy: Path, monkeypatch: pytest.MonkeyPatch):
    app = make_app(sample_copy)
    wb = app.workbench
    fqn = "ecommerce.gold.monthly_orders"
    source = sample_copy / "ecommerce" / "pipelines" / "gold" / "monthly_orders" / "pipeline.sql"
    wb.versions.publish(fqn, "first cut")
    source.write_text(source.read_text().replace("SELECT", "SELECT -- counted per month\n ", 1))
    wb.versions.publish(fqn, "a comment")
    source.write_text(source.read_text() + "-- a working-copy edit\n")
    versions = wb.versions.list_versions

    def fixed_times(pipeline: str) -> VersionList:
        return VersionList([replace(v, published_at=T0 + 60 * v.version) for v in versions(pipeline).versions])

    monkeypatch.setattr(wb.versions, "list_versions", fixed_times)

    async def open_versions(pilot) -> None:
        await select(pilot, "pipeline", fqn)
        await settle(pilot)
        await pilot.press("]", "]", "]")  # Source → Run → Runs → Versions
        await until(pilot, lambda: "working/pipeline.sql" in pilot.app.screen_text(), 20, "the diff")
        await settle(pilot)

    assert compare(snap_compare, app, open_versions)


def test_purge_lists_what_it_would_remove(snap_compare, sample_copy: Path):
    old = sample_copy / "ecommerce" / "landing" / "orders" / "_processed" / "0f1e2d3c" / "orders_2023_12.csv"
    old.parent.mkdir(parents=True)
    old.write_text("order_id\n1\n")
    os.utime(old, (T0, T0))
    assert compare(snap_compare, make_app(sample_copy), press_until("x", "Purge 1 item?"))


def test_doctor_reports_a_clean_project(snap_compare, sample_copy: Path):
    assert compare(snap_compare, make_app(sample_copy), press_until("D", "no inconsistencies"))


def test_upload_prompt(snap_compare, sample_copy: Path):
    fixed_mtimes(sample_copy)
    assert compare(snap_compare, make_app(sample_copy), press_until("u", "Upload into", zone="ecommerce.orders"))


def test_runs_tab_with_start_times_and_a_whole_error(snap_compare, sample_copy: Path):
    app = make_app(sample_copy)
    fqn = "ecommerce.silver.clean_orders"
    record_run(app.workbench, "0f1e2d3c", fqn, T0, PHASES, 300)
    record_failed_run(app.workbench, "9a8b7c6d", fqn, T0 + 3605, QUERY_REFUSED)

    async def runs(pilot) -> None:
        await select(pilot, "pipeline", fqn)
        await settle(pilot)
        await pilot.press("]", "]")  # Source → Run → Runs
        await until(pilot, lambda: "INTEGRAL" in pilot.app.screen_text(), 20, "the error under the table")
        await settle(pilot)

    assert compare(snap_compare, app, runs)


def test_zone_settings_refused_keeps_the_dialog(snap_compare, sample_copy: Path):
    fixed_mtimes(sample_copy)
    async def refused(pilot) -> None:
        await press_until("e", "Keep processed files", zone="ecommerce.orders")(pilot)
        pilot.app.screen.query_one("#max-age").value = "0"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "must be a positive number" in pilot.app.screen_text(), 10, "the refusal")
        await settle(pilot)

    assert compare(snap_compare, make_app(sample_copy), refused)


def test_run_view_failed_with_a_whole_error(snap_compare, sample_copy: Path):
    app = make_app(sample_copy)
    fqn = "ecommerce.silver.clean_orders"
    record_failed_run(app.workbench, "9a8b7c6d", fqn, T0, QUERY_REFUSED)

    async def failed(pilot) -> None:
        await select(pilot, "pipeline", fqn)
        await settle(pilot)
        await pilot.press("]")  # Source → Run
        await until(pilot, lambda: "FAILED" in pilot.app.screen_text(), 20, "the failed run")
        await settle(pilot)

    assert compare(snap_compare, app, failed)
