"""A pipeline's triggers and cooldown, from `triggers:` and `cooldown:` in its config.yaml.

```yaml
triggers:
  - cron: "0 6 * * 1-5"             # 5-field cron, in schedule.timezone
  - landing: orders                 # files of this namespace's zone not yet loaded by this pipeline
    pattern: "orders_*.csv"         # optional glob on the file name
  - after: [bronze.a, ns.bronze.b]  # another pipeline's successful run
    require: all                    # any (default) | all
    cron: "0 * * * *"               # optional: check only at these times
  - webhook: true                   # POST /hooks/NS.LAYER.NAME on `serve`
  - stale: true                     # when the table turns warn by its `freshness:` (core/freshness)
cooldown: 10m
```
Each problem is a `Problem` naming config.yaml and the line of the trigger.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum

import yaml
from cronsim import CronSim, CronSimError

from ..errors import Problem
from ..project.cycles import closing_edges
from ..project.model import PipelineRef
from ..project.yaml_load import load_yaml

KINDS_KEYS = {  # the keys each kind of trigger may have; the first is the one that names the kind
    "after": ("after", "require", "cron"),
    "landing": ("landing", "pattern"),
    "webhook": ("webhook",),
    "stale": ("stale",),
    "cron": ("cron",),
}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d)?\s*$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, None: 1}
_EPOCH = datetime(2000, 1, 1, tzinfo=timezone.utc)


class Kind(str, Enum):
    CRON = "cron"
    LANDING = "landing"
    AFTER = "after"
    WEBHOOK = "webhook"
    STALE = "stale"


@dataclass(frozen=True)
class Trigger:
    pipeline: str  # ns.layer.name
    kind: Kind
    line: int | None = None
    cron: str | None = None  # cron, or after's optional check times
    zone: str | None = None
    pattern: str | None = None
    after: tuple[str, ...] = ()  # full names of the upstream pipelines
    require_all: bool = False
    implicit: str | None = None  # the rat.yaml setting that made it (watch.cascade, watch.run_on_landing)
    # an implicit `after`: every pipeline upstream of it, which it waits for while one of them is running
    ancestors: frozenset[str] = field(default=frozenset(), compare=False)

    @property
    def spec(self) -> str:
        """What the trigger says, in one line; also its identity in state.db (a changed spec is a new trigger,
        whose schedule starts when it is first evaluated)."""
        return f"{self._spec} ({self.implicit})" if self.implicit else self._spec

    @property
    def _spec(self) -> str:
        if self.kind == Kind.CRON:
            return self.cron or ""
        if self.kind == Kind.LANDING:
            return f"{self.zone} {self.pattern}" if self.pattern else str(self.zone)
        if self.kind == Kind.AFTER:
            spec = f"{'all' if self.require_all else 'any'} of {', '.join(self.after)}"
            return f"{spec} at {self.cron}" if self.cron else spec
        if self.kind == Kind.STALE:
            return "when its freshness turns warn"
        return "POST /hooks/" + self.pipeline

    @property
    def key(self) -> str:
        return f"{self.kind.value}:{self.spec}"


@dataclass(frozen=True)
class PipelineTriggers:
    pipeline: str
    triggers: tuple[Trigger, ...] = ()
    cooldown_s: float = 0.0
    problems: tuple[Problem, ...] = ()


def parse_duration(value: object) -> float | None:
    """Seconds of `10m`, `30s`, `2h`, `1d` or a bare number of seconds; None when it is none of those."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) if value >= 0 else None
    match = _DURATION.match(str(value))
    return float(match.group(1)) * _UNIT_SECONDS[match.group(2)] if match else None


def cron_problem(expr: object) -> str | None:
    if not isinstance(expr, str) or len(expr.split()) != 5:
        return f"cron {expr!r} is not a 5-field cron expression (minute hour day month weekday)"
    try:
        CronSim(expr, _EPOCH)
    except CronSimError as exc:
        return f"cron '{expr}' is not valid: {exc}"
    return None


def _names(value: object) -> list[str] | None:
    if isinstance(value, str):
        return [value.strip()]
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return [v.strip() for v in value]
    return None


