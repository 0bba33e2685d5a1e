"""A review diff's changed rows print NULL as the preview does, not `None` (issue 36.6)."""
from __future__ import annotations

from rich.console import Console

from rat_tui.core.lake.diff import TableDiff
from rat_tui.tui.components.diff_view import diff_view


def test_changed_rows_print_null_as_the_preview_does():
    diff = {"key": ["order_id"], "added": 1, "removed": 0, "changed": 1, "columns": {"status": 1},
            "sample": [{"change": "changed", "old": {"order_id": 7, "status": "placed", "note": None},
                        "new": {"order_id": 7, "status": None, "note": None}},
                       {"change": "added", "old": None, "new": {"order_id": 8, "status": "shipped", "note": None}}]}
    console = Console(width=118, record=True)
    console.print(diff_view(TableDiff(**diff)))
    lines = console.export_text().splitlines()
    assert any("placed → NULL" in line for line in lines) and not any("None" in line for line in lines)
    assert any(line.split() == ["added", "8", "shipped", "NULL"] for line in lines)


def test_a_timestamp_in_a_wide_diff_is_never_cut():
    """The sample's ten order columns in the run view's width at 160×48: the timestamp column shrank
    below its date and printed `2024-01-…`; a value may wrap at its spaces, never lose characters."""
    old = {"order_id": 1, "customer_id": 37, "customer_name": "Ines Rossi", "customer_city": "Lisbon",
           "product_id": 27, "quantity": 4, "amount": 86.84, "status": "shipped", "order_date": "2024-01-24",
           "updated_at": "2024-01-26 01:29:00"}
    new = dict(old, status="delivered", updated_at="2024-01-27 09:00:00")
    diff = {"key": ["order_id"], "added": 1, "removed": 0, "changed": 1, "columns": {"status": 1, "updated_at": 1},
            "sample": [{"change": "changed", "old": old, "new": new},
                       {"change": "added", "old": None, "new": dict(old, order_id=9)}]}
    console = Console(width=118, record=True)
    console.print(diff_view(TableDiff(**diff)))
    text = console.export_text()
    rows = text[text.index("Changed rows"):]
    assert "…" not in rows.split("\n", 2)[2], rows  # under the header line, no value is cut
    for word in ("2024-01-26", "01:29:00", "2024-01-27", "09:00:00", "Rossi", "delivered"):
        assert word in rows, rows
