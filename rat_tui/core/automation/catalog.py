"""Every pipeline's triggers, read from config.yaml again only when the file changed (an evaluation every few
seconds reads 300 pipelines' triggers from memory), and the problems `validate` reports about them."""
from __future__ import annotations

import os
from pathlib import Path

from ..errors import Problem, did_you_mean
from ..project.model import PipelineRef, Project
from .triggers import Kind, PipelineTriggers, after_cycles, parse_triggers


class TriggerCatalog:
    def __init__(self, project: Project):
        self.project = project
        self._cache: dict[PipelineRef, tuple[tuple[int, int] | None, PipelineTriggers]] = {}

    def read(self, ref: PipelineRef) -> PipelineTriggers:
        path = self.project.pipeline_dir(ref) / "config.yaml"
        try:
            st = os.stat(path)
            stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        cached = self._cache.get(ref)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        text = _read_text(path) if stamp is not None else None
        parsed = parse_triggers(ref, text, (ref.relpath / "config.yaml").as_posix())
        self._cache[ref] = (stamp, parsed)
        return parsed

    def all(self) -> list[PipelineTriggers]:
        """Pipelines with at least one trigger."""
        return [found for ref in self.project.scan().pipelines() if (found := self.read(ref)).triggers]

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
                if trigger.kind == Kind.LANDING and trigger.zone not in zones.get(namespace, []):
                    problems.append(Problem(path, f"landing: no zone '{trigger.zone}' in {namespace}"
                                                  f"{did_you_mean(trigger.zone or '', zones.get(namespace, []))}",
                                            trigger.line))
                for up in trigger.after:
                    if up not in known:
                        problems.append(Problem(path, f"after: no pipeline {up} in this project"
                                                      f"{did_you_mean(up, sorted(known))}", trigger.line))
        for cycle in after_cycles(every):
            first = cycle.split(": ", 1)[1].split(" → ", 1)[0]
            if only is None or first == only.fqn or only.fqn in cycle:
                problems.append(Problem((PipelineRef.parse(first).relpath / "config.yaml").as_posix(), cycle))
        return problems


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):  # pipeline_config reports an unreadable config.yaml
        return None
