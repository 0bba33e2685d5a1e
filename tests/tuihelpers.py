"""What the TUI tests of several modules share: reading the tree and running from it."""
from __future__ import annotations

from devkit.pilot import select, until
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.project_tree import ProjectTree
from tests.lakehelpers import Scratch


def tree_label(app: RatApp, fqn: str) -> str:
    tree = app.query_one(ProjectTree)
    return next(str(n.label) for n in tree._walk(tree.root)
                if n.data is not None and n.data.kind == "pipeline" and n.data.ref.fqn == fqn)


async def run_from_the_tree(pilot, scratch: Scratch, fqn: str) -> dict:
    """`r` on the pipeline in the tree; its stored run once it ended."""
    await select(pilot, "pipeline", fqn)
    await pilot.press("r")
    ended = lambda: (scratch.wb.browse.runs(fqn).as_dict()["runs"] or [{"status": "queued"}])[0]  # noqa: E731
    await until(pilot, lambda: ended()["status"] in ("success", "failed", "cancelled"), 120, "the run")
    return ended()
