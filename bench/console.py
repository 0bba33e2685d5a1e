"""The SQL console on a warm session: time to the first result of `SELECT * FROM t LIMIT 100`, and
the longest stall of the UI loop while scrolling a 10,000-row result.

    python bench/console.py

Times are from Ctrl+Enter to the grid on screen, in the real app. The stall is measured as in
bench/tui_frames.py: a 10 ms timer on Textual's event loop, whose longest gap is time the screen
could not be redrawn.
"""
from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from devkit.frames import TickGaps  # noqa: E402
from devkit.pilot import temporary_sample_project, until  # noqa: E402
from rat_tui.core.compose import open_project  # noqa: E402
from rat_tui.tui.app import RatApp  # noqa: E402
from rat_tui.tui.components.console import ConsolePanel  # noqa: E402

TABLE = "bench.bronze.wide"
PIPELINE = """SELECT id, concat('customer_', id % 997) AS customer, id * 1.5 AS amount,
       date_add(DATE '2024-01-01', CAST(id % 365 AS INT)) AS day, id % 7 = 0 AS flagged,
       repeat('x', CAST(id % 40 AS INT)) AS note
FROM range(0, 200000)
"""


async def run(app: RatApp, pilot, sql: str) -> float:
    console = app.query_one(ConsolePanel)
    console.editor.text = sql
    shown = console.results.grid  # the result is set a moment before its grid replaces this one
    began = time.perf_counter()
    await pilot.press("ctrl+enter")
    await until(pilot, lambda: console.results.grid not in (None, shown) and console.results.grid.row_count > 0,
                120, "the result", every=0.005)
    await app.wait_for_idle_screen()
    return time.perf_counter() - began


async def measure(project: Path) -> None:
    pipeline = project / "bench" / "pipelines" / "bronze" / "wide"
    pipeline.mkdir(parents=True)
    (pipeline / "pipeline.sql").write_text(PIPELINE)
    wb = open_project(project)
    app = RatApp(wb, watch=False)
    async with app.run_test(size=(160, 44)) as pilot:
        await until(pilot, lambda: wb.spark.state.value == "ready", 120, "Spark")
        wb.runs.run(TABLE)
        await pilot.press("s")
        await until(pilot, lambda: app.query_one(ConsolePanel).loaded, 20, "the console")
        await run(app, pilot, f"SELECT * FROM {TABLE} LIMIT 100")  # the first query of a session warms Spark
        firsts = [await run(app, pilot, f"SELECT * FROM {TABLE} LIMIT 100") for _ in range(5)]
        big = await run(app, pilot, f"SELECT * FROM {TABLE} ORDER BY id")
        grid = app.query_one(ConsolePanel).results.grid
        grid.focus()
        ticks = TickGaps()
        ticks.start(app)
        scroll_began = time.perf_counter()
        for _ in range(60):
            await pilot.press("pagedown")
        await pilot.press("ctrl+end")
        for _ in range(60):
            await pilot.press("pageup")
        await app.wait_for_idle_screen()
        scroll_s = time.perf_counter() - scroll_began
        ticks.stop()
        rows = grid.row_count
    wb.close()
    print(f"first result of SELECT * FROM t LIMIT 100 (warm session, Ctrl+Enter to grid on screen): "
          f"median {statistics.median(firsts) * 1000:.0f} ms, best {min(firsts) * 1000:.0f} ms of {len(firsts)}")
    print(f"a {rows:,}-row result (200,000-row table, ORDER BY) to grid on screen: {big * 1000:.0f} ms")
    print(f"scrolling it (60 page-downs, to the end, 60 page-ups) in {scroll_s:.1f} s: {ticks.summary()}")


def main() -> None:
    with temporary_sample_project() as project:
        asyncio.run(measure(project))


if __name__ == "__main__":
    main()
