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
    # refused before the build: a new user waited out a 28.6 s build for this sentence
    assert list(run["phases"])[-1] == "config_loading"
    scratch.pipeline("silver", "k", "-- @merge_strategy: incremental\n-- @unique_key: ID\nSELECT 1 AS id, 3 AS other")
    assert scratch.run(fqn)["status"] == "success"  # the same key as Spark resolves names
    scratch.pipeline("silver", "k", "-- @merge_strategy: incremental\n-- @unique_key: other\nSELECT 1 AS id, 3 AS other")
    assert scratch.run(fqn, full_refresh=True)["status"] == "success"
    assert scratch.run(fqn)["status"] == "success"


def test_snapshots_show_schema_changes(scratch: Scratch):
    fqn = scratch.pipeline("silver", "s", "SELECT 1 AS id")
    scratch.run(fqn)
    scratch.pipeline("silver", "s", "SELECT 1 AS id, 2 AS extra")
    scratch.run(fqn)
    snaps = scratch.wb.tables.snapshots(fqn).as_dict()["snapshots"]
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


@pytest.mark.parametrize("header", ["", INCREMENTAL], ids=["refresh", "merge"])
def test_a_full_refresh_drops_a_column_the_query_no_longer_makes_and_main_keeps_it_until_the_run_passes(
        scratch: Scratch, header: str):
    """A dropped column could never leave the table: every later run noted it as NULL, and `--full-refresh`
    kept it too. A full refresh rebuilds the table from its query (as dbt's does), beside main."""
    fqn = scratch.pipeline("silver", "d", header + "SELECT 1 AS id, 'a' AS gone, 'first' AS name")
    assert scratch.run(fqn)["status"] == "success"
    scratch.pipeline("silver", "d", header + "SELECT 2 AS id, 'second' AS name")
    kept = scratch.run(fqn)
    assert [(n["kind"], n.get("column")) for n in kept["notes"]] == [("null_column", "gone")]
    assert list(columns(scratch, fqn)) == ["id", "gone", "name"]

    scratch.pipeline("silver", "d", header + "SELECT 3 AS id, 'third' AS name",
                     tests={"no_three": "SELECT * FROM {{ this }} WHERE id = 3"})
    blocked = scratch.run(fqn, full_refresh=True)
    assert blocked["status"] == "failed"
    assert list(columns(scratch, fqn)) == ["id", "gone", "name"], "main keeps its columns until a run passes"
    (scratch.root / "pipelines" / "silver" / "d" / "tests" / "quality" / "no_three.sql").unlink()
    rebuilt = scratch.run(fqn, full_refresh=True)
    assert rebuilt["status"] == "success", rebuilt["error"]
    assert list(columns(scratch, fqn)) == ["id", "name"]
    assert scratch.rows(f"SELECT * FROM {fqn}") == [[3, "third"]]
    assert [(n["kind"], n["text"]) for n in rebuilt["notes"]] == [
        ("schema", "dropped column gone: the full refresh rebuilt the table from its query")]
    assert scratch.run(fqn)["notes"] == []


def test_a_full_refresh_gives_the_table_the_querys_column_order_and_types(scratch: Scratch):
    """Found by a new user: after `--full-refresh` the table kept its own column order and a wider type, so a
    downstream `SELECT *` in a UNION ALL (by position) cast 'south' to DOUBLE and failed."""
    fqn = scratch.pipeline("silver", "o", INCREMENTAL + "SELECT CAST(1 AS BIGINT) AS id, 2.5D AS amount, 'n' AS region")
    assert scratch.run(fqn)["status"] == "success"
    scratch.pipeline("silver", "o", INCREMENTAL + "SELECT CAST(2 AS INT) AS id, 'south' AS region, 3.5D AS amount")
    kept = scratch.run(fqn)  # an incremental run writes into the table as it is
    assert kept["status"] == "success", kept["error"]
    assert columns(scratch, fqn) == {"id": "bigint", "amount": "double", "region": "string"}
    rebuilt = scratch.run(fqn, full_refresh=True)
    assert rebuilt["status"] == "success", rebuilt["error"]
    assert columns(scratch, fqn) == {"id": "int", "region": "string", "amount": "double"}
    assert list(columns(scratch, fqn)) == ["id", "region", "amount"]
    assert scratch.rows(f"SELECT * FROM {fqn}") == [[2, "south", 3.5]]
    assert scratch.run(fqn, full_refresh=True)["status"] == "success"  # the same columns: no rebuild needed


def test_the_full_refresh_strategy_rebuilds_a_retyped_column_without_being_asked(scratch: Scratch):
    """A new user's gold table (full_refresh, every row replaced each run) refused a type change and asked for
    `--full-refresh`, which every one of its runs already is."""
    fqn = scratch.pipeline("gold", "g", "SELECT 1 AS id, 'abc' AS code")
    assert scratch.run(fqn)["status"] == "success"
    scratch.pipeline("gold", "g", "SELECT 2 AS id, 42 AS code")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert columns(scratch, fqn)["code"] == "int"
    assert scratch.rows(f"SELECT id, code FROM {fqn}") == [[2, 42]]
    assert ("schema", "rebuilt column code string → int") in [(n["kind"], n["text"]) for n in run["notes"]]


