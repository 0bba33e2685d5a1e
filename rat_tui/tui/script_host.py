"""The headless `--script` host: runs a script inside the real app and lets it press keys,
take screenshots and read the screen, waiting until the screen has settled."""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.pilot import Pilot
from textual.worker import WorkerState

if TYPE_CHECKING:
    from ..core.commands.workbench import Workbench
    from ..core.project.watch import ProjectWatcher


@dataclass
class ScriptJob:
    """A parsed `--script` that the app runs in a worker once it is on screen (headless)."""

    lines: list
    keep_going: bool = False
    events: bool = False


class ScriptHost:
    """Mixed into the app: what `--script` needs of the screen."""

    workbench: Workbench
    watcher: ProjectWatcher
    script: ScriptJob | None

    @work(thread=True, group="script")
    def run_script(self) -> None:
        import sys

        from ..script.commands import ScriptContext
        from ..script.executor import execute

        assert self.script is not None
        self.call_from_thread(self.wait_for_idle_screen)
        status = execute(ScriptContext(self.workbench, self), self.script.lines, sys.stdout,
                         self.script.keep_going, self.script.events)
        self.call_from_thread(self.exit, return_code=status)

    async def wait_for_idle_screen(self) -> None:
        """Until the tree and detail panels have loaded what the last key asked for."""
        busy = (WorkerState.PENDING, WorkerState.RUNNING)
        while any(w.state in busy for w in self.workers if w.group in ("tree", "detail", "version-diff")):
            await asyncio.sleep(0.02)
        await asyncio.sleep(0)

    def press_from_thread(self, keys: list[str]) -> None:
        self.call_from_thread(Pilot(self).press, *keys)
        self.call_from_thread(self.wait_for_idle_screen)

    def set_watch_from_thread(self, on: bool) -> bool:
        return self.call_from_thread(self.set_watch, on)

    def screenshot_from_thread(self, path: str) -> str:
        target = Path(path) if Path(path).is_absolute() else self.workbench.project.root / path
        svg = self.call_from_thread(self.export_screenshot)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(svg, encoding="utf-8")
        return str(target)

    def settle_from_thread(self, timeout: float | None) -> None:
        """Until saves seen by the watcher have been debounced and turned into runs."""
        deadline = None if timeout is None else time.monotonic() + timeout
        time.sleep(0.2)  # let the file system event arrive
        while self.watcher.pending or self.call_from_thread(self._auto_runs_busy):
            if deadline is not None and time.monotonic() > deadline:
                return
            time.sleep(0.05)

    def _auto_runs_busy(self) -> bool:
        return any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in self.workers if w.group == "watch")

    def screen_text(self) -> str:
        strips = self.screen._compositor.render_strips()
        return "\n".join("".join(segment.text for segment in strip) for strip in strips)

    def wait_for_text(self, text: str, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while True:
            if text in self.call_from_thread(self.screen_text):
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)
