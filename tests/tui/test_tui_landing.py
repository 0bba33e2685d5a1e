"""Landing zones in the app: each file's detected dialect shown and pinned into rat.yaml, a run that found
nothing new marked as such, and a run that reloads files its load history says were loaded."""
from __future__ import annotations

import shutil

import pytest
from ruamel.yaml import YAML

from devkit.pilot import notifications, screen, select, until
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.lineage_view import LineageView
from rat_tui.tui.components.pipeline_view import PipelineView
from tests.tuihelpers import tree_label
from rat_tui.tui.components.run_view import RunView
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark
SIZE = (160, 45)


def cells(app: RatApp, column: int) -> dict[str, str]:
    table = app.query_one("#zone-files")
    return {table.get_row_at(i)[0]: str(table.get_row_at(i)[column]) for i in range(table.row_count)}


async def test_the_detected_dialect_is_shown_and_pinned_for_the_next_run(scratch: Scratch):
    scratch.landing("names", "a.csv", "1;ann\n2;bob\n")
    fqn = scratch.pipeline("bronze", "names", "-- @merge_strategy: full_refresh\n"
                           "SELECT * FROM {{ landing_zone('names') }}")
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "zone", f"{scratch.ns}.names")
        await until(pilot, lambda: "read by:" in screen(app), 20, "the zone panel")
        assert cells(app, 2) == {"a.csv": "';'-separated, no header"}
        await pilot.press("E")
        await until(pilot, lambda: "Pin the dialect of a.csv" in screen(app), 20, "the confirmation")
        assert "delimiter: ';'" in screen(app) and "header: false" in screen(app)
        await pilot.press("y")
        rat_yaml = scratch.wb.project.root / "rat.yaml"
        await until(pilot, lambda: rat_yaml.exists() and f"{scratch.ns}/names" in rat_yaml.read_text(), 20,
                    "rat.yaml to hold the zone's dialect")
    csv = YAML().load(rat_yaml.read_text())["zones"][f"{scratch.ns}/names"]["csv"]
    assert (csv["delimiter"], csv["header"], csv["quote"], csv["encoding"]) == (";", False, '"', "utf-8")
    # Alone, this file's first line would be taken for a header (every value is text); pinned, it is a row.
    scratch.landing("names", "b.csv", "carl;rome\ndana;oslo\n")
    assert scratch.run(fqn)["status"] == "success"
    assert scratch.rows(f"SELECT _c0, _c1 FROM {fqn} ORDER BY _c0") == [
        ["1", "ann"], ["2", "bob"], ["carl", "rome"], ["dana", "oslo"]]


async def test_pin_without_a_text_file_says_why(scratch: Scratch):
    scratch.landing("empty", "_samples/s.csv", "id\n1\n")
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "zone", f"{scratch.ns}.empty")
        await until(pilot, lambda: "read by:" in screen(app), 20, "the zone panel")
        await pilot.press("E")
        await until(pilot, lambda: any("has no active delimited text file" in str(n.message)
                                       for n in notifications(app)), 10, "the notice")


def archiving(scratch: Scratch, zone: str) -> str:
    scratch.landing(zone, "batch1.csv", "id\n1\n2\n")
    return scratch.pipeline("bronze", zone, "-- @merge_strategy: append_only\n-- @archive_landing_zones: true\n"
                            f"SELECT id FROM {{{{ landing_zone('{zone}') }}}}")


async def test_a_run_that_found_nothing_new_is_marked_in_the_tree_and_the_run_view(scratch: Scratch):
    fqn = archiving(scratch, "feed")
    assert scratch.run(fqn)["status"] == "success"
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        assert tree_label(app, fqn).startswith("● ")
        await pilot.press("r")
        view = app.query_one(RunView)
        await until(pilot, lambda: view.state is not None and view.state.status == "success"
                    and view.state.run_id != scratch.wb.browse.runs(fqn).as_dict()["runs"][-1]["run_id"], 90, "the second run")
        note = f"nothing new in {scratch.ns}/landing/feed"
        await until(pilot, lambda: f"◌ {note}: nothing was written" in screen(app), 20, "the run view's line")
        await until(pilot, lambda: tree_label(app, fqn).startswith("◌ "), 20, "the tree's mark")
    # A new app reads the mark from the stored run, not from the event.
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        assert tree_label(app, fqn).startswith("◌ ")
        await until(pilot, lambda: "Effective config" in screen(app), 20, "the pipeline panel")
        app.query_one(PipelineView).show_tab("tab-run")
        await until(pilot, lambda: f"◌ {note}: nothing was written" in screen(app), 20, "the stored run's line")
    assert scratch.rows(f"SELECT id FROM {fqn} ORDER BY id") == [[1], [2]]


async def test_the_lineage_panel_marks_a_run_that_found_nothing_new_when_it_draws(scratch: Scratch):
    """The panel draws from the workbench's lineage (on opening, and again after every run): the stored
    run's nothing-new state must be there, not only in the run event."""
    fqn = archiving(scratch, "lin")
    assert scratch.run(fqn)["status"] == "success"
    assert scratch.run(fqn)["note"] == f"nothing new in {scratch.ns}/landing/lin"
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        await pilot.press("L")
        await until(pilot, lambda: app.detail.current(LineageView) is not None
                    and app.detail.current(LineageView).node_named(fqn) is not None, 20, "the lineage panel")
        assert str(app.detail.current(LineageView).node_named(fqn).label).startswith("◌ ")
        assert f"│ ◌ {fqn}  " in screen(app)


async def test_the_palette_runs_a_pipeline_reloading_a_file_it_loaded_before(scratch: Scratch):
    fqn = archiving(scratch, "again")
    first = scratch.run(fqn)
    zone = scratch.root / "landing" / "again"
    shutil.copy2(zone / "_processed" / first["run_id"] / "batch1.csv", zone / "batch1.csv")
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: "Search for commands" in screen(app), 10, "the palette")
        await pilot.press(*"reload")
        await until(pilot, lambda: "--reload-files" in screen(app), 10, "the palette's entry")
        await pilot.press("enter")
        await until(pilot, lambda: len(scratch.wb.browse.runs(fqn).as_dict()["runs"]) == 2
                    and scratch.wb.browse.runs(fqn).as_dict()["runs"][0]["status"] == "success", 90, "the reloading run")
    assert scratch.rows(f"SELECT id FROM {fqn} ORDER BY id") == [[1], [1], [2], [2]]
    assert (zone / "_processed" / scratch.wb.browse.runs(fqn).as_dict()["runs"][0]["run_id"] / "batch1.csv").exists()
