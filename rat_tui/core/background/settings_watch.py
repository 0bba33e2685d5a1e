"""Settings that take effect while a face is open: rat.yaml and the pipelines' config.yaml are watched.

A save of rat.yaml reloads the project's settings, so the next refresh, upload, preview or run reads by
them; one that cannot be read as a whole (a YAML syntax error) is named with its line and the settings
in use stay. A pipeline's config.yaml is read by each run as it is on disk: its save is checked and the
verdict said the same way. Independent of watch-and-run (`w`), which may be off.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import Problem
from ..events import EventBus, Notice
from ..project.model import Project
from ..project.pipeline_config import read_config_yaml
from ..project.watch import Change, PipelineChanged, ProjectWatcher, SettingsChanged


@dataclass(frozen=True)
class SettingsReloaded(Notice):
    path: str  # rat.yaml, or a pipeline's config.yaml (in the project)
    problems: tuple[Problem, ...] = ()  # what is wrong with it (the settings in use stay when it cannot be read)
    kept: bool = False  # the file could not be read as a whole: the last good settings stay in use
    zones: tuple[str, ...] = ()  # rat.yaml's zone entries this save changed

    def sentence(self) -> str:
        if not self.problems:
            return f"settings reloaded from {self.path}" + self._zones_sentence()
        said = "; ".join(p.sentence() for p in self.problems)
        if self.kept:
            return f"{said}; the settings in use stay as they were"
        if self.path != "rat.yaml":  # each run reads config.yaml as it is: none of this pipeline runs meanwhile
            return f"{said}; runs of its pipeline are refused until it is fixed"
        return f"settings reloaded, except: {said}" + self._zones_sentence()

    def _zones_sentence(self) -> str:
        """Files a zone's pipelines loaded before are not read again: a user who fixed a setting learnt it only at
        the next run's "nothing new"."""
        if not self.zones:
            return ""
        return (f"; changed zone settings ({', '.join(self.zones)}) apply to the files read from now on (a full "
                "refresh reads those loaded before again)")


class SettingsWatch:
    def __init__(self, project: Project, events: EventBus, debounce: float):
        """`events`: the project's one stream, where each save's `SettingsReloaded` goes."""
        self.project, self.events = project, events
        self._watcher = ProjectWatcher(project, self._changed, debounce, folders=("pipelines",))

    def start(self) -> None:
        if not self._watcher.running:
            self._watcher.start()

    def stop(self) -> None:
        self._watcher.stop()

    def _changed(self, changes: list[Change]) -> None:
        for change in changes:
            if isinstance(change, SettingsChanged):
                before = self.project.settings.zones
                kept = not self.project.reload_settings()
                after = self.project.settings.zones
                zones = () if kept else tuple(sorted(label for label in set(before) | set(after)
                                                     if before.get(label) != after.get(label)))
                self.events.publish(SettingsReloaded(change.path, tuple(self.project.settings_problems), kept, zones))
            elif isinstance(change, PipelineChanged):
                for path in (p for p in change.paths if p.endswith("/config.yaml")):
                    self.events.publish(SettingsReloaded(path, tuple(self._config_problems(path))))

    def _config_problems(self, path: str) -> list[Problem]:
        try:
            text = (self.project.root / path).read_text(encoding="utf-8")
        except FileNotFoundError:  # removed: the defaults and annotations apply
            return []
        except (OSError, UnicodeDecodeError) as exc:
            return [Problem(path, f"cannot read the file: {exc}")]
        return read_config_yaml(text, path)[1]