STRATEGIES = {"refresh": "", "append": "-- @merge_strategy: append_only\n", "merge": INCREMENTAL,
              "delete_insert": "-- @merge_strategy: delete_insert\n-- @unique_key: id\n",
              "scd2": "-- @merge_strategy: scd2\n-- @unique_key: id\n"}
VALIDITY = {"valid_from": "timestamp", "valid_to": "timestamp"}


def write_message(scratch: Scratch, run: dict) -> str:
    return next(e for e in scratch.wb.run_log.read(run["run_id"])
                if e["event"] == "PhaseFinished" and e["phase"] == "iceberg_write")["message"]


@pytest.mark.parametrize("kind", list(STRATEGIES))
def test_a_column_renamed_only_in_case_is_the_same_column(scratch: Scratch, kind: str):
    """Spark matches names case-insensitively (spark.sql.caseSensitive=false): `ID` is `id`. It once
    failed: an added `ID` beside `id` broke the write, and merges read `id` as NULL."""
    header = STRATEGIES[kind]
    fqn = scratch.pipeline("silver", "c", header + "SELECT 1 AS id, 'a' AS name")
    scratch.run(fqn)
    scratch.pipeline("silver", "c", header + "SELECT 2 AS ID, 'b' AS name")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert columns(scratch, fqn) == {"id": "int", "name": "string", **(VALIDITY if kind == "scd2" else {})}
    expected = [[2, "b"]] if kind == "refresh" else [[1, "a"], [2, "b"]]
    assert scratch.rows(f"SELECT id, name FROM {fqn} ORDER BY id") == expected
    assert "column ID is written to id (the names differ only in case)" in write_message(scratch, run)


@pytest.mark.parametrize("kind", list(STRATEGIES))
def test_a_narrower_type_is_written_into_the_wider_column(scratch: Scratch, kind: str):
    """int into bigint, float into double, a decimal into a wider one of the same scale, smallint
    into int: the values fit, so the table's types stay and nothing is noted. They once failed the run."""
    header = STRATEGIES[kind]
    fqn = scratch.pipeline("silver", "n", header + "SELECT CAST(1 AS BIGINT) AS id, CAST(1.5 AS DOUBLE) AS f, "
                           "CAST(1 AS DECIMAL(10,2)) AS d, 1 AS s")
    scratch.run(fqn)
    before = columns(scratch, fqn)
    scratch.pipeline("silver", "n", header + "SELECT CAST(2 AS INT) AS id, CAST(2.5 AS FLOAT) AS f, "
                     "CAST(2.25 AS DECIMAL(5,2)) AS d, CAST(2 AS SMALLINT) AS s")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert columns(scratch, fqn) == before
    assert {k: before[k] for k in ("id", "f", "d", "s")} == {"id": "bigint", "f": "double", "d": "decimal(10,2)", "s": "int"}
    expected = [[2, 2.5, "2.25", 2]] if kind == "refresh" else [[1, 1.5, "1.00", 1], [2, 2.5, "2.25", 2]]
    assert scratch.rows(f"SELECT id, f, d, s FROM {fqn} ORDER BY id") == expected
    assert "schema:" not in write_message(scratch, run)


def test_a_case_sensitive_session_keeps_names_differing_in_case_apart(scratch: Scratch):
    """A user who sets spark.sql.caseSensitive gets what Spark then does: `ID` is another column."""
    body = ("# @merge_strategy: append_only\ndef run(spark, ctx):\n    spark.conf.set('spark.sql.caseSensitive', 'true')\n"
            "    return spark.sql(\"SELECT {} AS {}, 'a' AS name\")\n")
    fqn = scratch.pipeline("silver", "cs", body.format(1, "id"), filename="pipeline.py")
    scratch.run(fqn)
    scratch.pipeline("silver", "cs", body.format(2, "ID"), filename="pipeline.py")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert list(columns(scratch, fqn)) == ["id", "name", "ID"]
    # `SELECT *` only: a case-insensitive session (the query's) finds `id` ambiguous in this table
    assert sorted(scratch.rows(f"SELECT * FROM {fqn}"), key=str) == [[1, "a", None], [None, "a", 2]]
    assert "added column ID int" in write_message(scratch, run)


def test_a_csv_whose_header_changes_case_and_whose_sample_infers_a_narrower_type_loads(scratch: Scratch):
    """The landing file of the next day says `ID` and its `n` fits an int: the same columns still."""
    scratch.landing("z", "a.csv", "id,n\n1,9999999999\n")
    fqn = scratch.pipeline("bronze", "z", "-- @merge_strategy: append_only\nSELECT * FROM {{ landing_zone('z') }}")
    scratch.run(fqn)
    (scratch.root / "landing" / "z" / "a.csv").unlink(missing_ok=True)  # archived or not, read once
    scratch.landing("z", "b.csv", "ID,n\n2,5\n")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert columns(scratch, fqn) == {"id": "int", "n": "bigint", "_source_file": "string"}
    assert scratch.rows(f"SELECT id, n FROM {fqn} ORDER BY id") == [[1, 9999999999], [2, 5]]
