"""Text the product writes for people: a count with the noun that agrees with it."""
from __future__ import annotations

from numbers import Integral


def count(n: float, one: str, many: str | None = None) -> str:
    """`count(1, "row")` is "1 row", `count(1200, "row")` "1,200 rows", `count(1.5, "day")` "1.5 days";
    `many` for a noun that takes no plain s (`count(2, "copy", "copies")`)."""
    number = f"{n:,}" if isinstance(n, Integral) else f"{n:g}"
    return f"{number} {one if n == 1 else many or one + 's'}"
