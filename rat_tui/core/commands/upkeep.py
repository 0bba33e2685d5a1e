"""Keeping the lakehouse healthy: the consistency check and purges."""
from __future__ import annotations

import time

from ..errors import RatError
from ..lake.session import SparkManager
from ..project.model import Project
from ..project.settings import zone_settings
from ..storage import Storage
from ..store.state import StateDB
from ..store.versions import VersionStore
from ..upkeep.doctor import Doctor, Finding, apply_fixes
from ..upkeep.purge import PurgePlan, Reaper, needs_spark
from .runs import Runs
from .tables import table_refs
from .upkeep_results import AutoPurged, DoctorReport, PurgeReport


class Upkeep:
    def __init__(self, project: Project, state: StateDB, version_store: VersionStore, storage: Storage,
                 spark: SparkManager, runs: Runs):
        self.project, self.state, self.version_store, self.storage = project, state, version_store, storage
        self.spark, self.runs = spark, runs

    def doctor(self, fix: bool = False, namespace: str | None = None) -> DoctorReport:
        doctor = Doctor(self.project, self.state, self.version_store, table_refs(self.project), namespace)
        findings = doctor.check()
        if fix and findings:
            apply_fixes(findings, lambda finding: self._rerun(finding) if finding.needs_run else doctor.fix(finding, self.spark))
        result = DoctorReport(findings)
        unfixed = [f for f in findings if not f.fixed]
        if unfixed:
            raise RatError.with_result(
                f"{len(unfixed)} finding(s){' not fixed' if fix else ''}; first: {unfixed[0].kind} {unfixed[0].object}", result)
        return result

    def _rerun(self, finding: Finding) -> bool:
        self.runs.run(finding.object, full_refresh=True)
        return True

    def auto_purge(self, now: float | None = None) -> AutoPurged:
        """Old `_processed/` files of zones with `auto_purge: true` (at start-up and daily in the TUI)."""
        reaper = Reaper(self.project, self.state, self.version_store, self.storage, [])
        now = time.time() if now is None else now
        def wanted(zone) -> bool:
            return zone_settings(self.project.settings, zone.namespace, zone.name).auto_purge

        plan = PurgePlan(processed_files=reaper.processed_files(now, wanted),
                         bucket_processed_files=reaper.bucket_processed_files(now, wanted))
        reaper.apply(plan)
        return AutoPurged(len(plan.processed_files) + len(plan.bucket_processed_files))

    def purge(self, dry_run: bool = False, now: float | None = None, namespace: str | None = None) -> PurgeReport:
        reaper = Reaper(self.project, self.state, self.version_store, self.storage, table_refs(self.project), namespace)
        plan = reaper.plan(now)
        if not dry_run:
            if needs_spark(plan):
                with self.spark.using() as spark:
                    reaper.apply(plan, spark, self.spark.ensure_catalog)
            else:
                reaper.apply(plan)
        return PurgeReport(plan, dry_run)
