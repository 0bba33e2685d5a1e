"""A published version of a pipeline against its working copy, file by file (unified diffs)."""
from __future__ import annotations

import difflib

from ..errors import RatError
from ..project.model import PipelineRef, Project
from ..store.versions import VersionStore
from .diff_results import FileDiff, VersionDiff


def version_diff(project: Project, versions: VersionStore, ref: PipelineRef, version: int) -> VersionDiff:
    """The files that differ, each as a unified diff (none: the working copy equals the version)."""
    published = {v.version: v for v in versions.published(ref)}
    if version not in published:
        known = ", ".join(str(v) for v in sorted(published)) or "none"
        raise RatError(f"{ref.fqn} has no published version {version} (kept versions: {known})")
    pinned = versions.read_pinned(ref, published[version])
    working = project.read_pipeline_files(ref)
    files = []
    for name in sorted(set(pinned) | set(working)):
        old = pinned.get(name, b"").decode("utf-8", "replace").splitlines(keepends=True)
        new = working.get(name, b"").decode("utf-8", "replace").splitlines(keepends=True)
        diff = "".join(difflib.unified_diff(old, new, f"v{version}/{name}", f"working/{name}"))
        if diff:
            files.append(FileDiff(name, diff))
    return VersionDiff(files)
