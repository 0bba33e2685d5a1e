"""Approving or rejecting runs that await review, in any process (state.db and the table hold all
they need). Approve publishes exactly as a run does at its end (publish.py), with the same check
that main is still where the run began; reject drops the branch and leaves main as it is."""
from __future__ import annotations

import logging
import time

from ..errors import RatError
from ..events import EventBus, LogLine, RunFinished
from ..landing.archive import LandingArchive
from ..lake.table import IcebergTable
from ..project.model import PipelineRef, Project
from ..store.intervals import IntervalStore
from ..store.state import RunRecord, StateDB
from .publish import fast_forward
from .schema_evolution import settle_schema_changes

log = logging.getLogger(__name__)
SINCE = "since the run was held for review"


def held_run(state: StateDB, run_id: str) -> RunRecord:
    record = state.get_run(run_id)
    if record is None:
        raise RatError(f"no run {run_id} in this project (see `runs`)")
    if record.status != "awaiting_review":
        raise RatError(f"run {run_id} of {record.pipeline} is not awaiting review (it is {record.status})")
    return record


def review_group(state: StateDB, run_id: str) -> list[RunRecord]:
    """The run, or every held run of its selection, in the order they ran (dependency order)."""
    record = held_run(state, run_id)
    group = record.review.get("group")
    if not group:
        return [record]
    return [run for run in state.held_runs() if run.review.get("group") == group]


def _finish(state: StateDB, events: EventBus, record: RunRecord, **fields) -> RunRecord:
    state.update_run(record.run_id, branch=None, created_table=False, **fields)
    finished = state.get_run(record.run_id)
    assert finished is not None
    IntervalStore(state).settle(finished.run_id, finished.status, finished.snapshot_id)  # a held backfill's
    events.publish(RunFinished.of(finished))
    return finished


def approve(spark, state: StateDB, events: EventBus, record: RunRecord, ensure_catalog) -> RunRecord:
    """Fast-forward main to the held run's branch; refused with a sentence when main moved meanwhile."""
    ref = PipelineRef.parse(record.pipeline)
    ensure_catalog(ref.namespace)
    table = IcebergTable(spark, ref)
    branch = record.review["branch"]

    def say(message: str, level: str = "info") -> None:
        events.publish(LogLine(record.run_id, level, message))

    published = fast_forward(table, branch, record.run_id, record.review.get("base_snapshot"),
                             record.review.get("schema_id"), say, since=SINCE)  # the branch goes with it
    log.info("run %s of %s approved; main is now %s", record.run_id, record.pipeline, published)
    return _finish(state, events, record, status="success", snapshot_id=published)


def reject(spark, project: Project, state: StateDB, events: EventBus, record: RunRecord, ensure_catalog,
           landing_archive: LandingArchive, reason: str = "rejected in review") -> RunRecord:
    """Drop the held run's branch (or the table it created), put its schema change and archived
    landing files back; main is untouched."""
    ref = PipelineRef.parse(record.pipeline)
    ensure_catalog(ref.namespace)
    table = IcebergTable(spark, ref)
    if record.created_table:
        table.drop()
    else:
        table.drop_branch(record.review["branch"])
        for line in settle_schema_changes(table, state.unsettled_run_ids(ref.fqn) - {record.run_id}):
            log.info(line)
    for zone in project.scan().zones():
        if zone.namespace == ref.namespace:
            landing_archive.restore(zone.path, record.run_id)
    return _finish(state, events, record, status="rejected", error=reason, finished_at=time.time())
