"""`validate`: every problem in the project (or one pipeline) at once, never stopping at the first."""
from __future__ import annotations

from ..errors import Problem, did_you_mean
from .cycles import closing_edges
from .model import PipelineRef, Project, ProjectScan
from .pipeline_source import LoadedPipeline, load_pipeline
from .python_guard import python_problems
from .templating import syntax_problem, template_calls


def _template_problems(
    pipeline: LoadedPipeline, scan: ProjectScan, graph: dict[PipelineRef, set[PipelineRef]]
) -> list[Problem]:
    problems: list[Problem] = []
    sources = [(pipeline.source_relpath, pipeline.source)] if pipeline.kind == "sql" else []
    sources += [(test.relpath, test.sql) for test in pipeline.quality_tests]
    known = set(scan.pipelines())
    zones = {(z.namespace, z.name) for z in scan.zones()}
    for relpath, text in sources:
        issue = syntax_problem(text, relpath)
        if issue:
            problems.append(issue)
            continue
        for call in template_calls(text):
            if call.function == "ref":
                target = pipeline.ref.resolve(call.argument)
                if target is None:
                    problems.append(Problem(relpath, f"ref('{call.argument}') is not layer.name or ns.layer.name", call.line))
                elif target not in known:
                    problems.append(Problem(relpath, pipeline.ref.unknown_ref(call.argument, known), call.line))
                else:
                    graph.setdefault(pipeline.ref, set()).add(target)
            elif (pipeline.ref.namespace, call.argument) not in zones:
                problems.append(
                    Problem(relpath, f"landing_zone('{call.argument}') names no landing zone in {pipeline.ref.namespace}"
                            f"{did_you_mean(call.argument, [z for ns, z in zones if ns == pipeline.ref.namespace])}",
                            call.line)
                )
    return problems


def _cycle_problems(graph: dict[PipelineRef, set[PipelineRef]]) -> list[Problem]:
    return [Problem(node.relpath.as_posix(), f"cyclic ref: {' -> '.join(p.fqn for p in cycle)}")
            for node, cycle in closing_edges(graph)]


def validate(project: Project, only: PipelineRef | None = None) -> list[Problem]:
    scan = project.scan()
    problems = list(scan.problems) if only is None else []
    graph: dict[PipelineRef, set[PipelineRef]] = {}
    for ref in scan.pipelines():
        pipeline, load_problems = load_pipeline(ref, project.read_pipeline_files(ref))
        found = list(load_problems)
        if pipeline is not None:
            found += _template_problems(pipeline, scan, graph)
            if pipeline.kind == "py":
                found += python_problems(pipeline.source, pipeline.source_relpath)
        if only is None or ref == only:
            problems += found
    problems += [p for p in _cycle_problems(graph) if only is None or p.path == only.relpath.as_posix()]
    return problems
