"""The command palette (Ctrl+P): the app's actions group by group with their keys, then Textual's own."""
from __future__ import annotations

from collections.abc import Iterable

from textual.app import App, SystemCommand
from textual.command import DiscoveryHit, Hits
from textual.system_commands import SystemCommandsProvider

from .keymap import GROUPS, KeyAction, key_label


class PaletteCommands(SystemCommandsProvider):
    """Textual's system-commands provider without its alphabetical sort on discovery, so the palette
    opens on the app's actions group by group (`RatApp.get_system_commands`), Textual's own last."""

    async def discover(self) -> Hits:
        for name, help_text, callback, discover in self.app.get_system_commands(self.screen):
            if discover:
                yield DiscoveryHit(name, callback, help=help_text)


def key_commands(app: App, keymap: list[KeyAction]) -> Iterable[SystemCommand]:
    """One provider lists them, so the order is fixed (the palette lists discovery hits in the order given)."""
    for group in GROUPS:
        for k in keymap:
            if k.group == group:
                yield SystemCommand(f"{group}: {k.palette}", f"key {key_label(k.key)}",
                                    lambda a=k.binding_action: app.run_action(a))
