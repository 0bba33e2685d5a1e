"""The TUI through Textual's Pilot, on the real app."""
from pathlib import Path

from rat_tui.core.workbench import Workbench
from rat_tui.tui.app import RatApp


async def test_tree_shows_namespaces_layers_pipelines_and_zones(sample_copy: Path):
    app = RatApp(Workbench(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        tree = app.query_one("#project-tree")
        labels = [str(node.label) for node in tree.root.children]
        assert labels == ["analytics", "ecommerce"]
        ecommerce = tree.root.children[1]
        assert [str(n.label) for n in ecommerce.children] == ["bronze", "silver", "gold", "landing"]
        silver = [str(n.label) for n in ecommerce.children[1].children]
        assert silver == ["○ clean_orders", "○ dim_customers"]
        zones = [str(n.label) for n in ecommerce.children[3].children]
        assert zones == ["events  1 files", "orders  3 files", "products  1 files"]
