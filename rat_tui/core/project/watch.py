"""Watching the project folder: saves of pipeline files and new landing files, batched.

A change that comes while nothing waits is reported after `SETTLE_SECONDS` of quiet (or `debounce`,
when that is shorter): an editor that writes a file in place (truncate, write, touch) is done within
it, so a lone save does not wait the whole debounce. A file renamed onto a pipeline's file is reported
at once: a rename is atomic, the file is whole (an editor's atomic save, `sed -i`). A change that
comes while another pipeline's or a zone's waits makes a burst, which is reported `debounce` seconds
after its last change. Each report names each changed pipeline or zone once; a change after a report
starts a new one.
"""
from __future__ import annotations

import logging
import re
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .model import PipelineRef, Project, pipeline_file_owner

log = logging.getLogger(__name__)

# watchdog warns (on stderr, which would draw over the TUI) when a watched folder is re-created.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"watchdog\..*")

_IGNORED = re.compile(r"(^\.|^~|~$|\.sw[a-p]$|\.tmp$|^4913$|\.rat-tmp-|\.crc$|^#.*#$)")


@dataclass(frozen=True)
class PipelineChanged:
    pipeline: PipelineRef
    paths: tuple[str, ...]


@dataclass(frozen=True)
class ZoneChanged:
    namespace: str
    zone: str
    active: bool = True  # False for changes under _samples/ or _processed/ only


@dataclass(frozen=True)
class SettingsChanged:
    """rat.yaml was saved (a pipeline's config.yaml is its PipelineChanged)."""

    path: str = "rat.yaml"


Change = PipelineChanged | ZoneChanged | SettingsChanged


def classify(project: Project, path: Path) -> Change | None:
    """What a changed path means for the project, or None for files the app does not care about."""
    if _IGNORED.search(path.name):
        return None
    try:
        parts = path.resolve().relative_to(project.root).parts
    except ValueError:
        return None
    if parts == ("rat.yaml",):
        return SettingsChanged()
    owner = pipeline_file_owner("/".join(parts))
    if owner is not None:
        return PipelineChanged(owner, ("/".join(parts),))
    if len(parts) >= 4 and parts[1] == "landing":
        inner = parts[3:]
        return ZoneChanged(parts[0], parts[2], not any(p.startswith(("_", ".")) for p in inner))
    return None


SETTLE_SECONDS = 0.05  # an editor's save (temp file, rename) lands within a few ms


class ProjectWatcher:
    def __init__(self, project: Project, on_changes: Callable[[list[Change]], None], debounce: float,
                 folders: tuple[str, ...] = ("pipelines", "landing")):
        self.project = project
        self.folders = folders  # those of each namespace watched (rat.yaml at the root always is)
        self.on_changes = on_changes
        self.debounce = debounce
        self._pending: dict[object, Change] = {}
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._observer = None
        self._handler = None
        self._scheduled: set[Path] = set()  # the folders watched (a namespace's alone, its pipelines and landing whole)
        self._reporting = 0  # batches taken off `_pending` whose on_changes has not returned yet

    @property
    def running(self) -> bool:
        return self._observer is not None

    @property
    def pending(self) -> bool:
        """Changes seen but not yet reported (the debounce is still waiting, or the report is under way)."""
        with self._lock:
            return bool(self._pending) or self._reporting > 0

    def start(self) -> None:
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        watcher = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event) -> None:  # noqa: D401 - watchdog's hook
                if event.event_type in ("opened", "closed_no_write"):
                    return
                for raw, renamed_onto in ((getattr(event, "dest_path", ""), event.event_type == "moved"),
                                          (event.src_path, False)):
                    if raw:
                        path = Path(raw if isinstance(raw, str) else raw.decode())
                        if event.is_directory and event.event_type in ("created", "moved"):
                            watcher.adopt(path)
                        watcher.saw(path, whole=renamed_onto and not event.is_directory)

        observer = Observer()
        self._handler, self._scheduled = Handler(), set()
        observer.schedule(self._handler, str(self.project.root), recursive=False)  # rat.yaml, new namespaces
        observer.daemon = True
        observer.start()
        self._observer = observer
        # Pipelines and landing zones only: table folders hold thousands of files that change on every run
        # and would exhaust inotify watches for nothing (and watchdog runs a thread for each watch).
        for ns in self.project.scan().namespaces:
            for part in self.folders:
                self._schedule(self.project.root / ns.name / part, recursive=True)

    def adopt(self, path: Path) -> None:
        """A folder made while watching: a namespace (watched itself, for its pipelines and landing folders to
        come), or one of those folders of a namespace made meanwhile, watched whole; what such a folder holds
        already is a change (a pipeline written with its namespace, before its folder was watched)."""
        try:
            parts = path.relative_to(self.project.root).parts
        except ValueError:
            return
        if len(parts) == 1 and not _IGNORED.search(parts[0]) and self._schedule(path, recursive=False):
            for part in self.folders:
                self.adopt(path / part)
        elif len(parts) == 2 and parts[1] in self.folders and self._schedule(path, recursive=True):
            for file in sorted(path.rglob("*")):
                if file.is_file():
                    self.saw(file)

    def _schedule(self, folder: Path, recursive: bool) -> bool:
        """Watch `folder` (once); False when it is no folder, is watched already, or the watcher stopped."""
        with self._lock:
            observer = self._observer
            if observer is None or folder in self._scheduled or not folder.is_dir():
                return False
            self._scheduled.add(folder)
        try:
            observer.schedule(self._handler, str(folder), recursive=recursive)
        except OSError:  # removed meanwhile
            return False
        return True

    def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer = None
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._pending.clear()

    def saw(self, path: Path, whole: bool = False) -> None:
        """`whole`: the file was renamed onto `path`, so it is complete now (no settle for a pipeline's file)."""
        change = classify(self.project, path)
        if change is None:
            return
        key = change.pipeline if isinstance(change, PipelineChanged) else change
        with self._lock:
            # A lone save is reported after a short settle, a pipeline file renamed into place at once (the
            # same pipeline's earlier events, an editor moving the old file away, go with it); a change
            # while another one waits means a burst, which waits the full debounce from its last event.
            others = any(pending != key for pending in self._pending)
            if whole and isinstance(change, PipelineChanged) and not others:
                delay = 0.0
            else:
                delay = min(SETTLE_SECONDS, self.debounce) if not self._pending else self.debounce
            previous = self._pending.get(key)
            if isinstance(previous, PipelineChanged) and isinstance(change, PipelineChanged):
                change = PipelineChanged(change.pipeline, tuple(sorted(set(previous.paths) | set(change.paths))))
            self._pending[key] = change
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(delay, self._flush)
            self._timer.daemon = True
            self._timer.start()

    def _flush(self) -> None:
        with self._lock:
            changes, self._pending = list(self._pending.values()), {}
            self._timer = None
            self._reporting += 1
        try:
            if changes:
                self.on_changes(changes)
        except Exception:
            log.exception("handling file changes failed")
        finally:
            with self._lock:
                self._reporting -= 1
