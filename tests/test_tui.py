"""The TUI through Textual's Pilot (the full workbench is still to come)."""
from pathlib import Path

from rat_tui.core.workbench import Workbench
from rat_tui.tui.app import RatApp


async def test_tree_shows_namespaces_pipelines_and_zones(sample_copy: Path):
    app = RatApp(Workbench(sample_copy))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        tree = app.query_one("#project-tree")
        labels = [str(node.label) for node in tree.root.children]
        assert labels == ["analytics", "ecommerce"]
        ecommerce = tree.root.children[1]
        pipelines = [str(n.label) for n in ecommerce.children[0].children]
        assert "silver.clean_orders" in pipelines and len(pipelines) == 7
        assert [str(n.label) for n in ecommerce.children[1].children] == ["events", "orders", "products"]
        await pilot.press("q")
    assert app.return_code in (0, None)
