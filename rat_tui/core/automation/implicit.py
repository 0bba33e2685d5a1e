"""The triggers rat.yaml's `watch:` settings give every pipeline, evaluated like those in config.yaml:

- `watch.cascade: true`: each pipeline that reads another gets `after: [what it reads]` (any); it waits
  while a pipeline upstream of it is queued or running, so a save's downstream runs once, in order;
- `watch.run_on_landing: true`: each pipeline that reads a zone gets `landing: <zone>`, for files written
  after the trigger started (files that were there before never set it off).

Their spec ends with the setting's name, so `triggers`, `ticks` and the Automation tab show them as implicit.
"""
from __future__ import annotations

from ..project.graph import ProjectGraph
from ..project.settings import Settings
from .triggers import Kind, Trigger

CASCADE = "watch.cascade"
ON_LANDING = "watch.run_on_landing"


def wanted(settings: Settings) -> bool:
    return settings.watch_cascade or settings.watch_run_on_landing


def implicit_triggers(settings: Settings, graph: ProjectGraph) -> dict[str, list[Trigger]]:
    """pipeline -> its implicit triggers, as the settings and the pipelines' refs and zones say."""
    found: dict[str, list[Trigger]] = {}
    for name in graph.pipelines():
        inputs = graph.upstream.get(name, set())
        tables = sorted(i for i in inputs if graph.nodes[i].kind == "pipeline")
        zones = sorted(graph.nodes[i].name.rsplit(".", 1)[1] for i in inputs if graph.nodes[i].kind == "zone")
        mine: list[Trigger] = []
        ancestors = frozenset(n for n in graph.upstream_of(name) if graph.nodes[n].kind == "pipeline")
        if settings.watch_cascade and tables and name not in ancestors:  # a ref cycle would run for ever
            mine.append(Trigger(name, Kind.AFTER, after=tuple(tables), implicit=CASCADE, ancestors=ancestors))
        if settings.watch_run_on_landing:
            mine += [Trigger(name, Kind.LANDING, zone=zone, implicit=ON_LANDING) for zone in zones]
        if mine:
            found[name] = mine
    return found


def implicit_of(trigger_key: str) -> str | None:
    """The setting behind a trigger recorded by its key (kind:spec), or None for one of config.yaml."""
    return next((name for name in (CASCADE, ON_LANDING) if trigger_key.endswith(f" ({name})")), None)
