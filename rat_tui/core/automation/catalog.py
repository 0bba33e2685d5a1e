"""Every pipeline's triggers, read from config.yaml again only when the file changed (an evaluation every few
seconds reads 300 pipelines' triggers from memory), with the implicit ones of rat.yaml's `watch:` settings
(implicit.py), and the problems `validate` reports about them."""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ..errors import Problem, did_you_mean
from ..freshness.policy import pipeline_policy
from ..project.graph import ProjectGraph
from ..project.model import SOURCE_FILES, PipelineRef, Project
from .implicit import implicit_triggers, wanted
from .triggers import Kind, PipelineTriggers, Trigger, after_cycles, cycle_sentence, parse_triggers


class TriggerCatalog:
    def __init__(self, project: Project, graph: Callable[[], ProjectGraph] | None = None):
        self.project, self.graph = project, graph
        self._cache: dict[PipelineRef, tuple[tuple[int, int] | None, PipelineTriggers]] = {}
        self._refs: list[PipelineRef] = []
        self._folders: dict[str, int] = {}  # folder -> mtime_ns, of every folder the last scan listed
        self._implicit_cache: tuple[tuple, dict[str, list[Trigger]], dict[str, int]] | None = None

    def pipelines(self) -> list[PipelineRef]:
        """The project's pipelines, scanned again only when a folder that holds them changed (an entry added,
        removed or renamed changes its folder's mtime)."""
        if not self._folders or any(_mtime(folder) != stamp for folder, stamp in self._folders.items()):
            root = str(self.project.root)
            self._refs = self.project.scan().pipelines()
            namespaces = {ref.namespace for ref in self._refs} | {p.name for p in self.project.root.iterdir()
                                                                  if p.is_dir()}
            folders = [root] + [os.path.join(root, ns, "pipelines") for ns in namespaces]
            folders += [os.path.join(root, ref.namespace, "pipelines", ref.layer) for ref in self._refs]
            self._folders = {folder: _mtime(folder) for folder in folders}
        return self._refs

    def read(self, ref: PipelineRef) -> PipelineTriggers:
        path = os.path.join(self.project.root, ref.namespace, "pipelines", ref.layer, ref.name, "config.yaml")
        try:
            st = os.stat(path)
            stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        cached = self._cache.get(ref)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        text = _read_text(Path(path)) if stamp is not None else None
        parsed = parse_triggers(ref, text, (ref.relpath / "config.yaml").as_posix())
        self._cache[ref] = (stamp, parsed)
        return parsed

    def all(self, implicit_only: bool = False) -> list[PipelineTriggers]:
        """Pipelines with at least one trigger, upstream first when `watch.cascade` adds implicit ones. The
        `after` triggers of a cycle (which `validate` refuses) are left out: they would run each other for ever."""
        implicit, order = self._implicit()
        found = []
        for ref in self.pipelines():
            parsed = self.read(ref)
            own = () if implicit_only else parsed.triggers
            if triggers := own + tuple(implicit.get(ref.fqn, ())):
                found.append(replace(parsed, triggers=triggers))
        if order:
            found.sort(key=lambda p: order.get(p.pipeline, len(order)))
        in_cycles = {name for cycle in after_cycles(found) for name in cycle}
        if not in_cycles:
            return found
        return [replace(p, triggers=tuple(t for t in p.triggers if not (t.kind == Kind.AFTER and p.pipeline in in_cycles)))
                for p in found]

    def _implicit(self) -> tuple[dict[str, list[Trigger]], dict[str, int]]:
        """The watch: settings' implicit triggers, and every pipeline's place in dependency order; the graph is
        read again only when a pipeline's source, the pipelines or the zones changed (a 300-pipeline graph
        costs tens of ms: too much for every evaluation of an idle `serve`)."""
        settings = self.project.settings
        if self.graph is None or not wanted(settings):
            return {}, {}
        refs = self.pipelines()
        root = str(self.project.root)
        key = (settings.watch_cascade, settings.watch_run_on_landing, tuple(self._folders.items()),
               tuple(_mtime(os.path.join(root, ns, "landing")) for ns in sorted({ref.namespace for ref in refs})),
               tuple((ref, *(_mtime(os.path.join(root, ref.namespace, "pipelines", ref.layer, ref.name, name))
                             for name in SOURCE_FILES)) for ref in refs))
        if self._implicit_cache is None or self._implicit_cache[0] != key:
            graph = self.graph()
            order = {name: i for i, name in enumerate(graph.order(graph.pipelines(), leave_out_cycles=True))}
            self._implicit_cache = (key, implicit_triggers(settings, graph), order)
        return self._implicit_cache[1], self._implicit_cache[2]

    def problems(self, only: PipelineRef | None = None) -> list[Problem]:
        """Bad trigger entries, zones and upstream pipelines that do not exist, and cycles of `after`."""
        scan = self.project.scan()
        known = {ref.fqn for ref in scan.pipelines()}
        zones: dict[str, list[str]] = {}
        for zone in scan.zones():
            zones.setdefault(zone.namespace, []).append(zone.name)
        every = [self.read(ref) for ref in scan.pipelines()]
        problems: list[Problem] = []
        for found in every:
            if only is not None and found.pipeline != only.fqn:
                continue
            path = (PipelineRef.parse(found.pipeline).relpath / "config.yaml").as_posix()
            problems += found.problems
            namespace = found.pipeline.split(".", 1)[0]
            for trigger in found.triggers:
                if trigger.kind == Kind.STALE and pipeline_policy(self.project, PipelineRef.parse(found.pipeline))[0] is None:
                    problems.append(Problem(path, "stale: true needs a freshness policy, such as freshness: "
                                                  "{warn_after: 6h, error_after: 1d} here or in rat.yaml", trigger.line))
                if trigger.kind == Kind.LANDING and trigger.zone not in zones.get(namespace, []):
                    problems.append(Problem(path, f"landing: no zone '{trigger.zone}' in {namespace}"
                                                  f"{did_you_mean(trigger.zone or '', zones.get(namespace, []))}",
                                            trigger.line))
                for up in trigger.after:
                    if up not in known:
                        problems.append(Problem(path, f"after: no pipeline {up} in this project"
                                                      f"{did_you_mean(up, sorted(known))}", trigger.line))
        by_name = {found.pipeline: found for found in every}
        for cycle in after_cycles(every):
            if only is None or only.fqn in cycle:
                first = by_name[cycle[0]]
                line = next((t.line for t in first.triggers if cycle[1] in t.after), None)
                problems.append(Problem((PipelineRef.parse(cycle[0]).relpath / "config.yaml").as_posix(),
                                        cycle_sentence(cycle), line))
        return problems


def _mtime(folder: str) -> int:
    try:
        return os.stat(folder).st_mtime_ns
    except OSError:
        return -1


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):  # pipeline_config reports an unreadable config.yaml
        return None
