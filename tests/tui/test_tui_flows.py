"""Real flows in the real app on the shared Spark session: run, watch, publish, roll back."""
from __future__ import annotations

import threading

import pytest

from devkit.pilot import notifications, screen, select, until
from rat_tui.core import testpoints
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.pipeline_view import PipelineView
from rat_tui.tui.components.project_tree import ProjectTree
from rat_tui.tui.components.run_view import RunView
from rat_tui.tui.components.table_view import TableView
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark
SIZE = (140, 45)


def run_view(app: RatApp) -> RunView:
    return app.query_one(RunView)


async def test_run_a_pipeline_and_watch_the_phases_complete(scratch: Scratch, monkeypatch):
    fqn = scratch.pipeline("silver", "numbers", "SELECT id, id * 10 AS tens FROM VALUES (1), (2), (3) AS v(id)",
                           tests={"positive": "SELECT * FROM {{ this }} WHERE id <= 0"})
    # The run waits inside its write until the test saw it running: a 0.7 s run once ended between two looks
    seen = threading.Event()
    reached = testpoints.reached
    monkeypatch.setattr(testpoints, "reached",
                        lambda point: seen.wait(90) if point == "during:iceberg_write" else reached(point))
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        await until(pilot, lambda: "Effective config" in screen(app), 20, "the pipeline source")
        await pilot.press("r")
        await until(pilot, lambda: run_view(app).state is not None and run_view(app).state.status == "running",
                    30, "the run to start")
        await until(pilot, lambda: "▶  iceberg_write" in screen(app), 30, "the write phase on screen")
        assert "✔  build_result" in screen(app)
        seen.set()
        await until(pilot, lambda: run_view(app).state.status == "success", 90, "the run to finish")
        text = screen(app)
        assert "SUCCESS" in text
        for phase in ("branch_creation", "config_loading", "build_result", "iceberg_write", "quality_tests",
                      "branch_resolution"):
            assert f"✔  {phase}" in text
        assert "positive" in text and "passed" in text
        await pilot.press("p")
        await until(pilot, lambda: "30" in screen(app) and "tens" in screen(app), 30, "preview rows")
    assert scratch.rows(f"SELECT tens FROM {fqn} ORDER BY id") == [[10], [20], [30]]


async def test_a_quality_tests_violating_rows_show_with_their_column_names(scratch: Scratch):
    """Found by a new user: the Run tab listed a test's violating rows as bare values (`[3, 30]`)."""
    fqn = scratch.pipeline("silver", "flagged", "SELECT id, id * 10 AS tens FROM VALUES (1), (3) AS v(id)",
                           tests={"small": "-- @severity: warn\nSELECT * FROM {{ this }} WHERE id > 2"})
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        await pilot.press("r")
        await until(pilot, lambda: run_view(app).state is not None and run_view(app).state.status == "success",
                    90, "the run to finish")
        await until(pilot, lambda: "id=3, tens=30" in screen(app), 20, "the sample with its names")
    quality = scratch.wb.browse.runs(fqn).as_dict()["runs"][0]["quality"][0]
    assert (quality["status"], quality["sample"], quality["sample_columns"]) == ("warned", [[3, 30]], ["id", "tens"])


async def test_saving_a_file_triggers_a_run_through_the_watcher(scratch: Scratch):
    fqn = scratch.pipeline("bronze", "watched", "SELECT 1 AS id")
    app = RatApp(scratch.wb, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        source = scratch.root / "pipelines" / "bronze" / "watched" / "pipeline.sql"
        for n in (2, 3, 4):  # a burst of saves gives one run
            source.write_text(f"SELECT {n} AS id\n")
        await until(pilot, lambda: any(r["trigger"] == "watch" and r["status"] == "success"
                                       for r in scratch.wb.browse.runs(fqn).as_dict()["runs"]), 90, "the auto-run")
        await until(pilot, lambda: not scratch.wb.runner.active, 60, "runs to settle")
        watch_runs = [r for r in scratch.wb.browse.runs(fqn).as_dict()["runs"] if r["trigger"] == "watch"]
        assert len(watch_runs) == 1
        await until(pilot, lambda: "SUCCESS" in screen(app), 20, "the run view")
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[4]]
    history = scratch.wb.version_store.history(f"{scratch.ns}/pipelines/bronze/watched/pipeline.sql")
    assert scratch.wb.version_store.read(history[-1].version_id) == b"SELECT 4 AS id\n"


