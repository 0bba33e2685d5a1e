"""SVG snapshots of the main screens at a fixed size (pytest-textual-snapshot).

Update them with `pytest tests/test_snapshots.py --snapshot-update` after a deliberate UI change.
"""
from __future__ import annotations

from pathlib import Path

from devkit.pilot import select
from rat_tui.core.commands.workbench import Workbench
from rat_tui.tui.app import RatApp

SIZE = (120, 36)


def make_app(project: Path) -> RatApp:
    return RatApp(Workbench(project), watch=False, warm_spark=False)


async def settle(pilot) -> None:
    await pilot.app.wait_for_idle_screen()
    await pilot.pause()


def test_project_tree_and_welcome(snap_compare, sample_copy: Path):
    assert snap_compare(make_app(sample_copy), terminal_size=SIZE, run_before=settle)


def test_pipeline_source_with_config_sources(snap_compare, sample_copy: Path):
    async def open_pipeline(pilot) -> None:
        await select(pilot, "pipeline", "ecommerce.silver.clean_orders")
        await settle(pilot)

    assert snap_compare(make_app(sample_copy), terminal_size=SIZE, run_before=open_pipeline)


def test_help_screen_lists_every_key(snap_compare, sample_copy: Path):
    async def open_help(pilot) -> None:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(make_app(sample_copy), terminal_size=SIZE, run_before=open_help)
