"""Browsing the project: its listing, the overview the tree shows, validation, a pipeline by name, run history."""
from __future__ import annotations

from ..automation.service import Automation
from ..errors import RatError
from ..freshness.policy import clash_problems as freshness_problems
from ..lake.metadata import load_table, table_stats
from ..lineage.service import ColumnLineage
from ..project.model import PipelineRef, Project
from ..project.validate import validate
from ..storage import Storage
from ..store.state import StateDB
from ..store.versions import VersionStore
from .browse_results import (
    Listing,
    NamespaceOverview,
    Overview,
    PipelineOverview,
    ProblemList,
    TableOverview,
    ZoneOverview,
)
from .run_results import RunList
from .tables import table_refs
from .versions import Versions


class Browse:
    def __init__(self, project: Project, state: StateDB, storage: Storage, version_store: VersionStore,
                 versions: Versions, automation: Automation, column_lineage: ColumnLineage):
        self.project, self.state, self.storage, self.version_store = project, state, storage, version_store
        self.versions, self.automation, self.column_lineage = versions, automation, column_lineage

    def ls(self) -> Listing:
        return Listing(self.project.scan())

    def overview(self) -> Overview:
        """Everything the project tree shows, in one pass over disk and state (no Spark)."""
        scan = self.project.scan()
        tables = {ref.fqn: ref for ref in table_refs(self.project)}
        namespaces = []
        for ns in scan.namespaces:
            pipelines = []
            for ref in ns.pipelines:
                last = self.state.runs(ref.fqn, limit=1)
                pipelines.append(PipelineOverview(ref, last[0].outcome if last else None,
                                                  self.version_store.current(ref) is not None,
                                                  self.versions.drift(ref), self.storage.pipeline_state(ref)))
            zones = [ZoneOverview(z.name, len(z.active_files())) for z in ns.zones]
            ns_tables = [self._table_overview(ref) for ref in tables.values() if ref.namespace == ns.name]
            namespaces.append(NamespaceOverview(ns.name, pipelines, zones, ns_tables))
        return Overview(namespaces, [p.sentence() for p in scan.problems if p.is_error])

    def _table_overview(self, ref: PipelineRef) -> TableOverview:
        try:
            stats = table_stats(load_table(self.project.table_dir(ref), ref.fqn))
        except Exception:  # a damaged table still shows, with its name
            return TableOverview(ref, None, None)
        return TableOverview(ref, stats["snapshot_id"], stats["rows"])

    def validate(self, pipeline: str | None = None) -> ProblemList:
        only = self.project.find_pipeline(pipeline) if pipeline else None
        problems = validate(self.project, only) + self.automation.problems(only) + freshness_problems(self.project, only)
        problems += self.column_lineage.working_copy_problems(only)
        problems += self.column_lineage.partition_column_problems(only)
        errors = [p for p in problems if p.is_error]
        result = ProblemList(problems)
        if errors:
            raise RatError.with_result(f"{len(errors)} problem(s) found; first: {errors[0].sentence()}", result)
        return result

    def resolve(self, text: str) -> PipelineRef:
        return self.project.find_pipeline(text)

    def runs(self, pipeline: str | None = None, limit: int = 20) -> RunList:
        name = PipelineRef.parse(pipeline).fqn if pipeline else None
        return RunList(self.state.runs(name, limit))
