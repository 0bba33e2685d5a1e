"""The tree keeps its place and follows runs live (real Spark, real app)."""
from __future__ import annotations

import pytest

from devkit.pilot import select, until
from rat_tui.core.commands.table_results import TableHistory
from rat_tui.core.lake.history import HistoryEntry
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.project_tree import ProjectTree
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark
SIZE = (140, 45)


def label_of(app: RatApp, kind: str, fqn: str) -> str:
    tree = app.query_one(ProjectTree)
    stack = [tree.root]
    while stack:
        node = stack.pop()
        if node.data is not None and node.data.kind == kind and node.data.ref is not None and node.data.ref.fqn == fqn:
            return str(node.label)
        stack += node.children
    return ""


async def test_run_marks_follow_run_events(scratch: Scratch):
    fqn = scratch.pipeline("silver", "slow", "SELECT id FROM range(3) AS r(id)",
                           tests={"wait": "SELECT * FROM {{ this }} WHERE (SELECT SUM(hash(a.id, b.id)) "
                                          "FROM range(40000) a CROSS JOIN range(2000) b) IS NULL"})  # a second or two
    app = RatApp(scratch.wb, watch=False)
    name = fqn.rsplit(".", 1)[1]
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        assert label_of(app, "pipeline", fqn) == f"○ {name}"
        await pilot.press("r")
        await until(pilot, lambda: label_of(app, "pipeline", fqn) == f"◐ {name}", 60, "◐ while the run runs")
        assert app.workbench.runner.active
        await until(pilot, lambda: not app.workbench.runner.active, 120, "the run to finish")
        await until(pilot, lambda: label_of(app, "pipeline", fqn) == f"● {name}", 10, "● after success")
        node = app.query_one(ProjectTree).cursor_node
        assert node.data.ref.fqn == fqn and "green" in str(node.label.spans[0].style)



async def test_two_reloads_of_a_table_at_once_leave_one_table_view(sample_copy):
    """A table's panel reloads twice in a row (a run finishes right after the cursor lands): the second
    mount removes the first view before it is filled; filling it must not crash the app (seen in a
    full run: NoMatches '#table-title')."""
    import asyncio

    from rat_tui.core.compose import open_project
    from rat_tui.core.project.model import PipelineRef
    from rat_tui.tui.components.project_tree import NodeData
    from rat_tui.tui.components.table_view import TableView

    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    snaps = TableHistory([HistoryEntry(kind="run", snapshot_id=7, base_snapshot_id=None, snapshot_ids=(7,),
                                       committed_at="2026-11-22T20:55:15+00:00", operation="overwrite", run_id="r1",
                                       strategy="full_refresh", added_rows=1, updated_rows=0, deleted_rows=0,
                                       total_rows=1, on_main=True, is_current=True)], {"main": 7})
    async with app.run_test(size=SIZE) as pilot:
        node = NodeData("table", "ecommerce", "clean_orders", PipelineRef("ecommerce", "silver", "clean_orders"))
        app.workbench.tables.history = lambda fqn: snaps  # the panel loads them itself
        app.workbench.tables.table_schema = lambda fqn: "id int"
        app.selected = node
        await asyncio.gather(app.show_detail(node), app.show_detail(node))
        await app.wait_for_idle_screen()
        views = app.query(TableView)
        assert len(views) == 1 and views.first().selected_snapshot() == 7


def test_the_app_starts_without_the_sql_parser():
    """The tree waits for the app's imports: sqlglot (column lineage, 0.4 s) loads when lineage is asked for."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    probe = "import sys, rat_tui.tui.app; print('sqlglot' in {m.split('.')[0] for m in sys.modules})"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}).stdout
    assert loaded.strip() == "False"
