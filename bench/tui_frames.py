"""Time to first frame, and the longest stall of the UI loop while a run is in progress.

    python bench/tui_frames.py

The stall is measured with a 10 ms timer on Textual's event loop: any gap well above
10 ms is time the screen could not be redrawn.
"""
from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from devkit.pilot import select, temporary_sample_project, until  # noqa: E402
from rat_tui.core.compose import open_project  # noqa: E402
from rat_tui.tui.app import RatApp  # noqa: E402


async def measure(project: Path) -> None:
    began = time.perf_counter()
    wb = open_project(project)
    app = RatApp(wb, watch=False)
    first_frame: list[float] = []
    gaps: list[float] = []
    last = [0.0]

    def tick() -> None:
        now = time.perf_counter()
        if last[0]:
            gaps.append(now - last[0])
        last[0] = now

    async with app.run_test(size=(130, 40)) as pilot:
        app.call_after_refresh(lambda: first_frame.append(time.perf_counter() - began))
        await until(pilot, lambda: bool(first_frame), 30, "the first frame")
        await until(pilot, lambda: wb.spark.state.value == "ready", 120, "Spark")
        await select(pilot, "pipeline", "ecommerce.bronze.raw_orders")
        timer = app.set_interval(0.01, tick)
        run_began = time.perf_counter()
        await pilot.press("r")
        await until(pilot, lambda: bool(wb.runner.active), 30, "the run to start")
        await until(pilot, lambda: not wb.runner.active, 180, "the run to finish")
        run_s = time.perf_counter() - run_began
        timer.stop()
    wb.close()
    gaps.sort()
    print(f"time to first frame (Workbench + app start, tree scheduled): {first_frame[0] * 1000:.0f} ms")
    print(f"run of ecommerce.bronze.raw_orders in the app: {run_s:.1f} s, {len(gaps)} ticks of 10 ms")
    print(f"longest gap between UI ticks during the run: {gaps[-1] * 1000:.0f} ms "
          f"(median {gaps[len(gaps) // 2] * 1000:.0f} ms, 99th percentile {gaps[int(len(gaps) * 0.99)] * 1000:.0f} ms)")


def main() -> None:
    with temporary_sample_project() as project:
        asyncio.run(measure(project))


if __name__ == "__main__":
    main()
