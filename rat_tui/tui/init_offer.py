"""Opening an empty folder: the TUI offers to write a new project there (what `rat-tui init DIR` writes),
before the workbench opens on it."""
from __future__ import annotations

from pathlib import Path

from textual.app import App

from ..core.errors import RatError
from ..core.project.scaffold import FILES, PIPELINE, scaffold
from .components.modals import Confirm


class InitOfferApp(App[list[Path] | None]):
    """Asks once; returns the files written, or None when declined (nothing written)."""

    CSS_PATH = "app.tcss"
    TITLE = "rat-tui"

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root
        self.sub_title = root.resolve().name

    def on_mount(self) -> None:
        detail = (f"A namespace, a landing zone with a small example file and {PIPELINE}, with a quality test "
                  f"and a unit test; build it with B, run its unit tests with T.\n\n" + "\n".join(FILES))
        self.push_screen(Confirm(f"{self.root.resolve()} is empty. Make a new project here?", detail), self.answer)

    def answer(self, yes: bool | None) -> None:
        if not yes:
            self.exit(None)
            return
        try:
            self.exit(scaffold(self.root))
        except RatError as exc:
            self.notify(exc.sentence(), severity="error")
            self.exit(None)
