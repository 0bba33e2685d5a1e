"""Stalls of Textual's event loop, for the benchmarks: a 10 ms timer whose longest gap between
ticks is time the screen could not be redrawn."""
from __future__ import annotations

import time


class TickGaps:
    def __init__(self) -> None:
        self.gaps: list[float] = []
        self._last = 0.0
        self._timer = None

    def start(self, app) -> None:
        self._timer = app.set_interval(0.01, self._tick)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()

    def _tick(self) -> None:
        now = time.perf_counter()
        if self._last:
            self.gaps.append(now - self._last)
        self._last = now

    def summary(self) -> str:
        gaps = sorted(self.gaps)
        return (f"longest gap between UI ticks {gaps[-1] * 1000:.0f} ms (median {gaps[len(gaps) // 2] * 1000:.0f} ms, "
                f"99th percentile {gaps[int(len(gaps) * 0.99)] * 1000:.0f} ms)")
