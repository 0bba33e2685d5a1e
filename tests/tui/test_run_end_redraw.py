"""A run's end (issue 37, item 3): `RunFinished` carries the run's record, so the app shows the end without
reading the run back from the state, and redraws only the tree nodes the run touched (no `overview()` of
every table); the tree and the panel still show the new outcome."""
from __future__ import annotations

import threading

import pytest
from textual.widgets import DataTable

from devkit.pilot import notifications, screen, select, until
from rat_tui.core.events import Event, RunFinished
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.pipeline_view import PipelineView
from rat_tui.tui.components.project_tree import NodeData, ProjectTree
from rat_tui.tui.components.run_view import RunView
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark
SIZE = (140, 45)


def count_reads(wb, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the app reads from now on that a run's end must not need: `overview()` (every table's metadata),
    the pipeline's runs, and a run from the state once it ended (wrapped here, our own methods)."""
    ended = threading.Event()  # set in the run's thread, before the app hears of the end
    reads: list[str] = []

    def on_the_bus(event: Event) -> None:
        if isinstance(event, RunFinished):
            ended.set()

    wb.events.subscribe(on_the_bus)
    for name in ("overview", "runs"):
        real = getattr(wb.browse, name)
        monkeypatch.setattr(wb.browse, name, lambda *a, real=real, name=name, **k: (reads.append(name), real(*a, **k))[1])
    get_run = wb.state.get_run

    def counted_get_run(run_id: str):
        if ended.is_set():
            reads.append(f"get_run {run_id}")
        return get_run(run_id)

    counted_get_run.__wrapped__ = get_run  # the test's own reads
    monkeypatch.setattr(wb.state, "get_run", counted_get_run)
    return reads


def labels(app, namespace: str) -> list[str]:
    """The labels of the namespace's nodes in the tree, whether scrolled into view or not (the shared lake
    holds many namespaces, so a test's nodes may be below the screen)."""
    tree = app.query_one(ProjectTree)
    return [node.label.plain for node in tree._walk(tree.root) if node.data and node.data.namespace == namespace]


async def open_pipeline(pilot, fqn: str, run_id: str, namespace: str, group: str, shown: str) -> None:
    """The pipeline's panel with run `run_id` in its Runs tab, and the tree's `group` of `namespace` open
    with a node labelled `shown`."""
    app = pilot.app
    await select(pilot, "pipeline", fqn)
    await until(pilot, lambda: run_id in app.query_one(PipelineView).runs, 20, "the Runs tab")
    tree = app.query_one(ProjectTree)
    next(n for n in tree._walk(tree.root) if n.data == NodeData("group", namespace, group)).expand()
    await until(pilot, lambda: shown in labels(app, namespace), 10, shown)


