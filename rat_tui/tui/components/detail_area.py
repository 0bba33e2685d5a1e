"""The right side: one view at a time (a pipeline, zone, table, lineage, a selection's progress, a
group's summary), replaced as the selection moves."""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from rich.text import Text
from textual.containers import Container
from textual.widget import Widget
from textual.widgets import Static

from .loading import app_closing

V = TypeVar("V", bound=Widget)


class DetailArea(Container):
    def __init__(self, welcome: Text) -> None:
        super().__init__(Static(welcome, id="welcome"), id="detail")
        self._lock = asyncio.Lock()  # two removes then two mounts would mount twice
        self._wanted: tuple[Callable[[], Widget], Callable[[Widget], None] | None] | None = None
        self._showing = False
        self._after_shown: list[Callable[[Widget], None]] = []

    @property
    def replacing(self) -> bool:
        return self._showing or self._lock.locked()

    def after_shown(self, do: Callable[[Widget], None]) -> None:
        """Do `do` to the view being shown, once it is (a key that came with the arrow key that moved the
        selection is meant for the view that comes, not the one that goes)."""
        self._after_shown.append(do)

    def show(self, make: Callable[[], Widget], then: Callable[[Widget], None] | None = None) -> None:
        """Show the view `make` builds (then call `then` with it), after the replacement in flight: a
        replacement is never cancelled halfway, since a view removed while its parts still mount fails in
        Textual's own code (a TabbedContent: "No Tab with id"), which closed the app on fast keys. Calls
        made meanwhile supersede each other: only the newest is shown."""
        self._wanted = (make, then)
        if not self._showing:
            self._showing = True
            self.run_worker(self._show_wanted(), group="detail")

    async def _show_wanted(self) -> None:
        try:
            while self._wanted is not None:
                make, then = self._wanted
                self._wanted = None
                widget = make()
                if await self.replace(widget) and self._wanted is None:
                    if then is not None:
                        then(widget)
                    waiting, self._after_shown = self._after_shown, []
                    for do in waiting:
                        do(widget)
        finally:
            self._showing = False

    async def replace(self, widget: Widget) -> bool:
        """Show `widget`; False when another replacement took its place meanwhile (two reloads at once),
        so the caller leaves the removed view alone."""
        async with self._lock:
            if not self.is_attached or app_closing(self.app):
                return False
            await self.remove_children()
            await self.mount(widget)
        return widget.is_attached and not app_closing(self.app)

    def current(self, kind: type[V]) -> V | None:
        """The view of that kind; None while another view replaces it or the app closes."""
        if self._lock.locked() or not self.is_attached or app_closing(self.app):
            return None
        found = self.query(kind)
        return found.first() if found else None
