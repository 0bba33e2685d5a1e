"""The Tests tab in the real app on the shared Spark session: T runs a pipeline's unit tests in a worker
and shows their outcome (a failure's missing and unexpected rows); U writes one from the preview."""
from __future__ import annotations

import shutil
import textwrap

import pytest

from devkit.pilot import notifications, screen, select, until
from rat_tui.core.project.model import PipelineRef
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.unit_tests_pane import UnitTestsPane
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark
SIZE = (140, 45)
SOURCE = "-- @merge_strategy: full_refresh\nSELECT CAST(n AS BIGINT) AS n, UPPER(w) AS w FROM {{ landing_zone('words') }}\n"


@pytest.fixture(autouse=True)
def _no_tests_left(scratch):
    """The shared lake's `test` (no selector) must not meet this module's failing tests later."""
    yield
    for folder in scratch.root.glob("pipelines/*/*/tests/unit"):
        shutil.rmtree(folder)


def unit(scratch: Scratch, fqn: str, name: str, text: str) -> None:
    folder = scratch.wb.project.pipeline_dir(PipelineRef.parse(fqn)) / "tests" / "unit"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.yaml").write_text(textwrap.dedent(text).lstrip())


def statuses(app: RatApp) -> dict[str, str]:
    return {name: test.result.status for name, test in app.query_one(UnitTestsPane).tests.items()}


async def test_t_runs_the_pipelines_unit_tests_and_a_failure_shows_its_rows(scratch: Scratch):
    fqn = scratch.pipeline("silver", "words", SOURCE)
    unit(scratch, fqn, "good", """\
        given: [{input: landing_zone('words'), rows: [{n: '1', w: a}, {n: '2', w: b}]}]
        expect: {output: [{n: 1, w: A}, {n: 2, w: B}]}
    """)
    unit(scratch, fqn, "wrong", """\
        given: [{input: landing_zone('words'), rows: [{n: '1', w: a}, {n: '2', w: b}]}]
        expect: {output: [{n: 1, w: A}, {n: 2, w: zebra}]}
    """)
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        await until(pilot, lambda: statuses(app) == {"good": "not run", "wrong": "not run"}, 20, "the Tests tab")
        await pilot.press("T")
        await until(pilot, lambda: "Tests" in screen(app) and "running" in screen(app), 10, "the tests running")
        await until(pilot, lambda: statuses(app) == {"good": "passed", "wrong": "failed"}, 90, "the outcome")
        await until(pilot, lambda: "in the result, not expected" in screen(app), 10, "the failure's rows")
        text = screen(app)
        assert "1 row expected, missing from the result" in text and "zebra" in text, text
        assert "tests/unit/wrong.yaml" in text and "unexpected row(s)" in text  # the error sentence too
        table = app.query_one("#unit-tests-table")
        table.move_cursor(row=0)  # the good one: passed, no rows
        await until(pilot, lambda: "good: passed." in screen(app), 10, "the passing test")
        assert "zebra" not in screen(app)


async def test_u_writes_a_unit_test_from_the_preview_and_it_passes(scratch: Scratch):
    fqn = scratch.pipeline("silver", "words", SOURCE)
    scratch.landing("words", "words.csv", "n,w\n1,a\n2,b\n3,c\n")
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        await pilot.press("p")
        await until(pilot, lambda: "U writes a unit test from this preview" in screen(app), 60, "the preview")
        assert app.query_one("#preview-table").row_count == 3
        await pilot.press("U")
        written = scratch.root / "pipelines" / "silver" / "words" / "tests" / "unit" / "preview.yaml"
        await until(pilot, lambda: statuses(app) == {"preview": "passed"}, 90, "the written test")
        assert written.is_file() and "landing_zone('words')" in written.read_text()
        assert "{n: 3, w: C}" in written.read_text()
        await pilot.press("T")
        await until(pilot, lambda: any(n.title == "unit tests" and "1 unit test passed" in str(n.message)
                                       for n in notifications(app)), 90, "T's outcome")
        await until(pilot, lambda: statuses(app) == {"preview": "passed"}, 10, "the Tests tab after T")
