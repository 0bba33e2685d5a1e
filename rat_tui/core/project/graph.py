"""The project as a graph: pipelines and landing zones, joined by what each pipeline reads.

SQL pipelines and quality tests are rendered with a recording context (once as a first run,
once as an incremental one, so both sides of `{% if is_incremental() %}` count); Python
pipelines are read for literal `ctx.ref(...)` / `ctx.landing_zone(...)` calls (they are not
run to find out). Zones are named `NS.landing.ZONE`. The graph is cached per pipeline and
rebuilt only for pipelines whose files changed.
"""
from __future__ import annotations

import ast
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..errors import RatError
from .model import LAYERS, PipelineRef, Project
from .pipeline_source import LoadedPipeline, load_pipeline
from .partitions import PLACEHOLDER_INTERVAL
from .templating import render, template_calls

ZONE_LAYER = "landing"


@dataclass(frozen=True)
class Node:
    name: str          # ns.layer.name, or ns.landing.zone
    kind: str          # pipeline | zone
    layer: str

    @property
    def namespace(self) -> str:
        return self.name.split(".", 1)[0]


def zone_node(namespace: str, zone: str) -> str:
    return f"{namespace}.{ZONE_LAYER}.{zone}"


class _Recorder:
    """Stands in for ref() and landing_zone() while a template renders, noting what it asks for."""

    def __init__(self, ref: PipelineRef):
        self.ref, self.refs, self.zones = ref, set(), set()

    def record_ref(self, name: str) -> str:
        target = self.ref.resolve(name)
        self.refs.add(target.fqn if target else str(name))
        return "recorded_table"

    def record_zone(self, zone: str) -> str:
        self.zones.add(zone)
        return "recorded_zone"


def _template_inputs(pipeline: LoadedPipeline, text: str, relpath: str, recorder: _Recorder) -> None:
    for incremental in (False, True):
        context = {
            "ref": recorder.record_ref, "landing_zone": recorder.record_zone, "this": "recorded_this",
            "run_started_at": "2000-01-01 00:00:00.000000", "is_incremental": lambda flag=incremental: flag,
            "is_scd2": lambda: False, "config": pipeline.config.as_dict(), "watermark_value": "2000-01-01 00:00:00",
            **PLACEHOLDER_INTERVAL,
        }
        try:
            render(text, relpath, context)
        except RatError:  # a template that cannot render: its literal calls still say what it reads
            try:
                calls = template_calls(text)
            except Exception:  # not even parseable: validate and the run say why; the graph goes on
                return
            for call in calls:
                (recorder.record_ref if call.function == "ref" else recorder.record_zone)(call.argument)
            return


def _python_inputs(source: str, recorder: _Recorder) -> None:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("ref", "landing_zone") and node.args
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            (recorder.record_ref if node.func.attr == "ref" else recorder.record_zone)(node.args[0].value)


def pipeline_inputs(pipeline: LoadedPipeline) -> tuple[set[str], set[str]]:
    """(tables by ns.layer.name, zones by name in the pipeline's namespace) the pipeline reads."""
    recorder = _Recorder(pipeline.ref)
    if pipeline.kind == "sql":
        _template_inputs(pipeline, pipeline.source, pipeline.source_relpath, recorder)
    else:
        _python_inputs(pipeline.source, recorder)
    for test in pipeline.quality_tests:
        _template_inputs(pipeline, test.sql, test.relpath, recorder)
    return recorder.refs, recorder.zones


