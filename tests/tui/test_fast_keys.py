"""Fast hands: random navigation keys every 10–20 ms over every kind of node never close the app nor
leave a traceback in app.log; a bug in a handler, key or worker is logged and said once, and the app
stays (issue 36.1)."""
from __future__ import annotations

import asyncio
import random
import time

import pytest

from devkit.pilot import notifications, press_now, select, until
from rat_tui.core.compose import open_project
from rat_tui.core.store.logs import setup_logging
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.project_tree import ProjectTree
from tests.lakehelpers import Scratch

SIZE = (160, 48)
KINDS = ("namespace", "layer", "pipeline", "group", "zone", "table")
KEYS = ["down"] * 5 + ["up"] * 5 + ["right", "left", "tab", "shift+tab", "left_square_bracket",
                                    "right_square_bracket", "enter", "escape", "pagedown", "pageup"]


def nodes_of(tree: ProjectTree, kind: str) -> list:
    found, stack = [], [tree.root]
    while stack:
        node = stack.pop()
        stack += node.children
        if node.data is not None and node.data.kind == kind:
            found.append(node)
    return found


@pytest.mark.spark
async def test_random_navigation_keys_never_close_the_app(scratch: Scratch):
    """Bursts of random keys, each burst started on a node of the next kind in turn (every kind is
    visited whatever the shared lake's tree holds); the keys and their gaps come from a fixed seed."""
    fqn = scratch.pipeline("silver", "fast", "SELECT id FROM range(3) AS r(id)")
    assert scratch.run(fqn)["status"] == "success"  # a table node
    log = setup_logging(scratch.wb.project.state_dir)
    logged_before = log.stat().st_size
    chance = random.Random(36)
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "table", fqn)
        tree = app.query_one(ProjectTree)
        tree.root.expand_all()
        visited: set[str] = set()
        deadline, burst = time.monotonic() + 10, 0  # 10 s: dozens of bursts, every kind the start of several
        while time.monotonic() < deadline:
            start = chance.choice(nodes_of(tree, KINDS[burst % len(KINDS)]))
            burst += 1
            tree.focus()
            tree.move_cursor(start)
            for _ in range(chance.randint(5, 25)):
                if tree.cursor_node is not None and tree.cursor_node.data is not None:
                    visited.add(tree.cursor_node.data.kind)
                press_now(app, chance.choice(KEYS))
                await asyncio.sleep(chance.uniform(0.01, 0.02))
                assert app.is_running, "the app closed"
        await app.wait_for_idle_screen()
        assert app.is_running and app._exception is None
    assert set(KINDS) <= visited, visited
    logged = log.read_text()[logged_before:]
    assert "Traceback" not in logged, logged


async def test_a_bug_in_a_panel_loader_is_logged_and_said_once(sample_copy):
    """A loader worker that raises (not a RatError: a bug) closed the app; now app.log holds the
    traceback, one notice says it, and the app goes on."""
    log = setup_logging(sample_copy / ".rat")
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)

    def broken(*args, **kwargs):
        raise KeyError("runs_of_a_bug")

    app.workbench.browse.runs = broken
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", "ecommerce.silver.clean_orders")
        await until(pilot, lambda: any("runs_of_a_bug" in n.message for n in notifications(app)), 10, "the notice")
        await select(pilot, "pipeline", "ecommerce.bronze.raw_orders")
        await app.wait_for_idle_screen()
        notices = [n for n in notifications(app) if "runs_of_a_bug" in n.message]
        assert app.is_running and len(notices) == 1
        assert "KeyError" in notices[0].message and ".rat/logs/app.log" in notices[0].message
    text = log.read_text()
    assert "Traceback" in text and "KeyError: 'runs_of_a_bug'" in text


async def test_a_bug_in_a_key_is_logged_and_the_app_stays(sample_copy):
    log = setup_logging(sample_copy / ".rat")
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", "ecommerce.silver.clean_orders")
        app.keys.pipeline.preview = lambda: [][1]
        await pilot.press("p")
        await pilot.pause()
        assert app.is_running
        assert [n.title for n in notifications(app)] == ["the key preview failed"]
        await pilot.press("down")
        await app.wait_for_idle_screen()
        assert app.selected.name != "clean_orders"  # the tree still moves
    assert "IndexError: list index out of range" in log.read_text()