async def test_publish_then_roll_back_from_the_keyboard(scratch: Scratch):
    fqn = scratch.pipeline("gold", "pub", "SELECT 'one' AS v")
    source = scratch.root / "pipelines" / "gold" / "pub" / "pipeline.sql"
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        await pilot.press("P")
        await pilot.press(*"first", "enter")
        await until(pilot, lambda: scratch.wb.versions.list_versions(fqn).as_dict()["current"] == 1, 20, "version 1")
        source.write_text("SELECT 'two' AS v\n")
        await pilot.press("P", *"second", "enter")
        await until(pilot, lambda: scratch.wb.versions.list_versions(fqn).as_dict()["current"] == 2, 20, "version 2")
        await until(pilot, lambda: app.query_one(PipelineView).selected_version() == 2, 20, "versions table")
        await pilot.press("w")  # found by a new user: with watch on, the restored files ran the pipeline unsaid
        await until(pilot, lambda: scratch.wb.watching.running, 10, "watch on")
        await pilot.press("b")
        await until(pilot, lambda: "Roll back" in screen(app) and "which version" in screen(app), 10, "the version prompt")
        await pilot.press("enter")  # the default is the previous version
        await until(pilot, lambda: "Yes (y)" in screen(app), 10, "the confirmation")
        assert "Watch is on: the restored files then run the pipeline" in app.screen.detail  # wrapped on screen
        await pilot.press("y")
        await until(pilot, lambda: scratch.wb.versions.list_versions(fqn).as_dict()["current"] == 3, 20, "version 3")
        await until(pilot, lambda: any(r["trigger"] == "watch" and r["status"] == "success"
                                       for r in scratch.wb.browse.runs(fqn).as_dict()["runs"]), 90, "the watch's run")
        await until(pilot, lambda: not scratch.wb.runner.active, 60, "runs to settle")
    assert scratch.rows(f"SELECT v FROM {fqn}") == [["one"]]
    assert source.read_text() == "SELECT 'one' AS v"
    versions = scratch.wb.versions.list_versions(fqn).as_dict()["versions"]
    assert [(v["version"], v["message"], v["pinned_from"]) for v in versions] == [
        (1, "first", None), (2, "second", None), (3, "rollback to version 1", 1)]


async def test_roll_back_a_table_to_the_selected_snapshot(scratch: Scratch):
    """…and the tree keeps its place: the tables node stays open, the cursor on the table."""
    fqn = scratch.pipeline("silver", "tab", "SELECT 1 AS id")
    first = scratch.run(fqn)
    scratch.pipeline("silver", "tab", "SELECT 2 AS id")
    scratch.run(fqn)
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "table", fqn)
        await until(pilot, lambda: len(app.query(TableView)) and app.query_one(TableView).selected_snapshot(), 20,
                    "the snapshots list")
        tree = app.query_one(ProjectTree)
        line = tree.cursor_line
        table = app.query_one("#snapshots-table")
        table.focus()
        await pilot.press("down")  # newest first: the second row is the first run's snapshot
        await until(pilot, lambda: app.query_one(TableView).selected_snapshot() == first["snapshot_id"], 10, "cursor")
        await pilot.press("t")
        await until(pilot, lambda: "Yes (y)" in screen(app), 10, "the confirmation")
        await pilot.press("y")
        await until(pilot, lambda: scratch.refs(fqn)["main"] == first["snapshot_id"], 60, "main to move")
        short = str(first["snapshot_id"])[-6:]
        await until(pilot, lambda: f"@{short}" in str(tree.cursor_node.label), 20, "the new snapshot in the tree")
        assert tree.cursor_line == line and tree.cursor_node.data.ref.fqn == fqn
        assert tree.cursor_node.parent.is_expanded and app.selected == tree.cursor_node.data
        assert any(f"{fqn}: main is now snapshot {first['snapshot_id']}." in str(n.message) for n in notifications(app))
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[1]]


