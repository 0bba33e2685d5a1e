"""`--script` on the screen: a script that presses keys, takes screenshots or reads the screen runs in
the real app, headless; `AppScreen` is what those commands drive (waiting until the screen has settled).
Scripts without such commands never start the app (`cli.py`)."""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from textual.app import App
from textual.pilot import Pilot

from ..core.compose import Workbench
from ..script.commands import ScriptContext
from ..script.executor import execute
from ..script.parser import ScriptLine
from .screen_state import screen_text, wait_for_idle_screen


@dataclass
class ScriptJob:
    """A parsed `--script` that the app runs in a worker once it is on screen (headless), printing to the
    streams the caller gave (not `sys.stdout` at the time, which the running app has redirected)."""

    lines: list[ScriptLine]
    out: TextIO
    err: TextIO
    keep_going: bool = False
    events: bool = False


class AppScreen:
    """The `ScreenHost` of script commands, called from the script's worker thread."""

    def __init__(self, app: App, workbench: Workbench) -> None:
        self.app = app
        self.workbench = workbench

    def run(self, job: ScriptJob) -> None:
        """In a thread worker: the script's lines, then the app exits with their status."""
        app = self.app
        app.call_from_thread(wait_for_idle_screen, app)
        status = execute(ScriptContext(self.workbench, self), job.lines, job.out, job.keep_going, job.events,
                         err=job.err)
        app.call_from_thread(app.exit, return_code=status)

    def press(self, keys: list[str]) -> None:
        self.app.call_from_thread(Pilot(self.app).press, *keys)
        self.app.call_from_thread(wait_for_idle_screen, self.app)

    def screenshot(self, path: str) -> str:
        target = Path(path) if Path(path).is_absolute() else self.workbench.project.root / path
        svg = self.app.call_from_thread(self.app.export_screenshot)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(svg, encoding="utf-8")
        return str(target)

    def wait_for_text(self, text: str, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while True:
            if text in self.app.call_from_thread(screen_text, self.app):
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)
