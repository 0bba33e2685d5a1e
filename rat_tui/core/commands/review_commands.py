"""Review before merge: a key-aware diff of a table, and approving or rejecting runs that await review."""
from __future__ import annotations

from ..events import EventBus
from ..lake.diff import SAMPLE_ROWS, TableDiff, table_diff
from ..lake.session import SparkManager
from ..lake.table import IcebergTable
from ..lineage.service import ColumnLineage
from ..project.model import PipelineRef, Project
from ..run import review
from ..run.publish import check_main_unchanged
from ..run.strategies import UNIQUE_KEY_PROPERTY
from ..storage import Storage
from ..store.state import RunRecord, StateDB
from .run_results import ReviewResult, RunList


class Review:
    def __init__(self, project: Project, state: StateDB, events: EventBus, spark: SparkManager, storage: Storage,
                 column_lineage: ColumnLineage):
        self.project, self.state, self.events, self.spark, self.storage = project, state, events, spark, storage
        self.column_lineage = column_lineage

    def key_diff(self, pipeline: str, old: int | None, new: int, key: list[str] | None = None,
                 sample_rows: int = SAMPLE_ROWS) -> TableDiff:
        """What changed from snapshot `old` to `new`, matched by `key` (default: the table's unique key;
        none: by every column)."""
        ref = PipelineRef.parse(pipeline)
        with self.spark.using(isolated=True) as spark:  # table_diff sets its shuffle size on it
            self.spark.ensure_catalog(ref.namespace)
            table = IcebergTable(spark, ref)
            if key is None:
                stored = table.schema_and_property(UNIQUE_KEY_PROPERTY)[2]
                key = [k for k in (stored or "").split(",") if k]
            return table_diff(table, old, new, key, sample_rows)

    def pending_reviews(self) -> RunList:
        """Each held run, with what its change of columns breaks downstream (`impact`, one sentence each)."""
        held = self.state.held_runs()
        return RunList(held, {run.run_id: self.impact(run) for run in held})

    def impact(self, record: RunRecord) -> list[str]:
        """What a run awaiting review breaks downstream by its change of columns, one sentence each."""
        return [i.sentence() for i in self.column_lineage.held_run_impacts(record)]

    def approve(self, run_id: str) -> ReviewResult:
        """Publish the held run (with the runs of its selection, in dependency order): all, or none when
        main of any of their tables moved since."""
        group = review.review_group(self.state, run_id)
        with self.spark.using() as spark:
            for record in group:
                ref = PipelineRef.parse(record.pipeline)
                self.spark.ensure_catalog(ref.namespace)
                # "run it again" alone left the held run's branch, and the files it archived, with it
                check_main_unchanged(IcebergTable(spark, ref), record.review.get("base_snapshot"),
                                     record.review.get("schema_id"), since=review.SINCE,
                                     first=f"; reject run {run_id} first, which drops its branch and puts the "
                                           "landing files it read back in their zone")
            done = [review.approve(spark, self.state, self.events, record, self.spark.ensure_catalog)
                    for record in group]
        return self._reviewed(run_id, done)

    def reject(self, run_id: str) -> ReviewResult:
        """Drop the held run's branch (and those of its selection); main stays as it is."""
        group = review.review_group(self.state, run_id)
        with self.spark.using() as spark:
            done = [review.reject(spark, self.project, self.state, self.events, record, self.spark.ensure_catalog,
                                  self.storage.landing_archive) for record in reversed(group)]
        return self._reviewed(run_id, list(reversed(done)))

    @staticmethod
    def _reviewed(run_id: str, done: list[RunRecord]) -> ReviewResult:
        return ReviewResult(next(r for r in done if r.run_id == run_id), done)