@dataclass
class ProjectGraph:
    nodes: dict[str, Node] = field(default_factory=dict)
    upstream: dict[str, set[str]] = field(default_factory=dict)    # node -> what it reads
    downstream: dict[str, set[str]] = field(default_factory=dict)  # node -> what reads it

    def add_edge(self, source: str, target: str) -> None:
        self.upstream.setdefault(target, set()).add(source)
        self.downstream.setdefault(source, set()).add(target)

    def pipelines(self) -> list[str]:
        return [n.name for n in self.nodes.values() if n.kind == "pipeline"]

    def _closure(self, start: str, edges: dict[str, set[str]]) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            for nxt in edges.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    def upstream_of(self, name: str) -> set[str]:
        return self._closure(name, self.upstream)

    def downstream_of(self, name: str) -> set[str]:
        return self._closure(name, self.downstream)

    def order(self, names: Iterable[str], leave_out_cycles: bool = False) -> list[str]:
        """The given pipelines in dependency order (upstream first; ties by layer, then name). A ref cycle is a
        RatError, or with `leave_out_cycles` its pipelines and those after them are left out."""
        wanted = set(names)
        done: list[str] = []
        placed: set[str] = set()
        while len(placed) < len(wanted):
            ready = [n for n in wanted - placed if not (self.upstream.get(n, set()) & (wanted - placed))]
            if not ready:
                if leave_out_cycles:
                    break
                raise RatError(f"cyclic ref: {self.cycle_in(wanted - placed)}")
            ready.sort(key=self._sort_key)
            done += ready
            placed |= set(ready)
        return done

    def _sort_key(self, name: str) -> tuple:
        node = self.nodes[name]
        return (LAYERS.index(node.layer) if node.layer in LAYERS else -1, name)

    def cycle_in(self, names: set[str]) -> str:
        """One cycle among `names`, as `a -> b -> a`."""
        start = min(names)
        path = [start]
        while True:
            nxt = min(n for n in self.upstream.get(path[-1], set()) if n in names)
            if nxt in path:
                cycle = path[path.index(nxt):] + [nxt]
                return " -> ".join(reversed(cycle))
            path.append(nxt)


class GraphCache:
    """The project's graph, re-reading only pipelines whose files changed since the last call."""

    def __init__(self, project: Project):
        self.project = project
        self._inputs: dict[PipelineRef, tuple[tuple, set[str], set[str]]] = {}
        self._lock = threading.Lock()

    def _signature(self, ref: PipelineRef) -> tuple:
        base = self.project.pipeline_dir(ref)
        return tuple(sorted((p.relative_to(base).as_posix(), p.stat().st_mtime_ns, p.stat().st_size)
                            for p in base.rglob("*") if p.is_file()))

    def graph(self) -> ProjectGraph:
        with self._lock:
            scan = self.project.scan()
            graph = ProjectGraph()
            for zone in scan.zones():
                name = zone_node(zone.namespace, zone.name)
                graph.nodes[name] = Node(name, "zone", ZONE_LAYER)
            pipelines = scan.pipelines()
            for ref in pipelines:
                graph.nodes[ref.fqn] = Node(ref.fqn, "pipeline", ref.layer)
            self._inputs = {ref: self._read(ref) for ref in pipelines}
            for ref, (_, tables, zones) in self._inputs.items():
                for table in tables:
                    if table in graph.nodes and table != ref.fqn:
                        graph.add_edge(table, ref.fqn)
                for zone in zones:
                    name = zone_node(ref.namespace, zone)
                    if name in graph.nodes:
                        graph.add_edge(name, ref.fqn)
            return graph

    def signature(self, ref: PipelineRef) -> tuple | None:
        """The pipeline's files (names, times, sizes) as the last `graph()` saw them: unchanged, unsaved."""
        cached = self._inputs.get(ref)
        return cached[0] if cached is not None else None

    def _read(self, ref: PipelineRef) -> tuple[tuple, set[str], set[str]]:
        signature = self._signature(ref)
        cached = self._inputs.get(ref)
        if cached is not None and cached[0] == signature:
            return cached
        pipeline, _ = load_pipeline(ref, self.project.read_pipeline_files(ref))
        tables, zones = pipeline_inputs(pipeline) if pipeline is not None else (set(), set())
        return signature, tables, zones
