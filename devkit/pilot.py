"""Driving the real app with Pilot: find tree nodes, wait for conditions, read the screen."""
from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from textual import events

from devkit.sample import copy_sample
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.project_tree import ProjectTree


async def until(pilot, predicate, timeout: float = 60.0, what: str = "condition", every: float = 0.1) -> None:
    """Wait for `predicate`, looking every `every` seconds (benchmarks look more often: a look every
    0.1 s adds up to 0.1 s to what they time)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; screen:\n{screen(pilot.app)}")
        await pilot.pause(every)


def screen(app: RatApp) -> str:
    return app.screen_text()


CHARS = {"tab": "\t", "enter": "\r", "escape": "\x1b", "left_square_bracket": "[", "right_square_bracket": "]"}


def press_now(app: RatApp, key: str) -> None:
    """A key as the terminal sends it: queued at once, without waiting for the app to handle the one
    before (Pilot's `press` waits, which hides the races fast hands hit)."""
    event = events.Key(key, CHARS.get(key))
    event.set_sender(app)
    app._driver.send_message(event)


def notifications(app: RatApp) -> list:
    """The toasts the app holds now: Textual keeps them in a private list, read here only."""
    return list(app._notifications)


async def select(pilot, kind: str, fqn_or_name: str) -> None:
    """Move the tree cursor to a pipeline, table or zone node, waiting for the tree to hold it."""
    app = pilot.app
    tree = app.query_one(ProjectTree)

    def find():
        for node in _walk(tree.root):
            data = node.data
            if data is not None and data.kind == kind:
                name = data.ref.fqn if data.ref is not None else f"{data.namespace}.{data.name}"
                if name == fqn_or_name:
                    return node
        return None

    app.refresh_tree()
    await until(pilot, lambda: find() is not None, 30, f"{kind} {fqn_or_name} in the tree")
    # The tree may be rebuilt meanwhile (a run finishing refreshes it): find the node afresh each try.
    for _ in range(50):
        node = find()
        if node is not None:
            node.parent.expand()
            await pilot.pause()
            tree.move_cursor(node)
            await pilot.pause(0.1)
            if app.selected == node.data:
                await asyncio.sleep(0)
                return
        await pilot.pause(0.1)
    raise AssertionError(f"could not select {kind} {fqn_or_name}; screen:\n{screen(app)}")


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)


@contextmanager
def temporary_sample_project() -> Iterator[Path]:
    """A throw-away copy of sample_project/ (for screenshots and benchmarks)."""
    with tempfile.TemporaryDirectory() as tmp:
        yield copy_sample(Path(tmp) / "sample_project")


def widget_text(widget) -> str:
    """All a widget draws, wrapped as on screen, also what lies scrolled out of view (a log panel:
    every line it holds)."""
    lines = getattr(widget, "lines", None)
    if lines is None:
        lines = widget.render_lines(widget.size.region)
    return "\n".join(strip.text.rstrip() for strip in lines)


def holds_whole(shown: str, sentence: str) -> bool:
    """`sentence` is in `shown` with nothing cut, however it was wrapped (a wrap may fold inside a word)."""
    return "".join(sentence.split()) in "".join(shown.split())
