"""A full_refresh rerun's write makes the run's branch in its own commit (IcebergTable.branch_writes): one
commit less a save, and still nothing on main until the run publishes; a table made before that (without
the property that allows it) gets the property with its next publish."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rat_tui.core.events import PhaseFinished
from rat_tui.core.lake.table import BRANCH_WRITES_PROPERTY
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark

ORDERS = """
-- @merge_strategy: full_refresh
SELECT id, id % 7 AS customer_id FROM range({rows})
"""


def metadata(table_dir: Path) -> dict:
    """The table's current metadata, read from its files (no Spark)."""
    folder = table_dir / "metadata"
    version = int((folder / "version-hint.text").read_text().strip())
    return json.loads((folder / f"v{version}.metadata.json").read_text())


def main_snapshot(table_dir: Path) -> int:
    return metadata(table_dir)["refs"]["main"]["snapshot-id"]


def test_the_write_makes_the_branch_and_main_stays_put_until_the_run_publishes(scratch: Scratch):
    fqn = scratch.pipeline("silver", "orders", ORDERS.format(rows=10))
    assert scratch.run(fqn)["status"] == "success"
    table_dir = scratch.root / "warehouse" / "silver" / "orders"
    assert metadata(table_dir)["properties"].get(BRANCH_WRITES_PROPERTY[0]) == BRANCH_WRITES_PROPERTY[1]
    before = main_snapshot(table_dir)
    seen: dict = {}

    def after_the_write(event) -> None:  # on the run's thread, between its write and its publish
        if isinstance(event, PhaseFinished) and event.phase == "iceberg_write":
            refs = metadata(table_dir)["refs"]
            seen["main"] = refs["main"]["snapshot-id"]
            seen["branches"] = sorted(name for name in refs if name != "main")
            seen["rows"] = scratch.rows(f"SELECT count(*) FROM {scratch.ns}.silver.orders")
            seen["on_branch"] = scratch.rows(
                f"SELECT count(*) FROM {scratch.ns}.silver.orders.`branch_{seen['branches'][0]}`")

    scratch.pipeline("silver", "orders", ORDERS.format(rows=25))
    unsubscribe = scratch.wb.events.subscribe(after_the_write)
    try:
        run = scratch.run(fqn)
    finally:
        unsubscribe()
    assert run["status"] == "success" and run["rows_written"] == 25
    assert seen == {"main": before, "branches": [f"run_{run['run_id']}"], "rows": [[10]], "on_branch": [[25]]}
    published = metadata(table_dir)
    assert published["refs"].keys() == {"main"} and main_snapshot(table_dir) == run["snapshot_id"]
    head = next(s for s in published["snapshots"] if s["snapshot-id"] == run["snapshot_id"])
    assert head["parent-snapshot-id"] == before  # main's new snapshot is a child of the old main
    assert scratch.rows(f"SELECT count(*), max(id) FROM {scratch.ns}.silver.orders") == [[25, 24]]
    # the console's session never writes to a branch: the setting stayed with the run's session
    assert scratch.wb.spark.session().conf.get("spark.wap.branch", None) is None


def test_a_table_made_without_the_property_gets_it_with_its_next_publish(scratch: Scratch):
    fqn = scratch.pipeline("silver", "orders", ORDERS.format(rows=10))
    assert scratch.run(fqn)["status"] == "success"
    table_dir = scratch.root / "warehouse" / "silver" / "orders"
    with scratch.wb.spark.using() as spark:  # as an older rat-tui made it
        spark.sql(f"ALTER TABLE {scratch.ns}.silver.orders UNSET TBLPROPERTIES ('{BRANCH_WRITES_PROPERTY[0]}')")
    assert BRANCH_WRITES_PROPERTY[0] not in metadata(table_dir)["properties"]
    commits = []
    for rows in (20, 30):
        version = int((table_dir / "metadata" / "version-hint.text").read_text())
        scratch.pipeline("silver", "orders", ORDERS.format(rows=rows))
        run = scratch.run(fqn)
        assert run["status"] == "success" and run["rows_written"] == rows
        commits.append(int((table_dir / "metadata" / "version-hint.text").read_text()) - version)
        assert metadata(table_dir)["properties"][BRANCH_WRITES_PROPERTY[0]] == BRANCH_WRITES_PROPERTY[1]
        assert scratch.rows(f"SELECT count(*) FROM {scratch.ns}.silver.orders") == [[rows]]
    assert commits == [3, 2]  # its branch, the write, the publish (with the property); then the write makes it
