"""What a run's steps hand back to the run (phases.py), which alone assembles its record from them.

Here, below both the steps and the run, so the steps (landing_steps.py, intervals.py, diff_gates.py)
return these without importing the run."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..store.state import QualityOutcome

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


@dataclass(frozen=True)
class BuildOutcome:
    """The build_result phase's: the result to write, or why there is nothing to write."""

    result: "DataFrame | None"
    rows: int | None = None  # counted when the result was materialised; None when the write runs the query
    nothing_new: str | None = None  # "nothing new in …": the run writes nothing, main stays

    @property
    def phase_rows(self) -> int | None:
        return 0 if self.nothing_new is not None else self.rows


@dataclass(frozen=True)
class GateResult:
    """One diff gate, measured: its quality result, and what it blocks or warns of."""

    outcome: QualityOutcome
    blocking: str | None = None  # why the merge is blocked (a failed `error` gate)
    warning: str | None = None  # what the run's log says of a `warn` gate that failed
