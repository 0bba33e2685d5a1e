"""The command layer: every action the TUI and `--script` offer, as plain methods returning data."""
from __future__ import annotations

from pathlib import Path

from .errors import RatError
from .project import PipelineRef, Project
from .validate import validate


class Workbench:
    """One open project and the services built on it. Faces call these methods; nothing here renders."""

    def __init__(self, root: Path | str):
        self.project = Project(root)

    # -- browsing -------------------------------------------------------------------
    def ls(self) -> dict:
        scan = self.project.scan()
        return {
            "namespaces": [
                {
                    "name": ns.name,
                    "pipelines": [p.fqn for p in ns.pipelines],
                    "zones": [z.name for z in ns.zones],
                }
                for ns in scan.namespaces
            ]
        }

    def validate(self, pipeline: str | None = None) -> dict:
        only = self.project.find_pipeline(pipeline) if pipeline else None
        problems = validate(self.project, only)
        errors = [p for p in problems if p.is_error]
        result = {"problems": [p.as_dict() for p in problems]}
        if errors:
            raise RatError.with_result(
                f"{len(errors)} problem(s) found; first: {errors[0].sentence()}", result
            )
        return result

    def resolve(self, text: str) -> PipelineRef:
        return self.project.find_pipeline(text)
