"""Enter on a column of the table view's preview opens its lineage: upstream to the zone's file
column, downstream to the gold table that filters on it, each edge with its kind."""
from __future__ import annotations

import pytest

from devkit.pilot import screen, select, until
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.column_lineage import ColumnLineageScreen
from rat_tui.tui.components.table_view import TableView
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark
SIZE = (160, 45)


async def test_enter_on_a_column_shows_its_upstream_and_downstream_with_edge_kinds(scratch: Scratch):
    scratch.landing("orders", "orders.csv", "id,customer,amount\n1,ada,10.5\n2,bob,3\n")
    scratch.pipeline("bronze", "orders", "SELECT * FROM {{ landing_zone('orders') }}")
    totals = scratch.pipeline("silver", "totals", "SELECT customer, SUM(amount) AS total "
                                                  "FROM {{ ref('bronze.orders') }} GROUP BY customer")
    scratch.pipeline("gold", "big", "SELECT customer FROM {{ ref('silver.totals') }} WHERE total > 5")
    for layer, name in (("bronze", "orders"), ("silver", "totals"), ("gold", "big")):
        assert scratch.run(f"{scratch.ns}.{layer}.{name}")["status"] == "success"
    app = RatApp(scratch.wb, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "table", totals)
        await until(pilot, lambda: len(app.query(TableView)) and "Preview at snapshot" in screen(app), 30, "the preview")
        preview = app.query_one("#snapshot-preview")
        preview.focus()
        await pilot.press("right")  # the second column: total
        await pilot.press("enter")
        await until(pilot, lambda: "downstream: read by" in screen(app), 20, "the column's lineage")
        assert isinstance(app.screen, ColumnLineageScreen)
        text = screen(app)
        assert f"Column lineage of {scratch.ns}.silver.totals.total" in text
        assert "bronze.orders.amount  direct · aggregation" in text
        assert "bronze.orders.customer  indirect · group by" in text
        assert "landing.orders.amount  direct · identity" in text  # the zone's file column, a level deeper
        assert "gold.big.customer  indirect · filter" in text
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ColumnLineageScreen), 10, "the dialog to close")