def _one(ref: PipelineRef, item: dict, line: int) -> tuple[Trigger | None, str | None]:
    kind = next((k for k in KINDS_KEYS if k in item), None)
    if kind is None:
        return None, "a trigger needs one of cron, landing, after, webhook or stale"
    extra = sorted(set(item) - set(KINDS_KEYS[kind]))
    if extra:
        return None, f"a {kind} trigger takes {', '.join(KINDS_KEYS[kind])}, not {', '.join(map(str, extra))}"
    cron = item.get("cron")
    if cron is not None and (issue := cron_problem(cron)):
        return None, issue
    if kind == "cron":
        return Trigger(ref.fqn, Kind.CRON, line, cron=cron), None
    if kind == "landing":
        zone, pattern = item["landing"], item.get("pattern")
        if not isinstance(zone, str) or not zone:
            return None, "landing names a zone of this namespace, as in: landing: orders"
        if pattern is not None and not isinstance(pattern, str):
            return None, "pattern is a glob on the file name, as in: pattern: \"orders_*.csv\""
        return Trigger(ref.fqn, Kind.LANDING, line, zone=zone, pattern=pattern), None
    if kind in ("webhook", "stale"):
        if item[kind] is not True:
            return None, f"{kind} takes true (a trigger that is off is left out)"
        return Trigger(ref.fqn, Kind(kind), line), None
    names = _names(item["after"])
    if names is None:
        return None, "after names pipelines, as in: after: [bronze.raw_orders, ns.bronze.raw_products]"
    upstream = []
    for name in names:
        target = ref.resolve(name)
        if target is None:
            return None, f"after: '{name}' is not layer.name or ns.layer.name"
        if target == ref:
            return None, f"after: {ref.fqn} cannot wait for itself"
        upstream.append(target.fqn)
    require = str(item.get("require", "any")).strip().lower()
    if require not in ("any", "all"):
        return None, f"require is any or all, not '{item.get('require')}'"
    return Trigger(ref.fqn, Kind.AFTER, line, cron=cron, after=tuple(upstream), require_all=require == "all"), None


def parse_triggers(ref: PipelineRef, text: str | None, path: str) -> PipelineTriggers:
    """The triggers and cooldown in config.yaml's `text` (YAML errors are config.yaml's own problems)."""
    if not text:
        return PipelineTriggers(ref.fqn)
    try:
        node = yaml.compose(text)
        data = load_yaml(text)
    except yaml.YAMLError:  # pipeline_config reports it
        return PipelineTriggers(ref.fqn)
    if not isinstance(node, yaml.MappingNode) or not isinstance(data, dict):
        return PipelineTriggers(ref.fqn)
    values = {key.value: value for key, value in node.value}
    problems: list[Problem] = []
    triggers: list[Trigger] = []
    listed = values.get("triggers")
    if listed is not None:
        if not isinstance(listed, yaml.SequenceNode):
            problems.append(Problem(path, "triggers must be a list, one `- cron: …` (or landing, after, webhook, stale) "
                                          "an item", listed.start_mark.line + 1))
        else:
            for item_node, item in zip(listed.value, data["triggers"]):
                line = item_node.start_mark.line + 1
                if not isinstance(item, dict):
                    problems.append(Problem(path, f"a trigger is a mapping such as `cron: \"0 6 * * *\"`, not {item!r}",
                                            line))
                    continue
                trigger, issue = _one(ref, item, line)
                if issue:
                    problems.append(Problem(path, issue, line))
                elif trigger is not None:
                    triggers.append(trigger)
    cooldown = 0.0
    if "cooldown" in values:
        seconds = parse_duration(data["cooldown"])
        if seconds is None:
            problems.append(Problem(path, f"cooldown is a duration such as 10m, 30s, 2h or 1d, not {data['cooldown']!r}",
                                    values["cooldown"].start_mark.line + 1))
        else:
            cooldown = seconds
    return PipelineTriggers(ref.fqn, tuple(triggers), cooldown, tuple(problems))


def cycle_sentence(cycle: list[str]) -> str:
    return "after triggers form a cycle: " + " → ".join(cycle)


def after_cycles(pipelines: list[PipelineTriggers]) -> list[list[str]]:
    """Each cycle of `after` triggers once, as the path that closes it: [a, b, a]."""
    edges = {p.pipeline: {up for t in p.triggers if t.kind == Kind.AFTER for up in t.after} for p in pipelines}
    found: dict[frozenset[str], list[str]] = {}
    for _, cycle in closing_edges(edges):
        found.setdefault(frozenset(cycle), cycle)
    return list(found.values())
