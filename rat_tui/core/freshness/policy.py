"""Each pipeline's effective freshness policy: its config.yaml's `freshness:` over rat.yaml's."""
from __future__ import annotations

from ..errors import Problem
from ..project.freshness_config import FreshnessPolicy, config_section, effective_policy
from ..project.model import PipelineRef, Project


def config_path(ref: PipelineRef) -> str:
    return (ref.relpath / "config.yaml").as_posix()


def pipeline_policy(project: Project, ref: PipelineRef) -> tuple[FreshnessPolicy | None, str | None]:
    """The policy (None: no threshold set anywhere), and why the pipeline's keys clash with the project's."""
    own, _ = _own_section(project, ref)
    return effective_policy(project.settings.freshness, own)


def _own_section(project: Project, ref: PipelineRef) -> tuple[dict, list[Problem]]:
    path = project.pipeline_dir(ref) / "config.yaml"
    try:
        text = path.read_text(encoding="utf-8") if path.is_file() else None
    except (OSError, UnicodeDecodeError):  # pipeline_config reports an unreadable config.yaml
        text = None
    return config_section(text, config_path(ref))


def selected(ref: PipelineRef, selector: str | None) -> bool:
    """`ns`, `ns.layer` or `ns.layer.name` (None: every pipeline)."""
    return selector is None or ref.fqn == selector or ref.fqn.startswith(selector + ".")


def policies(project: Project, selector: str | None = None) -> list[tuple[PipelineRef, FreshnessPolicy | Problem]]:
    """The selected pipelines that have a policy, or a `freshness:` that cannot be read (its first error)."""
    found: list[tuple[PipelineRef, FreshnessPolicy | Problem]] = []
    for ref in project.scan().pipelines():
        if selected(ref, selector):
            own, problems = _own_section(project, ref)  # config.yaml read once for both
            errors = [problem for problem in problems if problem.is_error]  # validate lists them too
            policy, _ = effective_policy(project.settings.freshness, own)
            if errors:  # a gate must not judge by a policy with a key left out
                found.append((ref, errors[0]))
            elif policy is not None:
                found.append((ref, policy))
    return found


def clash_problems(project: Project, only: PipelineRef | None = None) -> list[Problem]:
    """A pipeline's warn_after past rat.yaml's error_after (or the other way round), for `validate`."""
    problems = []
    for ref in project.scan().pipelines():
        if only is None or ref == only:
            _, clash = pipeline_policy(project, ref)
            if clash:
                problems.append(Problem(config_path(ref), clash))
    return problems
