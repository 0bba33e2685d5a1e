"""Phase 1: a pipeline's files loaded and checked, one way for a run and for a preview."""
from __future__ import annotations

from collections.abc import Callable, Mapping

from ..errors import Problem, RatError
from ..project.model import PipelineRef
from ..project.names import layer_problem, name_problem
from ..project.pipeline_source import LoadedPipeline, load_pipeline
from ..project.templating import syntax_problem


def load_checked(ref: PipelineRef, files: Mapping[str, bytes],
                 warn: Callable[[Problem], None] = lambda problem: None) -> LoadedPipeline:
    """The pipeline, once its config, annotations and the template syntax of its source and quality
    tests hold; else the first error as a RatError. Warnings go to `warn` first. A name `validate` refuses is
    refused here too: built anyway, `BadName` and `badname` became two tables, and a `platinum` layer a table
    no tree showed."""
    for issue in (name_problem("namespace", ref.namespace), layer_problem(ref.layer), name_problem("pipeline", ref.name)):
        if issue:
            raise RatError(issue, ref.relpath.as_posix())
    pipeline, problems = load_pipeline(ref, files)
    errors = [p for p in problems if p.is_error]
    if pipeline is not None:
        texts = [(pipeline.source_relpath, pipeline.source)] if pipeline.kind == "sql" else []
        texts += [(t.relpath, t.sql) for t in pipeline.quality_tests]
        errors += [p for p in (syntax_problem(text, path) for path, text in texts) if p]
    for problem in problems:
        if not problem.is_error:
            warn(problem)
    if errors:
        raise RatError.from_problem(errors[0])
    assert pipeline is not None
    return pipeline
