"""The SQL console's command layer on the real session: query, limits, time travel, cancel, export
(read back by DuckDB), profile on known data, the autocomplete catalog and the statement splitter."""
from __future__ import annotations

import threading
import time
from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from rat_tui.core.commands.console import QueryCancelled
from rat_tui.core.commands.console_text import (
    split_statements,
    sql_name,
    statement_at,
    tables_named,
)
from rat_tui.core.compose import open_project
from rat_tui.core.errors import RatError
from tests.helpers import script
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark


def numbers(scratch: Scratch, n: int = 1000) -> str:
    """A table of ids 1..n, v = id % 7 (NULL when id % 10 == 0), name 'a'/'b'."""
    fqn = scratch.pipeline("bronze", "numbers", f"""
        SELECT id, CASE WHEN id % 10 = 0 THEN NULL ELSE id % 7 END AS v,
               CASE WHEN id % 4 = 0 THEN 'b' ELSE 'a' END AS name
        FROM range(1, {n + 1})""")
    assert scratch.run(fqn)["status"] == "success"
    return fqn


def test_query_returns_rows_and_truncates_at_the_limit(scratch: Scratch):
    fqn = numbers(scratch)
    result = scratch.wb.console.console_query(f"SELECT id, name FROM {fqn} ORDER BY id", 100, "g1")
    assert result.columns == ["id", "name"] and result.table.num_rows == 100 and result.truncated
    assert result.table.column("id").to_pylist()[:3] == [1, 2, 3]
    whole = scratch.wb.console.console_query(f"SELECT count(*) AS n FROM {fqn}", 100, "g2")
    assert whole.table.to_pylist() == [{"n": 1000}] and not whole.truncated


def test_time_travel_by_snapshot_id(scratch: Scratch):
    fqn = numbers(scratch, 10)
    first = scratch.wb.tables.snapshots(fqn).as_dict()["snapshots"][-1]["snapshot_id"]
    assert scratch.wb.console.console_query(f"SELECT count(*) AS n FROM {fqn}", 10, "g").table.to_pylist() == [{"n": 10}]
    numbers(scratch, 20)
    # The console's session is kept between statements: it still reads the commit made since.
    assert scratch.wb.console.console_query(f"SELECT count(*) AS n FROM {fqn}", 10, "g").table.to_pylist() == [{"n": 20}]
    old = scratch.wb.console.console_query(f"SELECT count(*) AS n FROM {fqn} VERSION AS OF {first}", 10, "g")
    assert old.table.to_pylist() == [{"n": 10}]


def test_time_travel_by_timestamp_between_two_snapshots(scratch: Scratch):
    fqn = numbers(scratch, 10)
    old = next(s for s in scratch.wb.tables.snapshots(fqn).as_dict()["snapshots"] if s["is_current"])
    numbers(scratch, 20)
    # The instant halfway to the next commit (a refresh may commit more than one snapshot).
    at = datetime.fromisoformat(old["committed_at"])
    after = min(t for t in (datetime.fromisoformat(s["committed_at"]) for s in scratch.wb.tables.snapshots(fqn).as_dict()["snapshots"])
                if t > at)
    between = at + (after - at) / 2
    sql = f"SELECT count(*) AS n, max(id) AS top FROM {fqn} TIMESTAMP AS OF '{between:%Y-%m-%d %H:%M:%S.%f}'"
    assert scratch.wb.console.console_query(sql, 10, "g").table.to_pylist() == [{"n": 10, "top": 10}]
    now = scratch.wb.console.console_query(f"SELECT count(*) AS n FROM {fqn}", 10, "g")
    assert now.table.to_pylist() == [{"n": 20}]


def test_writes_are_refused(scratch: Scratch):
    fqn = numbers(scratch, 5)
    with pytest.raises(RatError, match="read-only"):
        scratch.wb.console.console_query(f"DELETE FROM {fqn}", 10, "g")
    assert scratch.rows(f"SELECT count(*) FROM {fqn}") == [[5]]


def test_cancel_stops_a_long_query_within_a_second(scratch: Scratch):
    wb = scratch.wb
    outcome: list = []

    def long_query() -> None:
        try:
            outcome.append(wb.console.console_query("SELECT count(*) FROM range(0, 100000000000) a", 10, "slow"))
        except Exception as exc:
            outcome.append(exc)

    worker = threading.Thread(target=long_query)
    worker.start()
    time.sleep(3)
    assert not outcome, "the query finished before it could be cancelled"
    began = time.monotonic()
    wb.console.cancel_console("slow")
    worker.join(10)
    assert isinstance(outcome[0], QueryCancelled)
    assert time.monotonic() - began < 1.5
    assert wb.console.console_query("SELECT 1 AS one", 10, "after").table.to_pylist() == [{"one": 1}]


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".json"])
def test_export_writes_the_full_result(scratch: Scratch, suffix: str):
    fqn = numbers(scratch, 2500)
    phases: list[str] = []
    result = scratch.wb.console.export(f"exports/n{suffix}", f"SELECT * FROM {fqn} WHERE id <= 2400",
                               progress=lambda phase, done, total: phases.append(phase))
    path = Path(result.path)
    assert path == scratch.wb.project.root / "exports" / f"n{suffix}" and result.rows == 2400
    assert result.format == suffix[1:] and "writing the file" in phases
    reader = {".csv": "read_csv_auto", ".parquet": "read_parquet", ".json": "read_json_auto"}[suffix]
    assert duckdb.sql(f"SELECT count(*), sum(id) FROM {reader}('{path}')").fetchall() == [(2400, 2400 * 2401 // 2)]
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".")]


