"""The right side: one view at a time (a pipeline, zone, table, lineage, a selection's progress, a
group's summary), replaced as the selection moves."""
from __future__ import annotations

import asyncio
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
