"""What the landing tests share: a bronze pipeline reading one zone whole, run once."""
from __future__ import annotations

from tests.lakehelpers import Scratch

SQL = "SELECT * FROM {{{{ landing_zone('{}') }}}}"
ARCHIVING = "-- @merge_strategy: append_only\n-- @archive_landing_zones: true\n" + SQL


def load_zone(scratch: Scratch, zone: str, name: str = "p") -> dict:
    """The run of a new pipeline `bronze.NAME` reading the zone, with its `fqn`."""
    fqn = scratch.pipeline("bronze", name, SQL.format(zone))
    run = scratch.run(fqn)
    run["fqn"] = fqn
    return run


def table_columns(scratch: Scratch, fqn: str) -> list[str]:
    return [c for c in scratch.wb.console.query(f"SELECT * FROM {fqn} LIMIT 0").as_dict()["columns"] if c != "_source_file"]
