"""Keys as data: every action with its default key; `keymap:` in rat.yaml remaps them by id.

The same rows feed the bindings (footer), the help screen and the command palette (grouped),
and say what each key needs under the tree's cursor, so a key on the wrong node gets one notice.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from textual.binding import Binding
from textual.keys import format_key


@dataclass(frozen=True)
class KeyAction:
    id: str
    key: str
    action: str  # what the binding runs: "" for the app's keys, whose binding runs `key('<id>')` (keys/keyboard.py)
    description: str  # short: the footer and the help screen
    group: str  # the command palette lists actions group by group (GROUPS order)
    palette: str  # what the palette says the action does
    needs: str = ""  # pipeline | table | zone | node (any of them): the kind of tree node the key acts on ("" = any)
    show: bool = True

    @property
    def binding_action(self) -> str:
        return self.action or f"key('{self.id}')"


GROUPS = ("Run", "Tests", "Graph", "Versions", "Tables", "Landing", "Upkeep", "Bucket", "View")

DEFAULT_KEYMAP: tuple[KeyAction, ...] = (
    KeyAction("run", "r", "", "Run", "Run", "Run the selected pipeline (draft)", "pipeline"),
    KeyAction("run_published", "R", "", "Run published", "Run",
              "Run the published version of the selected pipeline", "pipeline"),
    KeyAction("run_reload_files", "ctrl+r", "", "Run reloading files", "Run",
              "Run the selected pipeline, loading again the landing files it loaded before (--reload-files)",
              "pipeline", show=False),
    KeyAction("cancel", "c", "", "Cancel run", "Run", "Cancel the selected pipeline's runs", "pipeline"),
    KeyAction("run_review", "v", "", "Run for review", "Run",
              "Run the selected pipeline in review mode: it stops before main, showing its diff", "pipeline",
              show=False),
    KeyAction("review_downstream", "V", "", "Review with downstream", "Graph",
              "Run the selected pipeline and its downstream for review (NAME+): each on its branch, "
              "later ones reading their upstream's branch", "pipeline", show=False),
    KeyAction("approve", "a", "", "Approve", "Run",
              "Approve the selected pipeline's run awaiting review: publish it to main", "pipeline", show=False),
    KeyAction("preview", "p", "", "Preview", "Run", "Preview the selected pipeline (writes nothing)", "pipeline"),
    KeyAction("unit_tests", "T", "", "Unit tests", "Tests",
              "Run the selected pipeline's unit tests (tests/unit/*.yaml) and show them in its Tests tab", "pipeline",
              show=False),
    KeyAction("unit_fixture", "U", "", "Unit test from preview", "Tests",
              "Write a unit test from the selected pipeline's preview: its inputs' rows and its output", "pipeline",
              show=False),
    KeyAction("run_downstream", "greater_than_sign", "", "Run with downstream", "Graph",
              "Run the selected pipeline and everything downstream of it (NAME+)", "pipeline", show=False),
    KeyAction("run_upstream", "less_than_sign", "", "Run with upstream", "Graph",
              "Run the selected pipeline after everything upstream of it (+NAME)", "pipeline", show=False),
    KeyAction("full_refresh", "F", "", "Full refresh with downstream", "Graph",
              "Full refresh of the selected pipeline and everything downstream of it (NAME+)", "pipeline", show=False),
    KeyAction("build", "B", "", "Build all", "Graph", "Build every pipeline of every namespace in order",
              show=False),
    KeyAction("lineage", "L", "", "Lineage", "Graph", "Lineage of the selected pipeline or landing zone",
              "node", show=False),
    KeyAction("project_lineage", "G", "", "Project lineage", "Graph",
              "Lineage of the whole project (all namespaces)", show=False),
    KeyAction("publish", "P", "", "Publish", "Versions", "Publish the selected pipeline's files", "pipeline"),
    KeyAction("rollback", "b", "", "Roll back code", "Versions",
              "Roll back the selected pipeline's code to a version", "pipeline"),
    KeyAction("rollback_table", "t", "", "Roll back table", "Tables",
              "Roll back the table to the selected run's end (or compaction)", "table"),
    KeyAction("diff", "d", "", "Diff snapshot", "Tables", "Diff the selected run: main before it against main after it",
              "table", show=False),
    KeyAction("compact", "k", "", "Compact table", "Tables", "Compact the selected table's small files",
              "pipeline", show=False),
    KeyAction("upload", "u", "", "Upload to zone", "Landing", "Upload files into the selected landing zone",
              "zone", show=False),
    KeyAction("zone_settings", "e", "", "Edit zone settings", "Landing",
              "Edit the selected landing zone's settings", "zone", show=False),
    KeyAction("pin_dialect", "E", "", "Pin zone dialect", "Landing",
              "Pin the dialect detected for the zone's file into rat.yaml (asks first)", "zone", show=False),
    KeyAction("purge", "x", "", "Purge", "Upkeep",
              "Purge old state (shows the list first); on a pipeline awaiting review: reject its run"),
    KeyAction("doctor", "D", "", "Doctor", "Upkeep", "Doctor: check consistency, then offer fixes", show=False),
    KeyAction("watch", "w", "", "Watch", "Upkeep", "Turn watch-and-run on or off"),
    KeyAction("automation", "A", "", "Automation", "Run",
              "Every trigger of the project with its next time, and who runs them", show=False),
    KeyAction("freshness", "f", "", "Freshness", "Tables",
              "Every table's freshness, the latest first (freshness: in config.yaml or rat.yaml)", show=False),
    KeyAction("intervals", "I", "", "Intervals", "Run",
              "Every partitioned pipeline's intervals: done, failed, missing, stale (f backfills a range)", show=False),
    KeyAction("pull", "g", "", "Pull from bucket", "Bucket", "Pull newer files from the bucket", show=False),
    KeyAction("prev_tab", "left_square_bracket", "", "Previous tab", "View", "Show the previous detail tab",
              show=False),
    KeyAction("next_tab", "right_square_bracket", "", "Next tab", "View", "Show the next detail tab",
              show=False),
    KeyAction("refresh", "f5", "", "Refresh", "View", "Refresh the tree and the detail panel", show=False),
    KeyAction("tree", "f1", "", "Focus tree", "View", "Focus the project tree", show=False),
    KeyAction("detail", "f2", "", "Focus detail", "View", "Focus the detail panel", show=False),
    KeyAction("log", "l", "", "Log", "View", "Show or hide the log panel"),
    KeyAction("console", "s", "", "SQL console", "View", "Open the SQL console"),
    KeyAction("console_insert", "i", "", "Insert name", "Tables",
              "Insert the table's name (or the preview column's) into the SQL console", "pipeline", show=False),
    KeyAction("help", "question_mark", "", "Help", "View", "Help: keys and what the tree's marks mean"),
    KeyAction("quit", "q", "quit", "Quit", "View", "Quit rat-tui"),
)


# Keys inside the SQL console (bound on its panel; `needs: result` ones on its results grid). The
# footer shows only the `show` ones: with the editor's own keys it would not fit 120 columns.
CONSOLE_KEYMAP: tuple[KeyAction, ...] = (
    KeyAction("console_run", "ctrl+enter,ctrl+j", "run_statement", "Run", "Console",
              "Run the statement under the cursor (or the selection)"),
    KeyAction("console_close", "escape", "escape", "Cancel / close", "Console",
              "Cancel the running statement, else close the console"),
    KeyAction("console_cancel", "ctrl+c", "cancel", "Cancel", "Console",
              "Cancel the running statement (else Ctrl+C copies)", show=False),
    KeyAction("console_history", "f8", "history", "History", "Console", "Search the query history"),
    KeyAction("console_export", "ctrl+e", "export", "Export", "Console",
              "Export the full result to .csv, .parquet or .json"),
    KeyAction("console_new", "ctrl+n", "new_buffer", "New buffer", "Console", "Open a new buffer", show=False),
    KeyAction("console_close_buffer", "ctrl+w", "close_buffer", "Close buffer", "Console", "Close this buffer",
              show=False),
    KeyAction("console_next", "ctrl+k", "next_buffer", "Next buffer", "Console", "Show the next buffer", show=False),
    KeyAction("console_focus", "f6", "focus_results", "Editor / results", "Console",
              "Move between the editor and the results"),
    KeyAction("console_profile", "f7", "profile", "Profile column", "Console",
              "Profile the result column under the cursor", "result"),
    KeyAction("console_copy_cell", "y", "copy_cell", "Copy cell", "Console", "Copy the cell", "result"),
    KeyAction("console_copy_row", "Y", "copy_row", "Copy row", "Console", "Copy the row (tab-separated)", "result"),
)


# Keys inside an Intervals tab or the `I` view (bound on its pane; listed in the help).
INTERVALS_KEYMAP: tuple[KeyAction, ...] = (
    KeyAction("intervals_backfill", "f", "backfill", "Backfill range", "Run",
              "Backfill the missing or failed intervals of the range under the cursor, as one run"),
)


def label_of(keymap: Iterable[KeyAction], action_id: str) -> str:
    """The key of an action as people write it (the user's remap when there is one)."""
    return next(key_label(k.key) for k in keymap if k.id == action_id)


def console_key_label(action_id: str) -> str:
    return label_of(CONSOLE_KEYMAP, action_id)


def resolve_keymap(overrides: dict[str, str]) -> list[KeyAction]:
    """The default keymap with the user's remaps applied; unknown ids are ignored (validate reports rat.yaml)."""
    return [replace(k, key=overrides.get(k.id, k.key)) for k in DEFAULT_KEYMAP]


def bindings(keymap: list[KeyAction]) -> list[Binding]:
    return [Binding(k.key, k.binding_action, k.description, show=k.show, id=k.id) for k in keymap]


_NAMES = {"question_mark": "?", "left_square_bracket": "[", "right_square_bracket": "]", "greater_than_sign": ">",
          "less_than_sign": "<", "escape": "Esc", "enter": "Enter"}


def key_label(key: str) -> str:
    """Every key of a binding as people write it: `ctrl+enter,ctrl+j` is `Ctrl+Enter / Ctrl+J`."""
    return " / ".join(_label(k.strip()) for k in key.split(","))


def _label(key: str) -> str:
    *modifiers, name = key.split("+")
    name = _NAMES.get(name, name.upper() if modifiers or name[:1] == "f" and name[1:].isdigit() else name)
    return "+".join([m.capitalize() for m in modifiers] + [name])


def footer_keys(key: str) -> str | None:
    """What the footer shows for a binding of several keys (it would show the first alone): `^⏎/^j`.
    None for one key, which the footer draws itself (and a remapped key drops this text)."""
    keys = [k.strip() for k in key.split(",")]
    if len(keys) == 1:
        return None
    shown = []
    for k in keys:
        *modifiers, name = k.split("+")
        caret = "^" if "ctrl" in modifiers else ""
        shown.append("+".join([m for m in modifiers if m != "ctrl"] + [caret + format_key(name)]))
    return "/".join(shown)
