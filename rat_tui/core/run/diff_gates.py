"""A run's diff against the main it began with, for review mode and the diff gates.

Diff gates (`@max_removed_rows`, `@max_changed_fraction`) are quality tests on that diff: they
report as quality results, and an `error` gate that fails blocks the merge like any test.
"""
from __future__ import annotations

import time
from collections.abc import Callable

from ..errors import RatError
from ..lake.diff import TableDiff, table_diff
from ..lake.table import IcebergTable
from ..project.pipeline_config import MergeStrategy, PipelineConfig
from ..store.state import QualityOutcome
from .names import case_sensitive, spelled
from .outcomes import GateResult


def diff_key(config) -> list[str]:
    """Rows of a table match by its unique key; scd2 keeps one row per key and version."""
    key = list(config.unique_key)
    return key + [config.scd_valid_from] if key and config.merge_strategy == MergeStrategy.SCD2 else key


def run_diff(table: IcebergTable, branch: str, base_snapshot: int | None, config: PipelineConfig, review: bool,
             rebuilt: bool, log: Callable[..., None]) -> TableDiff | None:
    """The run's branch against main as the run found it, when the pipeline is reviewed or gated
    (`rebuilt`: the run wrote a stage beside main, which has no diff against it)."""
    if not (review or config.diff_gates()):
        return None
    if rebuilt:
        if review:
            raise RatError(f"{table.ref.fqn} is rebuilt beside main by this run (its unique key or a column's type "
                           "changed), which cannot wait for review; run it without review")
        log("diff gates are not checked on a rebuild (the unique key or a column's type changed)", "warn")
        return None
    head = table.head(branch)
    key = spelled(diff_key(config), table.schema().fieldNames(), case_sensitive(table.spark))  # `ID` is column id
    return table_diff(table, base_snapshot, head, key)


def check_gates(config: PipelineConfig, diff: TableDiff) -> list[GateResult]:
    """Each gate measured on the diff, in order."""
    results = []
    for gate in config.diff_gates():
        began = time.monotonic()
        value = gate.measure(diff.removed, diff.changed, diff.old_rows)
        status = "passed" if value <= gate.limit else "warned" if gate.severity == "warn" else "failed"
        rows = diff.removed if gate.name == "max_removed_rows" else diff.removed + diff.changed
        outcome = QualityOutcome(gate.name, gate.severity, status, rows if status != "passed" else 0,
                                 int((time.monotonic() - began) * 1000), error=None)
        said = f"diff gate {gate.name} {status}"
        results.append(GateResult(outcome, blocking=f"{said}: {gate.describe(value)}" if status == "failed" else None,
                                  warning=f"{said}: {gate.describe(value)}" if status == "warned" else None))
    return results

