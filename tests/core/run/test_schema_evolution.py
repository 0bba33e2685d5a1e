"""Schema evolution on write: added, widened, dropped and incompatible columns."""
from __future__ import annotations

import pytest

from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark

INCREMENTAL = "-- @merge_strategy: incremental\n-- @unique_key: id\n"


def columns(scratch: Scratch, fqn: str) -> dict[str, str]:
    rows = scratch.rows(f"DESCRIBE TABLE {fqn}")
    return {r[0]: r[1] for r in rows if r[0] and not r[0].startswith("#")}


@pytest.mark.parametrize("header", ["", "-- @merge_strategy: append_only\n", INCREMENTAL], ids=["refresh", "append", "merge"])
def test_an_added_column_is_added_and_old_rows_read_null(scratch: Scratch, header: str):
    fqn = scratch.pipeline("silver", "t", header + "SELECT 1 AS id")
    scratch.run(fqn)
    scratch.pipeline("silver", "t", header + "SELECT 2 AS id, 'x' AS label")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert columns(scratch, fqn) == {"id": "int", "label": "string"}
    rows = scratch.rows(f"SELECT id, label FROM {fqn} ORDER BY id")
    expected = [[2, "x"]] if not header else [[1, None], [2, "x"]]
    assert rows == expected
    write = next(e for e in scratch.wb.run_log.read(run["run_id"])
                 if e["event"] == "PhaseFinished" and e["phase"] == "iceberg_write")
    assert "added column label string" in write["message"]


def test_safe_widening_is_applied(scratch: Scratch):
    fqn = scratch.pipeline("silver", "w", INCREMENTAL + "SELECT 1 AS id, CAST(1.5 AS FLOAT) AS f, CAST(1 AS DECIMAL(5,2)) AS d")
    scratch.run(fqn)
    scratch.pipeline("silver", "w", INCREMENTAL + "SELECT CAST(2 AS BIGINT) AS id, CAST(2.5 AS DOUBLE) AS f, "
                     "CAST(123456 AS DECIMAL(10,2)) AS d")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert columns(scratch, fqn) == {"id": "bigint", "f": "double", "d": "decimal(10,2)"}
    assert scratch.rows(f"SELECT id, f, d FROM {fqn} ORDER BY id") == [[1, 1.5, "1.00"], [2, 2.5, "123456.00"]]


def test_a_dropped_column_is_kept_filled_with_null_and_warned(scratch: Scratch):
    fqn = scratch.pipeline("silver", "d", "-- @merge_strategy: append_only\nSELECT 1 AS id, 'a' AS gone")
    scratch.run(fqn)
    scratch.pipeline("silver", "d", "-- @merge_strategy: append_only\nSELECT 2 AS id")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, gone FROM {fqn} ORDER BY id") == [[1, "a"], [2, None]]
    warnings = [e["message"] for e in scratch.wb.run_log.read(run["run_id"]) if e["event"] == "LogLine" and e["level"] == "warn"]
    assert warnings == ["schema: column gone is no longer produced; kept and filled with NULL"]


def test_an_incompatible_change_fails_clearly_and_full_refresh_rebuilds(scratch: Scratch):
    fqn = scratch.pipeline("silver", "x", INCREMENTAL + "SELECT 1 AS id, 'abc' AS code")
    first = scratch.run(fqn)
    scratch.pipeline("silver", "x", INCREMENTAL + "SELECT 2 AS id, 42 AS code")
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert ("column code changes type from string to int, which is not a safe widening; fix the query, "
            f"or run {fqn} with --full-refresh to rebuild the table") in run["error"]
    assert list(run["phases"])[-1] == "iceberg_write"
    assert scratch.refs(fqn) == {"main": first["snapshot_id"]}
    assert scratch.rows(f"SELECT id, code FROM {fqn}") == [[1, "abc"]]
    rebuilt = scratch.run(fqn, full_refresh=True)
    assert rebuilt["status"] == "success", rebuilt["error"]
    assert scratch.rows(f"SELECT id, code FROM {fqn}") == [[2, 42]]


def test_a_changed_unique_key_needs_a_full_refresh(scratch: Scratch):
    fqn = scratch.pipeline("silver", "k", INCREMENTAL + "SELECT 1 AS id, 2 AS other")
    scratch.run(fqn)
    scratch.pipeline("silver", "k", "-- @merge_strategy: incremental\n-- @unique_key: other\nSELECT 1 AS id, 3 AS other")
    run = scratch.run(fqn)
    assert run["status"] == "failed" and "unique_key changed from id to other" in run["error"]
    assert scratch.run(fqn, full_refresh=True)["status"] == "success"
    assert scratch.run(fqn)["status"] == "success"


def test_snapshots_show_schema_changes(scratch: Scratch):
    fqn = scratch.pipeline("silver", "s", "SELECT 1 AS id")
    scratch.run(fqn)
    scratch.pipeline("silver", "s", "SELECT 1 AS id, 2 AS extra")
    scratch.run(fqn)
    snaps = scratch.wb.snapshots(fqn)["snapshots"]
    assert snaps[-1]["schema_changes"] == ["added column extra int"]
    assert snaps[1]["schema_changes"] == []


@pytest.mark.parametrize("header", ["", "-- @merge_strategy: append_only\n", INCREMENTAL], ids=["refresh", "append", "merge"])
def test_a_reordered_select_that_adds_and_drops_columns_writes_each_value_in_its_own_column(scratch: Scratch,
                                                                                           header: str):
    fqn = scratch.pipeline("silver", "r", header + "SELECT 1 AS id, 'a' AS gone, 'first' AS name")
    assert scratch.run(fqn)["status"] == "success"
    scratch.pipeline("silver", "r", header + "SELECT 'new' AS extra, 'second' AS name, 2 AS id")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert list(columns(scratch, fqn)) == ["id", "gone", "name", "extra"]  # the added column goes last
    rows = scratch.rows(f"SELECT * FROM {fqn} ORDER BY id")
    assert rows == ([[1, "a", "first", None]] if header else []) + [[2, None, "second", "new"]]
