"""The reaper's tasks. `plan()` lists exactly what would go (a dry run changes nothing);
`apply()` deletes exactly that list. The clock is a parameter so tests can age things.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..lake.metadata import load_table
from ..lake.table import IcebergTable, leftover_run_branches, run_branch
from ..project.model import LandingZone, PipelineRef, Project, in_namespace
from ..project.settings import zone_settings
from ..storage import Storage
from ..store.state import StateDB
from ..store.versions import VersionStore
from .orphans import removable_orphans

log = logging.getLogger(__name__)
DAY = 86400.0


@dataclass
class PurgePlan:
    processed_files: list[dict] = field(default_factory=list)   # {path, bytes}
    snapshots_expired: list[dict] = field(default_factory=list)  # {table, snapshot_id, committed_at, added_bytes}
    orphan_files: list[dict] = field(default_factory=list)      # {path, bytes}
    orphan_branches: list[dict] = field(default_factory=list)   # {table, branch}
    stuck_runs: list[dict] = field(default_factory=list)        # {run_id, pipeline, started_at}
    file_versions: list[dict] = field(default_factory=list)     # {version_id, path, bytes}
    bucket_processed_files: list[dict] = field(default_factory=list)  # {path, bytes}: objects in the bucket

    def counts(self) -> dict[str, int]:
        return {name: len(items) for name, items in self.__dict__.items()}

    def as_dict(self) -> dict[str, list[dict]]:
        return dict(self.__dict__)


def _zone_max_age(project: Project, zone: LandingZone) -> float:
    return float(zone_settings(project.settings, zone.namespace, zone.name).processed_max_age_days)


class Reaper:
    def __init__(self, project: Project, state: StateDB, versions: VersionStore, storage: Storage,
                 tables: list[PipelineRef], namespace: str | None = None):
        self.project, self.state, self.versions = project, state, versions
        self.namespace = namespace
        self.storage = storage
        self.tables = [t for t in tables if self._mine(t.namespace)]

    def _mine(self, namespace_or_path: str) -> bool:
        return in_namespace(namespace_or_path, self.namespace)

    def plan(self, now: float | None = None) -> PurgePlan:
        now = time.time() if now is None else now
        plan = PurgePlan()
        plan.processed_files = self.processed_files(now)
        plan.bucket_processed_files = self.bucket_processed_files(now)
        self._snapshots_and_branches(plan, now)
        self._orphans(plan, now)
        self._stuck(plan, now)
        self._file_versions(plan, now)
        return plan

    def _zones(self, wanted: Callable[[LandingZone], bool] | None) -> list[LandingZone]:
        return [z for z in self.project.scan().zones() if self._mine(z.namespace) and (wanted is None or wanted(z))]

    def processed_files(self, now: float, wanted: Callable[[LandingZone], bool] | None = None) -> list[dict]:
        found = []
        for zone in self._zones(wanted):
            cutoff = now - _zone_max_age(self.project, zone) * DAY
            processed = zone.path / "_processed"
            for path in sorted(processed.rglob("*")) if processed.is_dir() else []:
                if path.is_file() and path.stat().st_mtime < cutoff:
                    found.append({"path": self.project.rel(path), "bytes": path.stat().st_size})
        return found

    def bucket_processed_files(self, now: float, wanted: Callable[[LandingZone], bool] | None = None) -> list[dict]:
        """`_processed/` objects in the bucket past their zone's age (a delete leaves a non-current
        version, which the bucket's lifecycle rule expires)."""
        found = []
        for zone in self._zones(wanted):
            cutoff = now - _zone_max_age(self.project, zone) * DAY
            for relpath, info in sorted(self.storage.processed_objects(self.project.rel(zone.path)).items()):
                if info.modified is not None and info.modified < cutoff:
                    found.append({"path": relpath, "bytes": info.size})
        return found

    def _snapshots_and_branches(self, plan: PurgePlan, now: float) -> None:
        cutoff_ms = (now - self.project.settings.snapshot_max_age_days * DAY) * 1000
        published_snapshots = {
            row["snapshot_id"] for row in self.state.query(
                "SELECT snapshot_id FROM runs WHERE version != 'draft' AND snapshot_id IS NOT NULL")}
        # A run awaiting review keeps its branch until retention.review_max_age_hours have passed.
        review_cutoff = now - self.project.settings.review_max_age_hours * 3600
        live = self.state.live_run_ids() | {run.run_id for run in self.state.held_runs()
                                            if (run.finished_at or run.queued_at) >= review_cutoff}
        for ref in self.tables:
            meta = load_table(self.project.table_dir(ref), ref.fqn).metadata
            kept = {r.snapshot_id for r in meta.refs.values()} | published_snapshots
            for snap in meta.snapshots:
                if snap.timestamp_ms < cutoff_ms and snap.snapshot_id not in kept:
                    extra = snap.summary.additional_properties if snap.summary else {}
                    plan.snapshots_expired.append({
                        "table": ref.fqn, "snapshot_id": snap.snapshot_id, "committed_at": snap.timestamp_ms / 1000,
                        "added_bytes": int(extra.get("added-files-size", 0))})
            for name in leftover_run_branches(meta.refs, live):
                plan.orphan_branches.append({"table": ref.fqn, "branch": name})

    def _orphans(self, plan: PurgePlan, now: float) -> None:
        for ref in self.tables:
            for path in removable_orphans(self.project, self.state, ref, now):
                plan.orphan_files.append({"path": self.project.rel(path), "bytes": path.stat().st_size})

    def _stuck(self, plan: PurgePlan, now: float) -> None:
        for row in self.state.stuck_runs(self.project.settings.stuck_run_timeout_minutes, now):
            if self._mine(row["pipeline"]):
                plan.stuck_runs.append({key: row[key] for key in ("run_id", "pipeline", "started_at")})

    def _file_versions(self, plan: PurgePlan, now: float) -> None:
        cutoff = now - self.project.settings.file_version_max_age_days * DAY
        pinned = self.versions.pinned_ids()
        latest: dict[str, str] = {}
        for version in self.versions.all_versions():
            latest[version.relpath] = version.version_id
        for version in self.versions.all_versions():
            if version.version_id in pinned or latest[version.relpath] == version.version_id or not self._mine(version.relpath):
                continue
            if version.created_at < cutoff:
                plan.file_versions.append({"version_id": version.version_id, "path": version.relpath, "bytes": version.size})

    # -- applying -------------------------------------------------------------------
    def apply(self, plan: PurgePlan, spark=None, ensure_catalog=None) -> None:
        for item in plan.processed_files:
            (self.project.root / item["path"]).unlink(missing_ok=True)
        for item in plan.bucket_processed_files:
            self.storage.delete_object(item["path"])
        self._remove_empty_processed_dirs()
        for item in plan.orphan_files:
            (self.project.root / item["path"]).unlink(missing_ok=True)
        if plan.snapshots_expired or plan.orphan_branches:
            assert spark is not None and ensure_catalog is not None
            self._expire(plan, spark, ensure_catalog)
        for run in plan.stuck_runs:
            self.state.update_run(run["run_id"], status="failed", finished_at=time.time(),
                                  error="stuck in running past stuck_run_timeout_minutes; marked failed by purge")
        self.versions.delete_versions([v["version_id"] for v in plan.file_versions])
        log.info("purge applied: %s", plan.counts())

    def _expire(self, plan: PurgePlan, spark, ensure_catalog) -> None:
        by_table: dict[str, list[int]] = {}
        for item in plan.snapshots_expired:
            by_table.setdefault(item["table"], []).append(item["snapshot_id"])
        for fqn, ids in by_table.items():
            ref = PipelineRef.parse(fqn)
            ensure_catalog(ref.namespace)
            IcebergTable(spark, ref).expire_snapshots(ids)
        held = {run_branch(run.run_id): run.run_id for run in self.state.held_runs()}
        for item in plan.orphan_branches:
            ref = PipelineRef.parse(item["table"])
            ensure_catalog(ref.namespace)
            IcebergTable(spark, ref).drop_branch(item["branch"])
            if item["branch"] in held:  # its review waited past retention.review_max_age_hours
                self.state.update_run(held[item["branch"]], status="rejected", branch=None,
                                      error="not reviewed within retention.review_max_age_hours; purge dropped its branch")

    def _remove_empty_processed_dirs(self) -> None:
        for zone in self.project.scan().zones():
            processed = zone.path / "_processed"
            if not processed.is_dir():
                continue
            for folder in sorted((p for p in processed.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
                if not any(folder.iterdir()):
                    folder.rmdir()


def needs_spark(plan: PurgePlan) -> bool:
    return bool(plan.snapshots_expired or plan.orphan_branches)