async def test_zone_panel_shows_readers_consumption_and_uploads(scratch: Scratch, tmp_path):
    scratch.landing("drops", "a.csv", "id\n1\n")
    reader = scratch.pipeline("bronze", "reader", "SELECT id FROM {{ landing_zone('drops') }}")
    scratch.pipeline("bronze", "other", "SELECT 1 AS id")
    assert scratch.run(reader)["status"] == "success"
    scratch.landing("drops", "b.csv", "id\n2\n")
    upload = tmp_path / "c.csv"
    upload.write_text("id\n3\n")
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "zone", f"{scratch.ns}.drops")
        await until(pilot, lambda: "read by:" in screen(app), 20, "the zone panel")
        text = screen(app)
        assert f"read by: {reader}" in text and "other" not in text.split("read by:")[1].splitlines()[0]
        table = app.query_one("#zone-files")
        cells = {table.get_row_at(i)[0]: table.get_row_at(i)[5] for i in range(table.row_count)}
        assert cells == {"a.csv": "yes", "b.csv": "not yet"}
        await pilot.press("u")
        await until(pilot, lambda: "Upload into" in screen(app), 10, "the upload prompt")
        await pilot.press(*str(upload), "enter")
        await until(pilot, lambda: (scratch.root / "landing" / "drops" / "c.csv").exists(), 20, "the upload")
        await until(pilot, lambda: app.query_one("#zone-files").row_count == 4, 20, "the refreshed zone")
        kinds = {table.get_row_at(i)[0]: table.get_row_at(i)[1] for i in range(table.row_count)}
        text = screen(app)  # the upload's bar and "converting" sentence end with it
        assert "converting" not in text and "Select a file and press Enter" in text
        # An upload types the zone's CSV files that have no Parquet twin yet, dropped ones too.
        assert kinds == {"a.csv": "active, typed", "b.csv": "active, typed", "c.csv": "active, typed",
                         "_samples/c_sample.csv": "sample"}
    assert (scratch.root / "landing" / "drops" / "_samples" / "c_sample.csv").read_text() == "id\n3\n"


async def test_a_file_dropped_into_a_zone_is_typed_on_the_warm_session(scratch: Scratch):
    from rat_tui.core.landing.twins import find_twin

    zone_dir = scratch.root / "landing" / "dropped"
    scratch.landing("dropped", "_samples/s.csv", "id\n0\n")
    app = RatApp(scratch.wb, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "zone", f"{scratch.ns}.dropped")
        await until(pilot, lambda: "read by:" in screen(app), 20, "the zone panel")
        scratch.landing("dropped", "new.csv", "id,at\n1,2024-05-01 10:00:00\n")
        await until(pilot, lambda: find_twin(zone_dir, zone_dir / "new.csv") is not None, 60, "the typed twin")
        table = app.query_one("#zone-files")
        await until(pilot, lambda: any(table.get_row_at(i)[1] == "active, typed" for i in range(table.row_count)),
                    20, "the zone panel to mark the file typed")
    assert find_twin(zone_dir, zone_dir / "new.csv").schema().simpleString() == "struct<id:int,at:timestamp>"


async def test_new_landing_files_run_their_readers_when_turned_on(scratch: Scratch, monkeypatch):
    import dataclasses

    project = scratch.wb.project
    monkeypatch.setattr(project, "settings", dataclasses.replace(project.settings, watch_run_on_landing=True))
    scratch.landing("feed", "_samples/s.csv", "id\n0\n")
    fqn = scratch.pipeline("bronze", "feed", "-- @merge_strategy: append_only\n-- @archive_landing_zones: true\n"
                           "SELECT id FROM {{ landing_zone('feed') }}")
    app = RatApp(scratch.wb, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.5)
        scratch.landing("feed", "batch1.csv", "id\n1\n2\n")
        await until(pilot, lambda: any(r["trigger"] == "landing" and r["status"] == "success"
                                       for r in scratch.wb.browse.runs(fqn).as_dict()["runs"]), 120, "the landing-triggered run")
        await pilot.pause(2.0)  # archiving and sampling must not set off more runs
        await until(pilot, lambda: not scratch.wb.runner.active, 60, "runs to settle")
    runs = scratch.wb.browse.runs(fqn).as_dict()["runs"]
    assert [r["trigger"] for r in runs] == ["landing"]
    assert scratch.rows(f"SELECT id FROM {fqn} ORDER BY id") == [[1], [2]]


async def test_a_long_phase_shows_sparks_tasks_done_of_total(scratch: Scratch):
    fqn = scratch.pipeline("silver", "busy", """
        -- @merge_strategy: incremental
        -- @unique_key: id
        SELECT 1 AS id, sum(hash(id)) AS s FROM range(0, 300000000, 1, 48)
        """)
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        await until(pilot, lambda: "Effective config" in screen(app), 20, "the pipeline source")
        await pilot.press("r")
        await until(pilot, lambda: "/48 tasks" in screen(app), 90, "Spark's tasks in the running phase")
        row = next(line for line in screen(app).splitlines() if "/48 tasks" in line)
        assert "iceberg_write" in row and "▕" in row  # a keyed first load runs its query inside the write
        done = int(row.split("/48 tasks")[0].split()[-1])
        assert 0 <= done <= 48
        await until(pilot, lambda: run_view(app).state.status == "success", 90, "the run to finish")
        assert " tasks" not in screen(app)  # a finished phase shows its rows and time, not a stale figure


