"""Column lineage results as the script's JSON (docs/script.md: `lineage --column`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the service imports sqlglot: 0.2 s an attached client does not pay
    from ..core.lineage.service import ColumnTrace


def column_trace_json(trace: ColumnTrace) -> dict:
    """`note`: only when there is one (a column its query no longer makes)."""
    found = {"column": trace.column.name, "direction": trace.direction,
             "columns": [{"table": c.column.table, "column": c.column.column, "kind": c.kind, "via": c.via,
                          "depth": c.depth, "pipeline": c.pipeline} for c in trace.columns]}
    return {**found, "note": trace.note} if trace.note else found