def test_export_paths_stay_inside_the_project_or_are_absolute(scratch: Scratch, tmp_path: Path):
    wb = scratch.wb
    with pytest.raises(RatError, match="outside the project folder"):
        wb.console.export("../escape.csv", "SELECT 1 AS one")
    with pytest.raises(RatError, match=r"\.csv, \.parquet or \.json"):
        wb.console.export("out.txt", "SELECT 1 AS one")
    assert not (wb.project.root.parent / "escape.csv").exists()
    result = wb.console.export(str(tmp_path / "abs.csv"), "SELECT 1 AS one")
    assert result.rows == 1 and (tmp_path / "abs.csv").read_text().splitlines() == ["one", "1"]


def test_export_script_command(scratch: Scratch):
    fqn = numbers(scratch, 30)
    status, results = script(scratch.wb, f"export out/{scratch.ns}.json SELECT * FROM {fqn} WHERE name = 'b'\n")
    assert status == 0, results
    path = scratch.wb.project.root / "out" / f"{scratch.ns}.json"
    assert results[0]["rows"] == 7 and results[0]["format"] == "json" and results[0]["path"] == str(path)
    assert duckdb.sql(f"SELECT count(*) FROM read_json_auto('{path}')").fetchall() == [(7,)]


def test_profile_counts_on_known_data(scratch: Scratch):
    fqn = numbers(scratch, 1000)
    profile = scratch.wb.console.profile_column(f"SELECT id, v, name FROM {fqn}", 1, "p")
    assert (profile.column, profile.rows, profile.nulls, profile.distinct) == ("v", 1000, 100, 7)
    assert (profile.min, profile.max) == (0, 6)
    assert sum(n for _, _, n in profile.histogram) == 900
    names = scratch.wb.console.profile_column(f"SELECT id, v, name FROM {fqn}", 2, "p")
    assert names.top == [("a", 750), ("b", 250)] and names.histogram == []


def test_completion_catalog_reads_columns_without_spark(scratch: Scratch):
    fqn = numbers(scratch, 3)
    fresh = open_project(scratch.wb.project.root)  # a second Workbench whose Spark never starts
    assert fresh.console.completion_catalog()[fqn] == [("id", "long"), ("v", "long"), ("name", "string")]
    assert fresh.spark.state.value == "stopped"


def test_statement_under_the_cursor():
    text = "SELECT 1;\nSELECT ';' AS semi -- a ; here\n;\n\nSELECT 3"
    assert [s.text.strip() for s in split_statements(text)] == ["SELECT 1", "SELECT ';' AS semi -- a ; here",
                                                                "SELECT 3"]
    assert statement_at(text, 3) == "SELECT 1"
    assert statement_at(text, text.index("semi")) == "SELECT ';' AS semi -- a ; here"
    assert statement_at(text, len(text)) == "SELECT 3"
    assert tables_named("SELECT * FROM a.b.c JOIN `x`.y.`my-t` ON 1=1") == ["a.b.c", "x.y.my-t"]


def test_names_inserted_into_the_console_are_quoted_when_they_must_be():
    assert sql_name("shop", "silver", "orders") == "shop.silver.orders"
    assert sql_name("shop", "silver", "my-pipe") == "shop.silver.`my-pipe`"
    assert sql_name("order id") == "`order id`" and sql_name("a`b") == "`a``b`"


def test_console_max_rows_setting(tmp_path: Path):
    from rat_tui.core.project.settings import load_settings

    assert load_settings(tmp_path)[0].console_max_rows == 10_000
    (tmp_path / "rat.yaml").write_text("console:\n  max_rows: 250\n")
    assert load_settings(tmp_path)[0].console_max_rows == 250


def test_history_keeps_the_newest_500_and_searches(tmp_path: Path):
    from rat_tui.core.store.console_store import ConsoleStore

    store = ConsoleStore(tmp_path)
    for i in range(510):
        store.add_history(f"SELECT {i} AS n", True, 1, 5)
    store.add_history("SELECT 509 AS n", True, 1, 5)  # a rerun replaces, not repeats
    entries = ConsoleStore(tmp_path).history()
    assert len(entries) == 500 and entries[0].sql == "SELECT 509 AS n" and entries[-1].sql == "SELECT 10 AS n"
    assert [e.sql for e in store.history("select 42 as")][-1] == "SELECT 42 AS n"
    assert all("42" in e.sql for e in store.history("42"))
