"""Start-up recovery: runs left behind by a crashed process are marked failed and their branches dropped."""
from __future__ import annotations

import logging
import time

from .catalog import IcebergTable
from .project import PipelineRef
from .state import RunRecord, StateDB

log = logging.getLogger(__name__)

CRASHED = "the process running it stopped before the run finished (crash or kill); its branch was dropped"


def mark_orphans(state: StateDB) -> list[RunRecord]:
    """Cheap, no Spark: runs whose process is gone become failed."""
    orphans = state.orphaned_runs()
    for run in orphans:
        state.update_run(run.run_id, status="failed", error=CRASHED, finished_at=time.time())
        log.warning("run %s of %s was left %s by a dead process; marked failed", run.run_id, run.pipeline, run.status)
    return orphans


def drop_leftovers(state: StateDB, spark, ensure_catalog) -> list[str]:
    """Drop branches (and tables created but never published) of finished runs; returns what was done."""
    done = []
    for run in state.unresolved_branches():
        ref = PipelineRef.parse(run.pipeline)
        try:
            ensure_catalog(ref.namespace)
            table = IcebergTable(spark, ref)
            if table.exists():
                if run.created_table:
                    table.drop()
                    done.append(f"dropped table {ref.fqn} created by crashed run {run.run_id}")
                elif run.branch:
                    table.drop_branch(run.branch)
                    done.append(f"dropped branch {run.branch} of {ref.fqn}")
            state.update_run(run.run_id, branch=None, created_table=False)
        except Exception:
            log.exception("could not clean up after run %s", run.run_id)
    for line in done:
        log.info(line)
    return done