async def test_a_runs_end_redraws_its_nodes_and_panel_from_the_event_without_reading_back(
        scratch: Scratch, monkeypatch: pytest.MonkeyPatch):
    fqn = scratch.pipeline("silver", "numbers", "SELECT id FROM VALUES (1), (2), (3) AS v(id)")
    first = scratch.run(fqn)
    wb = scratch.wb
    app = RatApp(wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_pipeline(pilot, fqn, first["run_id"], scratch.ns, "tables",
                            f"silver.numbers  @{str(first['snapshot_id'])[-6:]}")
        reads = count_reads(wb, monkeypatch)
        get_run = wb.state.get_run.__wrapped__

        await pilot.press("r")
        view = app.query_one(RunView)
        await until(pilot, lambda: view.state is not None and view.state.run_id != first["run_id"]
                    and view.state.status == "success", 120, "the second run's end in the Run tab")
        second = get_run(view.state.run_id)  # the test's own read, not counted
        assert second is not None and second.snapshot_id != first["snapshot_id"]
        await until(pilot, lambda: f"silver.numbers  @{str(second.snapshot_id)[-6:]}" in labels(app, scratch.ns),
                    10, "the table's new snapshot in the tree")
        await pilot.pause(0.5)  # what a reload would have started has had its time
        assert reads == [], "the run's end read the run back or the whole overview"

        runs = app.query_one("#runs-table", DataTable)
        assert [str(runs.get_row_at(i)[0]) for i in range(runs.row_count)] == [second.run_id, first["run_id"]]
        assert [str(runs.get_row_at(i)[1]) for i in range(runs.row_count)] == ["success", "success"]
        text = screen(app)
        assert "SUCCESS" in text and f"Run {second.run_id}" in text
        assert "● numbers" in labels(app, scratch.ns)  # its mark in the tree


async def test_the_zones_a_run_archived_show_their_files_after_it_without_an_overview(
        scratch: Scratch, monkeypatch: pytest.MonkeyPatch):
    fqn = scratch.pipeline("bronze", "feed", "-- @merge_strategy: append_only\n-- @archive_landing_zones: true\n"
                           "SELECT id FROM {{ landing_zone('feed') }}")
    scratch.landing("feed", "a.csv", "id\n1\n")
    first = scratch.run(fqn)
    scratch.landing("feed", "b.csv", "id\n2\n")
    scratch.landing("feed", "c.csv", "id\n3\n")
    wb = scratch.wb
    app = RatApp(wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_pipeline(pilot, fqn, first["run_id"], scratch.ns, "landing", "feed  2 files")
        reads = count_reads(wb, monkeypatch)
        await pilot.press("r")
        await until(pilot, lambda: "feed  0 files" in labels(app, scratch.ns), 120, "the zone emptied by the run's archive")
        await pilot.pause(0.5)
        assert reads == []
        assert not [p for p in (scratch.root / "landing" / "feed").iterdir() if p.suffix == ".csv"]


@pytest.mark.parametrize("kind", ["namespace", "layer", "group"])
async def test_a_run_ending_while_the_cursor_is_on_a_namespace_layer_or_group_fails_nothing(scratch: Scratch, kind: str):
    """Found by a new user: each run's end (a shell command's, a save's) toasted "the screen failed" while the
    cursor was on a namespace, a layer or the tables: the reload built a table panel for that node."""
    fqn = scratch.pipeline("silver", "grouped", "SELECT id FROM VALUES (1), (2) AS v(id)")
    assert scratch.run(fqn)["status"] == "success"
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        tree = app.query_one(ProjectTree)
        wanted = {"namespace": NodeData("namespace", scratch.ns), "layer": NodeData("layer", scratch.ns, "silver"),
                  "group": NodeData("group", scratch.ns, "tables")}[kind]
        node = next(n for n in tree._walk(tree.root) if n.data == wanted)
        tree.move_cursor(node)
        await until(pilot, lambda: app.selected == wanted, 10, "the cursor on the node")
        done = threading.Event()
        threading.Thread(target=lambda: (scratch.wb.runs.submit(fqn).wait(), done.set()), daemon=True).start()
        await until(pilot, done.is_set, 60, "the run's end")
        await pilot.pause(0.5)
        errors = [n.message for n in notifications(app) if n.severity == "error"]
        assert errors == [], errors
        assert app.selected == wanted


async def test_a_run_ending_while_its_panel_is_being_replaced_still_shows_its_end_in_the_run_tab(scratch: Scratch):
    """CI under load: `r` pressed while the pipeline's panel still mounted; the run (fast with a session made
    ahead) ended before the mount, and the reload its end asked for opened the Source tab, not the run's end."""
    fqn = scratch.pipeline("silver", "quick", "SELECT id FROM VALUES (1), (2) AS v(id)")
    first = scratch.run(fqn)
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        await until(pilot, lambda: first["run_id"] in app.query_one(PipelineView).runs, 20, "the Runs tab")
        replacing = app.detail._lock  # held as a replacement of the panel in flight holds it
        await replacing.acquire()
        try:
            await pilot.press("r")
            live = app.live_runs
            await until(pilot, lambda: live.latest.get(fqn) not in (None, first["run_id"])
                        and live.latest[fqn] not in live.states, 120, "the run's end, heard by the app")
        finally:
            replacing.release()
        second = app.live_runs.latest[fqn]
        assert second != first["run_id"]
        await until(pilot, lambda: f"Run {second}" in screen(app) and "SUCCESS" in screen(app), 20,
                    "the run's end in the Run tab")
