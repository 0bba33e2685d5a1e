"""In the app, with the watcher on: deleting a landing file takes its `_samples/` file with it."""
from __future__ import annotations

from pathlib import Path

from devkit.pilot import select, until
from rat_tui.core.compose import open_project
from rat_tui.core.landing.uploads import sample_path, upload
from rat_tui.tui.app import RatApp


async def test_a_deleted_landing_file_leaves_no_sample(sample_copy: Path, tmp_path: Path):
    zone = sample_copy / "ecommerce" / "landing" / "orders"
    (tmp_path / "late.csv").write_text("order_id,amount\n7,1.5\n")
    upload(zone, [tmp_path / "late.csv"])
    sample = sample_path(zone, zone / "late.csv")
    app = RatApp(open_project(sample_copy), watch=True, warm_spark=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await select(pilot, "zone", "ecommerce.orders")
        await until(pilot, lambda: "_samples/late_sample.csv" in app.screen_text(), 20, "the sample listed")
        (zone / "late.csv").unlink()
        await until(pilot, lambda: not sample.exists(), 20, "the sample removed")
        await until(pilot, lambda: "late" not in app.screen_text(), 20, "the zone panel without it")
    assert (zone / "_samples" / "orders_sample.csv").exists()
