"""What a run would read, for a build that writes nothing: the preview, a unit test's fixture."""
from __future__ import annotations

import secrets
from datetime import datetime, timezone

from ..lake.session import SparkManager
from ..lake.table import IcebergTable
from ..landing.load_history import LoadHistory
from ..project.model import PipelineRef, Project
from ..run.context import RunContext, run_timestamp
from ..run.intervals import preview_interval
from ..storage import Storage
from ..store.state import StateDB


class Previews:
    def __init__(self, project: Project, state: StateDB, spark: SparkManager, storage: Storage):
        self.project, self.state, self.spark, self.storage = project, state, spark, storage

    def context(self, spark, ref: PipelineRef, config, kind: type[RunContext] = RunContext) -> RunContext:
        """What a run would read, on `spark`, for a build that writes nothing (a preview, a fixture)."""
        self.spark.ensure_catalog(ref.namespace)
        table = IcebergTable(spark, ref)
        return kind(spark, self.project, ref, config, f"preview_{secrets.token_hex(3)}",
                    run_timestamp(datetime.now(timezone.utc)), table, table.exists(), self.storage,
                    ensure_catalog=self.spark.ensure_catalog, memory=LoadHistory(self.state), preview=True,
                    interval=preview_interval(config))
