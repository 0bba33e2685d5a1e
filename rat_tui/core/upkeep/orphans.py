"""The one rule purge and doctor share for deleting files no table metadata references.

A run writes its data files before the commit that references them, so an unreferenced file
may be a live run's output: it is never touched while a run of its table is alive (in any
process), nor while younger than `orphan_file_min_age_hours`.
"""
from __future__ import annotations

from pathlib import Path

from ..lake.files import unreferenced_files
from ..project.model import PipelineRef, Project
from ..store.state import StateDB


def removable_orphans(project: Project, state: StateDB, ref: PipelineRef, now: float) -> list[Path]:
    if state.live_run_ids(ref.fqn):
        return []
    cutoff = now - project.settings.orphan_file_min_age_hours * 3600
    found = []
    for path in unreferenced_files(project.table_dir(ref)):
        try:
            if path.stat().st_mtime < cutoff:
                found.append(path)
        except FileNotFoundError:  # removed meanwhile
            continue
    return found
