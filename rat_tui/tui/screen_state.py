"""The main screen for tests and `--script`: when it has settled after a key, and the text it shows."""
from __future__ import annotations

import asyncio
import html
import re

from rich.cells import cell_len
from textual.app import App
from textual.worker import WorkerState

LOADERS = ("tree", "detail", "version-diff")  # the worker groups that fill what a key asked to see
# One run of text of Rich's SVG export: its column (x, in cells of `char_width` pixels) and its line.
_TEXT = re.compile(r'<text [^>]*?x="([\d.]+)"[^>]*?clip-path="url\(#[^)]*-line-(\d+)\)"[^>]*>([^<]*)</text>')
_CHAR_WIDTH = 20 * 0.61  # Rich's SVG cell: font size 20, aspect ratio 0.61


async def wait_for_idle_screen(app: App) -> None:
    """Until the tree and the detail panel have loaded and shown what the last key asked for (their
    workers done, then the messages those posted handled, which may start more)."""
    busy = (WorkerState.PENDING, WorkerState.RUNNING)
    while True:
        while any(w.state in busy for w in app.workers if w.group in LOADERS):
            await asyncio.sleep(0.02)
        await _handled_posted_messages(app)
        if not any(w.state in busy for w in app.workers if w.group in LOADERS):
            return


async def _handled_posted_messages(app: App) -> None:
    """Until every node of the main screen has handled what was posted to it so far."""
    handled = []
    for node in (app, *app.screen_stack[0].walk_children(with_self=True)):
        done = asyncio.Event()
        if node.call_later(done.set):
            handled.append(asyncio.ensure_future(done.wait()))
    if handled:
        _, pending = await asyncio.wait(handled, timeout=5)  # a node removed meanwhile never gets there
        for waiting in pending:
            waiting.cancel()


def screen_text(app: App) -> str:
    """The screen's lines as text, read from Textual's public screenshot (an SVG of runs of text placed
    by column; the blanks between them are not written)."""
    width, height = app.size
    lines: list[list[tuple[int, str]]] = [[] for _ in range(height)]
    for x, line, text in _TEXT.findall(app.export_screenshot()):
        if int(line) < height:
            run = html.unescape(text).replace("\xa0", " ").rstrip("\n")  # a line's last run ends the line
            lines[int(line)].append((round(float(x) / _CHAR_WIDTH), run))
    out = []
    for runs in lines:
        text, at = "", 0
        for column, run in sorted(runs):
            text += " " * max(column - at, 0) + run
            at = max(column, at) + cell_len(run)
        out.append(text + " " * max(width - at, 0))
    return "\n".join(out)
