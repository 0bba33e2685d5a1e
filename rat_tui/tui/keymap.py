"""Keys as data: every action with its default key; `keymap:` in rat.yaml remaps them by id."""
from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True)
class KeyAction:
    id: str
    key: str
    action: str
    description: str
    show: bool = True


DEFAULT_KEYMAP: tuple[KeyAction, ...] = (
    KeyAction("run", "r", "run", "Run"),
    KeyAction("run_published", "R", "run_published", "Run published"),
    KeyAction("cancel", "c", "cancel", "Cancel run"),
    KeyAction("preview", "p", "preview", "Preview"),
    KeyAction("publish", "P", "publish", "Publish"),
    KeyAction("rollback", "b", "rollback", "Roll back code"),
    KeyAction("rollback_table", "t", "rollback_table", "Roll back table"),
    KeyAction("diff", "d", "diff", "Diff snapshot", show=False),
    KeyAction("purge", "x", "purge", "Purge"),
    KeyAction("compact", "k", "compact", "Compact table", show=False),
    KeyAction("upload", "u", "upload", "Upload to zone", show=False),
    KeyAction("zone_settings", "e", "zone_settings", "Edit zone settings", show=False),
    KeyAction("doctor", "D", "doctor", "Doctor", show=False),
    KeyAction("pull", "g", "pull", "Pull from bucket", show=False),
    KeyAction("watch", "w", "toggle_watch", "Watch"),
    KeyAction("refresh", "f5", "refresh", "Refresh", show=False),
    KeyAction("tree", "f1", "focus_tree", "Focus tree", show=False),
    KeyAction("detail", "f2", "focus_detail", "Focus detail", show=False),
    KeyAction("log", "l", "toggle_log", "Log"),
    KeyAction("help", "question_mark", "help", "Help"),
    KeyAction("quit", "q", "quit", "Quit"),
)


def resolve_keymap(overrides: dict[str, str]) -> list[KeyAction]:
    """The default keymap with the user's remaps applied; unknown ids are ignored (validate reports rat.yaml)."""
    return [KeyAction(k.id, overrides.get(k.id, k.key), k.action, k.description, k.show) for k in DEFAULT_KEYMAP]


def bindings(keymap: list[KeyAction]) -> list[Binding]:
    return [Binding(k.key, k.action, k.description, show=k.show, id=k.id) for k in keymap]


def key_label(key: str) -> str:
    return {"question_mark": "?", "f5": "F5", "f1": "F1", "f2": "F2"}.get(key, key)
