"""`doctor`: the files on disk, the Iceberg metadata, the pipelines and the state must agree.

`check()` reads only (no Spark). `fix()` applies the fixes upkeep can make itself; a finding whose
fix is a run (`needs_run`) is the command layer's to act on. `apply_fixes` logs each fix made.
"""
from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

from ..errors import RatError
from ..lake.files import local_path
from ..lake.metadata import load_table
from ..lake.session import SparkManager
from ..lake.table import IcebergTable, leftover_run_branches
from ..landing.archive import is_kept_copy_folder
from ..project.model import PipelineRef, Project, in_namespace
from ..store.state import StateDB
from ..store.versions import VersionStore
from ..text import count
from .orphans import removable_orphans

log = logging.getLogger(__name__)


@dataclass
class Finding:
    kind: str
    object: str
    detail: str
    fix: str
    namespace: str  # the namespace the finding belongs to (`doctor --namespace`)
    fixed: bool = False

    @property
    def needs_run(self) -> bool:
        """Its fix is a full-refresh run of the pipeline named in `object` (the command layer runs it)."""
        return self.kind == "pipeline_without_table"

    def as_dict(self) -> dict:
        found = asdict(self)
        del found["namespace"]
        return found


def apply_fixes(findings: list[Finding], fix: Callable[[Finding], bool]) -> None:
    """`fix` each finding in order; one whose fix fails says why in its detail, and the rest go on."""
    for finding in findings:
        try:
            finding.fixed = fix(finding)
        except RatError as exc:
            finding.detail += f"; fix failed: {exc.sentence()}"
        if finding.fixed:
            log.info("doctor fixed %s %s: %s", finding.kind, finding.object, finding.fix)


def _snapshot_files_exist(table, snapshot) -> bool:
    io = table.io
    if not local_path(snapshot.manifest_list).exists():
        return False
    for manifest in snapshot.manifests(io):
        if not local_path(manifest.manifest_path).exists():
            return False
        for entry in manifest.fetch_manifest_entry(io):
            if not local_path(entry.data_file.file_path).exists():
                return False
    return True


def _spark_table(spark: SparkManager, fqn: str) -> IcebergTable:
    ref = PipelineRef.parse(fqn)
    spark.ensure_catalog(ref.namespace)
    return IcebergTable(spark.session(), ref)