def phase_line(app: RatApp, phase: str) -> str:
    return next(line for line in screen(app).splitlines() if f"  {phase}  " in line)


async def test_rows_and_total_are_the_same_live_finished_and_in_the_runs_tab(scratch: Scratch, monkeypatch):
    """Issue 20, item 7: each phase keeps the rows it showed live; the header's total is the Runs tab's."""
    fqn = scratch.pipeline("silver", "keyed", """
        -- @merge_strategy: incremental
        -- @unique_key: id
        SELECT id FROM VALUES (1), (2), (3) AS v(id)
        """)
    scratch.run(fqn)  # the run below merges: it counts its batch in build_result, then writes it
    # The run waits inside its write until the screen was read: under load a 1 s write ended between two looks
    seen = threading.Event()
    reached = testpoints.reached
    monkeypatch.setattr(testpoints, "reached",
                        lambda point: seen.wait(90) if point == "during:iceberg_write" else reached(point))
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        await until(pilot, lambda: "Effective config" in screen(app), 20, "the pipeline source")
        await pilot.press("r")
        await until(pilot, lambda: "▶  iceberg_write" in screen(app), 90, "the write phase")
        live = run_view(app).state
        assert " 3 " in phase_line(app, "build_result").split(" ms")[1]
        seen.set()
        await until(pilot, lambda: [r["status"] for r in scratch.wb.browse.runs(fqn).as_dict()["runs"]] == ["success"] * 2, 90, "the run")
        run = scratch.wb.browse.runs(fqn).as_dict()["runs"][0]
        await until(pilot, lambda: run_view(app).state is not live and "SUCCESS" in screen(app), 30,
                    "the run as state.db keeps it")
        finished = {phase: phase_line(app, phase).split(" ms")[1].split()[:1] for phase in ("build_result", "iceberg_write")}
        assert finished == {"build_result": ["3"], "iceberg_write": ["3"]}
        header = next(line for line in screen(app).splitlines() if run["run_id"] in line and "total" in line)
        total = header.split("total ")[1].split(" s")[0] + " s"
        assert total == f"{run['finished_at'] - run['started_at']:.1f} s"
        await pilot.press("]")  # Run → Runs
        await until(pilot, lambda: "rows" in screen(app) and "started (UTC)" in screen(app), 10, "the Runs tab")
        row = next(line for line in screen(app).splitlines() if run["run_id"] in line)
        assert f" {total} " in row


async def test_an_empty_preview_says_the_watermark_filtered_every_row(scratch: Scratch):
    """Issue 20, item 8 for previews: 0 rows with the reason, as a run already says it."""
    fqn = scratch.pipeline("silver", "wm", """
        -- @merge_strategy: incremental
        -- @unique_key: id
        -- @watermark_column: at
        SELECT 1 AS id, TIMESTAMP '2024-01-01 00:00:00' AS at
        {% if is_incremental() %} WHERE TIMESTAMP '2024-01-01 00:00:00' > TIMESTAMP '{{ watermark_value }}' {% endif %}
        """)
    note = (f"the watermark (at after 2024-01-01 00:00:00) filtered every row; "
            f"run {fqn} with full refresh to rebuild it")
    assert "note" not in scratch.wb.console.preview(fqn).as_dict()  # a first preview has rows
    assert scratch.run(fqn)["rows_written"] == 1
    assert scratch.wb.console.preview(fqn).as_dict() == {"columns": ["id", "at"], "rows": [], "note": note}
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=(220, 45)) as pilot:
        await select(pilot, "pipeline", fqn)
        await until(pilot, lambda: "Effective config" in screen(app), 20, "the pipeline source")
        await pilot.press("p")
        await until(pilot, lambda: "filtered every row" in screen(app), 30, "the reason on the Preview tab")
        assert f"run {fqn} with full refresh" in screen(app)
        await pilot.press("l")
        await pilot.pause()
        logged = " ".join(" ".join(strip.text.split()) for strip in app.query_one("#log-panel").lines)  # unwrapped
        assert f"{fqn}: preview: 0 rows of 2 columns; {note}." in logged
