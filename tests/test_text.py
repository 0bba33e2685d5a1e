"""The one way the product writes a count with its noun."""
from __future__ import annotations

from rat_tui.core.text import count


def test_count_agrees_with_its_noun():
    assert [count(n, "row") for n in (0, 1, 2, 1200)] == ["0 rows", "1 row", "2 rows", "1,200 rows"]
    assert count(1, "copy", "copies") == "1 copy" and count(3, "copy", "copies") == "3 copies"
    assert [count(n, "day") for n in (1.0, 1.5, 14.0)] == ["1 day", "1.5 days", "14 days"]