class Doctor:
    def __init__(self, project: Project, state: StateDB, versions: VersionStore, tables: list[PipelineRef],
                 namespace: str | None = None):
        self.project, self.state, self.versions = project, state, versions
        self.tables = tables  # on disk, whether or not a pipeline still produces them
        self.namespace = namespace

    def check(self) -> list[Finding]:
        return [f for f in self._check() if in_namespace(f.namespace, self.namespace)]

    def _check(self) -> list[Finding]:
        findings: list[Finding] = []
        pipelines = set(self.project.scan().pipelines())
        tables = self.tables
        live = self.state.unsettled_run_ids()  # a run awaiting review keeps its branch
        for ref in tables:
            if ref not in pipelines:
                findings.append(Finding("table_without_pipeline", ref.fqn, "no pipeline produces this table "
                                        "(renamed or deleted?)", "drop the table", ref.namespace))
            findings += self._table_findings(ref, live)
        produced = {r["pipeline"] for r in self.state.query("SELECT DISTINCT pipeline FROM runs WHERE status = 'success'")}
        for ref in sorted(pipelines):
            if ref.fqn in produced and ref not in tables:
                findings.append(Finding("pipeline_without_table", ref.fqn, "the pipeline ran before but its table is gone",
                                        "run the pipeline with --full-refresh", ref.namespace))
        for row in self.state.stuck_runs(self.project.settings.stuck_run_timeout_minutes, time.time()):
            findings.append(Finding("stuck_run", row["run_id"], f"run of {row['pipeline']} running for more than "
                                    f"{count(self.project.settings.stuck_run_timeout_minutes, 'minute')}", "mark it failed",
                                    row["pipeline"].split(".")[0]))
        known_runs = {r["run_id"] for r in self.state.query("SELECT run_id FROM runs")}
        for zone in self.project.scan().zones():
            processed = zone.path / "_processed"
            for folder in sorted(processed.iterdir()) if processed.is_dir() else []:
                if folder.is_dir() and folder.name not in known_runs and not is_kept_copy_folder(folder.name):
                    findings.append(Finding("processed_without_run", self.project.rel(folder),
                                            f"archived files of run {folder.name}, which has no record", "delete the folder",
                                            zone.namespace))
        pinned = self.versions.pinned_ids()
        for version in self.versions.all_versions():
            if not self.versions.blob_ok(version):
                pinned_note = " (pinned by a published version: restore it from a backup)" if version.version_id in pinned else ""
                findings.append(Finding("damaged_version", version.version_id,
                                        f"stored content of {version.relpath} does not match its checksum{pinned_note}",
                                        "forget this file version" if not pinned_note else "none",
                                        version.relpath.split("/")[0]))
        return findings

    def _table_findings(self, ref: PipelineRef, live: set[str]) -> list[Finding]:
        found = []
        table_dir = self.project.table_dir(ref)
        try:
            table = load_table(table_dir, ref.fqn)
        except Exception as exc:
            return [Finding("unreadable_table", ref.fqn, f"metadata cannot be read: {exc}", "none", ref.namespace)]
        meta = table.metadata
        current = meta.current_snapshot()
        if current is not None and not _snapshot_files_exist(table, current):
            good = [s for s in sorted(meta.snapshots, key=lambda s: s.timestamp_ms, reverse=True)
                    if s.snapshot_id != current.snapshot_id and _snapshot_files_exist(table, s)]
            fix = f"point main at snapshot {good[0].snapshot_id}" if good else "none (no complete snapshot left)"
            found.append(Finding("missing_data_files", ref.fqn,
                                 f"current snapshot {current.snapshot_id} refers to files that are gone", fix,
                                 ref.namespace))
        try:
            stray = removable_orphans(self.project, self.state, ref, time.time())
        except Exception:
            stray = []
        hours = self.project.settings.orphan_file_min_age_hours
        for path in stray:
            found.append(Finding("unreferenced_file", self.project.rel(path),
                                 f"in {ref.fqn}, referenced by no metadata for more than {count(hours, 'hour')}",
                                 "delete the file", ref.namespace))
        for name in leftover_run_branches(meta.refs, live):
            found.append(Finding("leftover_branch", f"{ref.fqn}@{name}", "branch of a run that is not running",
                                 "drop the branch", ref.namespace))
        return found

    # -- fixing ---------------------------------------------------------------------------
    def fix(self, f: Finding, spark: SparkManager) -> bool:
        """Apply one finding's offered fix (not one that `needs_run`); False when it offers none."""
        if f.kind == "table_without_pipeline":
            _spark_table(spark, f.object).drop()
        elif f.kind == "missing_data_files" and f.fix.startswith("point main at snapshot"):
            _spark_table(spark, f.object).set_current(int(f.fix.rsplit(" ", 1)[1]))
        elif f.kind == "unreferenced_file":
            (self.project.root / f.object).unlink(missing_ok=True)
        elif f.kind == "leftover_branch":
            fqn, branch = f.object.split("@")
            _spark_table(spark, fqn).drop_branch(branch)
        elif f.kind == "stuck_run":
            self.state.update_run(f.object, status="failed", finished_at=time.time(),
                                  error="stuck in running; marked failed by doctor --fix")
        elif f.kind == "processed_without_run":
            shutil.rmtree(self.project.root / f.object)
        elif f.kind == "damaged_version" and f.fix != "none":
            self.versions.delete_versions([f.object])
        else:
            return False
        return True
