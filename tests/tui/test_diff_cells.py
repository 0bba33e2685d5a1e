"""A review diff's changed rows print NULL as the preview does, not `None` (issue 36.6)."""
from __future__ import annotations

from rich.console import Console

from rat_tui.tui.components.diff_view import diff_view


def test_changed_rows_print_null_as_the_preview_does():
    diff = {"key": ["order_id"], "added": 1, "removed": 0, "changed": 1, "columns": {"status": 1},
            "sample": [{"change": "changed", "old": {"order_id": 7, "status": "placed", "note": None},
                        "new": {"order_id": 7, "status": None, "note": None}},
                       {"change": "added", "old": None, "new": {"order_id": 8, "status": "shipped", "note": None}}]}
    console = Console(width=118, record=True)
    console.print(diff_view(diff))
    lines = console.export_text().splitlines()
    assert any("placed → NULL" in line for line in lines) and not any("None" in line for line in lines)
    assert any(line.split() == ["added", "8", "shipped", "NULL"] for line in lines)
