"""A green run's notes in the app (issue 35, item 5): listed in the Run tab under the phase that caused
them, and the tree's own mark `◉` for a success with notes, from the run event and after a restart."""
from __future__ import annotations

import pytest

from devkit.pilot import screen, select, until
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.pipeline_view import PipelineView
from tests.lakehelpers import Scratch
from tests.tuihelpers import run_from_the_tree, tree_label

pytestmark = pytest.mark.spark
SIZE = (200, 45)


async def show_run_tab(pilot, app: RatApp, fqn: str) -> None:
    await select(pilot, "pipeline", fqn)
    await until(pilot, lambda: "Effective config" in screen(app), 20, "the pipeline panel")
    app.query_one(PipelineView).show_tab("tab-run")


def lines_between(app: RatApp, first: str, last: str) -> list[str]:
    """The screen's lines from the one holding `first` up to the one holding `last`."""
    lines = screen(app).splitlines()
    start = next(i for i, line in enumerate(lines) if first in line)
    end = next(i for i, line in enumerate(lines) if last in line and i > start)
    return lines[start:end + 1]


async def test_the_run_tab_lists_a_runs_notes_under_their_phase_and_the_tree_marks_it(scratch: Scratch):
    ns = scratch.ns
    scratch.landing("q", "a.csv", "id,name\n1,a\n2\n3,c\n")
    scratch.wb.landing.set_zone_settings(ns, "q", bad_rows="quarantine")
    fqn = scratch.pipeline("bronze", "q", "-- @merge_strategy: append_only\nSELECT * FROM {{ landing_zone('q') }}")
    quarantined = f"◉ quarantined: 1 row(s) of {ns}/landing/q/a.csv did not parse and were set aside"
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        assert tree_label(app, fqn).startswith("○ ")
        run = await run_from_the_tree(pilot, scratch, fqn)
        assert run["status"] == "success", run["error"]
        await until(pilot, lambda: quarantined in screen(app), 20, "the run's note")
        under = "\n".join(lines_between(app, "build_result", "iceberg_write"))
        assert quarantined in under and "(line 3)" in under, under
        await until(pilot, lambda: tree_label(app, fqn).startswith("◉ "), 20, "the tree's mark")
    assert scratch.rows(f"SELECT id, name FROM {fqn} ORDER BY id") == [[1, "a"], [3, "c"]]
    # A second run adds a column: its note goes under the write; a new app reads the mark from state.db
    scratch.landing("q", "b.csv", "id,name,city\n4,d,rome\n")
    assert scratch.run(fqn)["status"] == "success"
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await show_run_tab(pilot, app, fqn)
        assert tree_label(app, fqn).startswith("◉ ")
        await until(pilot, lambda: "◉ schema: added column city string" in screen(app), 20, "the stored run's notes")
        under = "\n".join(lines_between(app, "iceberg_write", "quality_tests"))
        assert "◉ schema: added column city string" in under and "skipped_files" not in under, under
        assert "◉ skipped_files: not read again: 1 file(s) of" in "\n".join(
            lines_between(app, "build_result", "iceberg_write"))
    assert scratch.rows(f"SELECT id, city FROM {fqn} ORDER BY id") == [[1, None], [3, None], [4, "rome"]]


def test_a_note_of_nulls_where_values_were_stands_out_from_the_others():
    """A `null_input` note (the run read a column its input left NULL) means rows may be wrong: yellow, not the
    green of a quarantined row or an added column."""
    from rat_tui.core.notes import RunNote
    from rat_tui.tui.components.run_view import note_line

    def dot_colour(kind: str) -> str:
        line = note_line(RunNote(kind, "text"))
        return str(line.spans[0].style)

    assert dot_colour("null_input") == dot_colour("null_column") == "yellow"
    assert dot_colour("quarantined") == dot_colour("schema") == "green"
