"""A run's diff against the main it began with, for review mode and the diff gates.

Diff gates (`@max_removed_rows`, `@max_changed_fraction`) are quality tests on that diff: they
report as quality results, and an `error` gate that fails blocks the merge like any test.
"""
from __future__ import annotations

import time
from typing import Any

from ..errors import RatError
from ..lake.diff import TableDiff, table_diff
from ..project.pipeline_config import MergeStrategy
from ..store.state import QualityOutcome
from .names import case_sensitive, spelled

# Each function takes the run (phases.Execution, which imports this module: hence Any).
Execution = Any


def diff_key(config) -> list[str]:
    """Rows of a table match by its unique key; scd2 keeps one row per key and version."""
    key = list(config.unique_key)
    return key + [config.scd_valid_from] if key and config.merge_strategy == MergeStrategy.SCD2 else key


def run_diff(ex: Execution) -> TableDiff | None:
    """The run's branch against main as the run found it, when the pipeline is reviewed or gated."""
    assert ex.pipeline is not None
    config = ex.pipeline.config
    if not (ex.review or config.diff_gates()):
        return None
    if ex.stage is not None:
        if ex.review:
            raise RatError(f"{ex.ref.fqn} is rebuilt beside main by this run (its unique key or a column's type "
                           "changed), which cannot wait for review; run it without review")
        ex.log("diff gates are not checked on a rebuild (the unique key or a column's type changed)", "warn")
        return None
    head = ex.table.head(ex.branch)
    key = spelled(diff_key(config), ex.table.schema().fieldNames(), case_sensitive(ex.spark))  # `ID` is column id
    diff = table_diff(ex.table, ex.base_snapshot, head, key)
    ex.record.review = {**ex.record.review, "diff": diff.as_dict()}
    ex.state.update_run(ex.record.run_id, review=ex.record.review)
    ex.log(f"diff against main: {diff.added} added, {diff.removed} removed, {diff.changed} changed "
           f"(read {diff.read})")
    return diff


def check_gates(ex: Execution, diff: TableDiff) -> list[str]:
    """Each gate as a quality result; returns why the merge is blocked (failed `error` gates)."""
    assert ex.pipeline is not None
    blocking = []
    for gate in ex.pipeline.config.diff_gates():
        began = time.monotonic()
        value = gate.measure(diff.removed, diff.changed, diff.old_rows)
        status = "passed" if value <= gate.limit else "warned" if gate.severity == "warn" else "failed"
        rows = diff.removed if gate.name == "max_removed_rows" else diff.removed + diff.changed
        ex.record_quality(QualityOutcome(gate.name, gate.severity, status, rows if status != "passed" else 0,
                                         int((time.monotonic() - began) * 1000), error=None))
        if status == "failed":
            blocking.append(f"diff gate {gate.name} failed: {gate.describe(value)}")
        elif status == "warned":
            ex.log(f"diff gate {gate.name} warned: {gate.describe(value)}", "warn")
    return blocking


def hold(ex: Execution) -> None:
    """Stop before main: the branch (and a table the run created) stays until approve or reject."""
    ex.record.review = {**ex.record.review, "base_snapshot": ex.base_snapshot, "schema_id": ex.schema_id,
                        "branch": ex.branch, "group": ex.options.review_group}
    ex.state.update_run(ex.record.run_id, review=ex.record.review, branch=ex.branch)
    ex.held = True
    ex.log(f"awaiting review: approve or reject run {ex.record.run_id}")
