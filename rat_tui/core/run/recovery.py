"""Start-up recovery: runs left behind by a crashed process are marked failed and their branches dropped."""
from __future__ import annotations

import logging
import time

from ..errors import RatError
from ..lake.metadata import load_table, run_reached_main
from ..lake.table import IcebergTable
from ..landing.archive import LandingArchive
from ..project.model import PipelineRef, Project
from ..store.state import RunRecord, StateDB
from .rebuild import staged_run_id, staging_tables
from .schema_evolution import settle_schema_changes

log = logging.getLogger(__name__)

MERGED_THEN_CRASHED = "the process stopped after the run had published to main; its branch was dropped"
CRASHED = "the process running it stopped before the run finished (crash or kill); its branch was dropped"


def mark_orphans(state: StateDB, project: Project, landing_archive: LandingArchive | None = None) -> list[RunRecord]:
    """Cheap, no Spark: runs whose process is gone become failed, and files they archived go back.

    A run that had already moved main did publish its data: it is marked a success and keeps
    its archived files. The table decides that (a snapshot carrying the run's id is in main's
    history), since the process may have died between moving main and recording it.
    """
    landing_archive = landing_archive or LandingArchive()
    orphans = state.orphaned_runs()
    for run in orphans:
        published = run.snapshot_id if run.snapshot_id is not None else _published_snapshot(project, run)
        if published is not None:
            state.update_run(run.run_id, status="success", error=MERGED_THEN_CRASHED, finished_at=time.time(),
                             snapshot_id=published, created_table=False)
            log.warning("run %s of %s had published to main when its process stopped; marked a success",
                        run.run_id, run.pipeline)
            continue
        # files first: a crash during the put-back leaves the run an orphan, found again next start
        namespace = run.pipeline.split(".")[0]
        for zone in project.scan().zones():
            if zone.namespace == namespace:
                restored = landing_archive.restore(zone.path, run.run_id)
                if restored:
                    log.warning("put %d archived file(s) of run %s back into %s/%s", len(restored), run.run_id,
                                namespace, zone.name)
        state.update_run(run.run_id, status="failed", error=CRASHED, finished_at=time.time())
        log.warning("run %s of %s was left %s by a dead process; marked failed", run.run_id, run.pipeline, run.status)
    return orphans


def _published_snapshot(project: Project, run: RunRecord) -> int | None:
    ref = PipelineRef.parse(run.pipeline)
    try:
        table = load_table(project.table_dir(ref), ref.fqn)
    except RatError:  # never created
        return None
    return run_reached_main(table, run.run_id, since_ms=(run.started_at or run.queued_at or 0) * 1000)


def leftover_stages(project: Project, state: StateDB) -> list[PipelineRef]:
    """Staging tables of rebuilds whose run is no longer alive."""
    live = state.live_run_ids()
    return [stage for stage in staging_tables(project) if staged_run_id(stage) not in live]


def drop_leftovers(state: StateDB, project: Project, spark, ensure_catalog) -> list[str]:
    """Drop branches (and tables created but never published) of finished runs, including runs that
    published before their process stopped, and put back the schema changes of those that did not;
    returns what was done."""
    done = []
    for run in state.unresolved_branches():
        ref = PipelineRef.parse(run.pipeline)
        try:
            ensure_catalog(ref.namespace)
            table = IcebergTable(spark, ref)
            if table.exists():
                # a table the dead run made, unless another run published on it since (main's head then
                # carries that run's id; the create's own snapshot carries none) or is writing into it now
                # (it waited for the dead run's pipeline lock, then found the table): then later
                if run.created_table and table.head_summary("main")[2] is None:
                    if state.live_run_ids(ref.fqn):
                        continue
                    table.drop()
                    done.append(f"dropped table {ref.fqn} created by crashed run {run.run_id}")
                else:
                    if run.branch:
                        table.drop_branch(run.branch)
                        done.append(f"dropped branch {run.branch} of {ref.fqn}")
                    done += settle_schema_changes(table, state.unsettled_run_ids(ref.fqn))
            state.update_run(run.run_id, branch=None, created_table=False)
        except Exception:
            log.exception("could not clean up after run %s", run.run_id)
    for stage in leftover_stages(project, state):
        try:
            ensure_catalog(stage.namespace)
            IcebergTable(spark, stage).drop()
            done.append(f"dropped staging table {stage.fqn} of run {staged_run_id(stage)}")
        except Exception:
            log.exception("could not drop staging table %s", stage.fqn)
    for line in done:
        log.info(line)
    return done
