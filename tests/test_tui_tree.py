"""The tree keeps its place and follows runs live (real Spark, real app)."""
from __future__ import annotations

import pytest

from devkit.pilot import select, until
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

