"""Diff gates: `@max_removed_rows: N` and `@max_changed_fraction: 5%`, each optionally followed by
its severity (`error`, the default, or `warn`), e.g. `@max_removed_rows: 1000 warn`."""
from __future__ import annotations

import re
from dataclasses import dataclass

GATE_KEYS = ("max_removed_rows", "max_changed_fraction")
_VALUE = re.compile(r"(\d+(?:\.\d+)?)\s*(%?)\s*(error|warn)?", re.IGNORECASE)


@dataclass(frozen=True)
class DiffGate:
    name: str
    limit: float  # rows, or a fraction of main's rows (0.05 for 5%)
    severity: str  # error | warn

    def measure(self, removed: int, changed: int, old_rows: int) -> float:
        """What the gate compares with its limit: rows removed, or the fraction of main's rows changed or removed."""
        if self.name == "max_removed_rows":
            return removed
        return (removed + changed) / old_rows if old_rows else 0.0

    def describe(self, value: float) -> str:
        if self.name == "max_removed_rows":
            return f"{int(value)} row(s) removed, at most {int(self.limit)} allowed"
        return f"{value:.1%} of main's rows changed or removed, at most {self.limit:.1%} allowed"


def parse_gate(name: str, text: str) -> DiffGate:
    """The gate, or ValueError with the sentence saying what is wrong."""
    match = _VALUE.fullmatch(str(text).strip())
    example = "1000 (or 1000 warn)" if name == "max_removed_rows" else "5% (or 5% warn)"
    if match is None:
        raise ValueError(f"{name} must be a number optionally followed by warn or error, like {example}, not '{text}'")
    number, percent, severity = float(match.group(1)), match.group(2), (match.group(3) or "error").lower()
    if name == "max_changed_fraction":
        if not percent and number > 1:
            raise ValueError(f"max_changed_fraction must be a percentage like 5% or a fraction like 0.05, not '{text}'")
        return DiffGate(name, number / 100 if percent else number, severity)
    if percent:
        raise ValueError(f"max_removed_rows is a number of rows, not a percentage ('{text}')")
    return DiffGate(name, number, severity)
