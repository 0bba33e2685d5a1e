"""Review before merge: a key-aware diff of a table, and approving or rejecting a run that awaits review."""
from __future__ import annotations

from ..lake.diff import table_diff
from ..lake.table import IcebergTable
from ..project.model import PipelineRef
from ..run.strategies import UNIQUE_KEY_PROPERTY
from .base import WorkbenchParts


class ReviewCommands(WorkbenchParts):
    def key_diff(self, pipeline: str, old: int | None, new: int, key: list[str] | None = None) -> dict:
        """What changed from snapshot `old` to `new`, matched by `key` (default: the table's unique key;
        none: by every column)."""
        ref = PipelineRef.parse(pipeline)
        with self.spark.using() as spark:
            self.spark.ensure_catalog(ref.namespace)
            table = IcebergTable(spark, ref)
            if key is None:
                stored = table.schema_and_property(UNIQUE_KEY_PROPERTY)[2]
                key = [k for k in (stored or "").split(",") if k]
            return table_diff(table, old, new, key).as_dict()
