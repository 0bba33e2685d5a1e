"""Each merge strategy on small hand-written tables, checking the exact resulting rows."""
from __future__ import annotations

import pytest

from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark


def values(rows: list[tuple], columns: str) -> str:
    body = ", ".join("(" + ", ".join(repr(v) if v is not None else "NULL" for v in row) + ")" for row in rows)
    return f"SELECT * FROM VALUES {body} AS v({columns})"


def step(scratch: Scratch, header: str, rows: list[tuple], columns: str, name: str = "t") -> dict:
    fqn = scratch.pipeline("silver", name, header + "\n" + values(rows, columns))
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    return run


def table(scratch: Scratch, order: str, columns: str = "*", name: str = "t") -> list[list]:
    return scratch.rows(f"SELECT {columns} FROM {scratch.ns}.silver.{name} ORDER BY {order}")


def test_full_refresh_replaces_and_append_only_appends(scratch: Scratch):
    step(scratch, "", [(1, "a"), (2, "b")], "id, v")
    step(scratch, "", [(3, "c")], "id, v")
    assert table(scratch, "id") == [[3, "c"]]
    append = "-- @merge_strategy: append_only"
    step(scratch, append, [(1, "a")], "id, v", name="log")
    step(scratch, append, [(1, "a"), (2, "b")], "id, v", name="log")
    assert table(scratch, "id, v", name="log") == [[1, "a"], [1, "a"], [2, "b"]]


def test_incremental_upserts_and_the_last_duplicate_wins(scratch: Scratch):
    header = "-- @merge_strategy: incremental\n-- @unique_key: id"
    step(scratch, header, [(1, "a"), (2, "b"), (3, "c")], "id, v")
    run = step(scratch, header, [(2, "first"), (4, "d"), (2, "last")], "id, v")
    assert table(scratch, "id") == [[1, "a"], [2, "last"], [3, "c"], [4, "d"]]
    assert run["rows_written"] == 2
    # said (a new user's batch of repeated keys and no ORDER BY kept one row of each, silently)
    repeated = ("1 row(s) of the batch repeat the id of a later row (id {}: 2 rows): the last row of each key in the "
                "query's output order was written (without an ORDER BY in the query, the order its rows were read in; "
                "order by a column such as updated_at to choose)")
    assert [(n["kind"], n["text"], n["phase"]) for n in run["notes"]] == [
        ("duplicate_keys", repeated.format(2), "iceberg_write")]
    first = step(scratch, header, [(7, "x"), (7, "y"), (8, "z")], "id, v", name="first")  # a first load, too
    assert [n["text"] for n in first["notes"]] == [repeated.format(7)]
    # the keys a note names: the most repeated first, three at most
    many = step(scratch, header, [(k, "v") for k in (5, 6, 6, 6, 9, 9, 4, 4, 1)], "id, v", name="many")
    assert [n["text"].split(": the last")[0] for n in many["notes"]] == [
        "4 row(s) of the batch repeat the id of a later row (id 6: 3 rows, id 4: 2 rows, id 9: 2 rows)"]
    assert table(scratch, "id", name="first") == [[7, "y"], [8, "z"]]
    assert step(scratch, header, [(9, "w")], "id, v")["notes"] == []


def test_incremental_with_text_keys_that_need_quoting(scratch: Scratch):
    """A small batch's delete names its keys (strategies.listed_keys): a quote, a backslash, a LIKE
    wildcard and a key that only differs in case each match their own row and no other."""
    header = "-- @merge_strategy: incremental\n-- @unique_key: k"
    step(scratch, header, [("o'brien", 1), ("a\\b", 2), ("%", 3), ("x", 4), ("X", 5), ("ab", 6)], "k, v")
    step(scratch, header, [("o'brien", 10), ("a\\b", 20), ("%", 30), ("X", 50), ("new", 70)], "k, v")
    assert table(scratch, "k") == [["%", 30], ["X", 50], ["a\\b", 20], ["ab", 6], ["new", 70], ["o'brien", 10], ["x", 4]]


def test_incremental_with_a_composite_key(scratch: Scratch):
    header = "-- @merge_strategy: incremental\n-- @unique_key: order_id, line"
    step(scratch, header, [(1, 1, 10), (1, 2, 20), (2, 1, 30)], "order_id, line, qty")
    step(scratch, header, [(1, 2, 25), (2, 2, 40)], "order_id, line, qty")
    assert table(scratch, "order_id, line") == [[1, 1, 10], [1, 2, 25], [2, 1, 30], [2, 2, 40]]


def test_delete_insert_replaces_keys_and_keeps_duplicates(scratch: Scratch):
    header = "-- @merge_strategy: delete_insert\n-- @unique_key: k"
    step(scratch, header, [(1, "a"), (1, "b"), (2, "c")], "k, v")
    step(scratch, header, [(1, "x"), (1, "y"), (1, "z"), (3, "d")], "k, v")
    assert table(scratch, "k, v") == [[1, "x"], [1, "y"], [1, "z"], [2, "c"], [3, "d"]]


def test_scd2_over_three_runs(scratch: Scratch):
    header = "-- @merge_strategy: scd2\n-- @unique_key: id"
    first = step(scratch, header, [(1, "Lisbon"), (2, "Porto")], "id, city")
    step(scratch, header, [(1, "Madrid"), (2, "Porto"), (3, "Rome")], "id, city")  # 1 changes, 2 same, 3 new
    step(scratch, header, [(2, "Porto"), (1, "Paris"), (1, "Madrid")], "id, city")  # last duplicate wins: unchanged
    rows = table(scratch, "id, valid_from", "id, city, valid_to IS NULL AS current")
    assert rows == [[1, "Lisbon", False], [1, "Madrid", True], [2, "Porto", True], [3, "Rome", True]]
    closed = scratch.rows(f"SELECT valid_to FROM {scratch.ns}.silver.t WHERE city = 'Lisbon'")[0][0]
    opened = scratch.rows(f"SELECT valid_from FROM {scratch.ns}.silver.t WHERE city = 'Madrid'")[0][0]
    assert closed == opened
    assert first["status"] == "success"


def test_scd2_custom_validity_columns(scratch: Scratch):
    header = "-- @merge_strategy: scd2\n-- @unique_key: id\n-- @scd_valid_from: since\n-- @scd_valid_to: until"
    step(scratch, header, [(1, "a")], "id, v")
    step(scratch, header, [(1, "b")], "id, v")
    assert table(scratch, "since", "v, until IS NULL") == [["a", False], ["b", True]]


def test_scd2_two_runs_in_one_second_never_give_an_empty_validity(scratch: Scratch):
    """run_started_at keeps microseconds (it once dropped them, so two quick runs tied)."""
    header = "-- @merge_strategy: scd2\n-- @unique_key: id"
    step(scratch, header, [(1, "a")], "id, v", name="quick")
    step(scratch, header, [(1, "b")], "id, v", name="quick")
    step(scratch, header, [(1, "c")], "id, v", name="quick")
    rows = scratch.rows(f"SELECT v, valid_from < coalesce(valid_to, TIMESTAMP '9999-01-01') "
                        f"FROM {scratch.ns}.silver.quick ORDER BY valid_from")
    assert rows == [["a", True], ["b", True], ["c", True]]


def test_scd2_closes_keys_gone_from_the_source_only_when_asked(scratch: Scratch):
    for name, flag in (("keep", ""), ("close", "\n-- @scd_close_missing: true")):
        header = "-- @merge_strategy: scd2\n-- @unique_key: id" + flag
        step(scratch, header, [(1, "a"), (2, "b"), (3, "c")], "id, v", name=name)
        step(scratch, header, [(1, "a"), (2, "b2")], "id, v", name=name)  # 3 deleted at the source
    current = "v, valid_to IS NULL AS current"
    assert table(scratch, "id, valid_from", current, name="keep") == [
        ["a", True], ["b", False], ["b2", True], ["c", True]]
    assert table(scratch, "id, valid_from", current, name="close") == [
        ["a", True], ["b", False], ["b2", True], ["c", False]]
    closed = scratch.rows(f"SELECT valid_to FROM {scratch.ns}.silver.close WHERE v = 'c'")[0][0]
    opened = scratch.rows(f"SELECT valid_from FROM {scratch.ns}.silver.close WHERE v = 'b2'")[0][0]
    assert closed == opened  # closed at this run's run_started_at


def test_snapshot_replaces_present_partitions_only(scratch: Scratch):
    header = "-- @merge_strategy: snapshot\n-- @partition_column: month"
    step(scratch, header, [("2024-01", 1), ("2024-01", 2), ("2024-02", 3)], "month, n")
    step(scratch, header, [("2024-02", 30), ("2024-03", 40)], "month, n")
    assert table(scratch, "month, n") == [["2024-01", 1], ["2024-01", 2], ["2024-02", 30], ["2024-03", 40]]


@pytest.mark.parametrize("strategy, extra, column", [
    ("incremental", "-- @unique_key: id", "id"),
    ("snapshot", "-- @partition_column: id", "id"),
])
def test_null_keys_are_a_clear_run_error(scratch: Scratch, strategy: str, extra: str, column: str):
    fqn = scratch.pipeline("silver", "n", f"-- @merge_strategy: {strategy}\n{extra}\n" + values([(1, "a"), (None, "b")], "id, v"))
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert "1 row(s) of the result have NULL in the" in run["error"] and f"column(s) {column}" in run["error"]
    assert not scratch.table_exists("silver", "n")


def test_missing_key_column_names_the_column(scratch: Scratch):
    run = scratch.run(scratch.pipeline("silver", "m", "-- @merge_strategy: incremental\n-- @unique_key: nope\nSELECT 1 AS id"))
    assert "unique_key column 'nope' is not in the pipeline's result (columns: id)" in run["error"]


def test_is_incremental_and_watermark_value(scratch: Scratch):
    template = """\
        -- @merge_strategy: incremental
        -- @unique_key: id
        -- @watermark_column: ts
        SELECT id, ts, '{{ is_incremental() }}' AS inc FROM VALUES {rows} AS v(id, ts)
        {% if is_incremental() %} WHERE ts > '{{ watermark_value }}' {% endif %}
    """
    first = template.replace("{rows}", "(1, 10), (2, 20)")
    fqn = scratch.pipeline("silver", "w", first)
    assert scratch.run(fqn)["status"] == "success"
    assert table(scratch, "id", name="w") == [[1, 10, "False"], [2, 20, "False"]]
    scratch.pipeline("silver", "w", template.replace("{rows}", "(1, 5), (2, 25), (3, 30)"))
    assert scratch.run(fqn)["status"] == "success"
    # id 1 at ts 5 is below the watermark (20) and is filtered out
    assert table(scratch, "id", name="w") == [[1, 10, "False"], [2, 25, "True"], [3, 30, "True"]]


def test_full_refresh_flag_rebuilds_an_incremental_table(scratch: Scratch):
    header = "-- @merge_strategy: incremental\n-- @unique_key: id"
    step(scratch, header, [(1, "a"), (2, "b")], "id, v")
    fqn = scratch.pipeline("silver", "t", header + "\n" + values([(3, "c")], "id, v"))
    assert scratch.run(fqn, full_refresh=True)["status"] == "success"
    assert table(scratch, "id") == [[3, "c"]]


@pytest.mark.parametrize("header, full_refresh, kept", [
    ("", False, False),
    ("-- @merge_strategy: append_only", False, True),
    ("-- @merge_strategy: incremental\n-- @unique_key: id", False, True),
    ("-- @merge_strategy: incremental\n-- @unique_key: id", True, False),
    ("-- @merge_strategy: delete_insert\n-- @unique_key: id", False, True),
    ("-- @merge_strategy: scd2\n-- @unique_key: id", False, True),
    ("-- @merge_strategy: snapshot\n-- @partition_column: code", False, True),
], ids=["full_refresh", "append_only", "incremental", "incremental-full-refresh", "delete_insert", "scd2", "snapshot"])
def test_a_reordered_select_writes_each_value_in_its_own_column(scratch: Scratch, header: str, full_refresh: bool,
                                                                kept: bool):
    """Columns match the table's by name, not by position: a SELECT edited to list them in another
    order still succeeds, and the table keeps its own order; `--full-refresh` rebuilds it in the query's."""
    step(scratch, header, [(1, "a", "first")], "id, code, name")
    fqn = scratch.pipeline("silver", "t", header + "\n" + values([("b", 2, "second")], "code, id, name"))
    run = scratch.run(fqn, full_refresh=full_refresh)
    assert run["status"] == "success", run["error"]
    assert table(scratch, "id", "id, code, name") == [[1, "a", "first"], [2, "b", "second"]][0 if kept else 1:]
    assert scratch.rows(f"SELECT * FROM {fqn} WHERE id = 2")[0][:3] == (["b", 2, "second"] if full_refresh
                                                                       else [2, "b", "second"])


@pytest.mark.parametrize("strategy", ["incremental", "delete_insert"])
def test_a_unique_key_changed_only_in_case_is_the_same_key(scratch: Scratch, strategy: str):
    """Spark resolves column names case-insensitively (spark.sql.caseSensitive false): `@unique_key: ID`
    names the column id, so a key changed only in case is no change of key: the next run merges by it,
    with neither a demand for a full refresh nor a duplicate row."""
    step(scratch, f"-- @merge_strategy: {strategy}\n-- @unique_key: id", [(1, "a"), (2, "b")], "id, v")
    step(scratch, f"-- @merge_strategy: {strategy}\n-- @unique_key: ID", [(2, "B"), (3, "c")], "id, v")
    assert table(scratch, "id, v") == [[1, "a"], [2, "B"], [3, "c"]]
    fqn = scratch.pipeline("silver", "t", f"-- @merge_strategy: {strategy}\n-- @unique_key: ID\n"
                           + values([(4, "d")], "id, v"))
    run = scratch.run(fqn, full_refresh=True)
    assert run["status"] == "success", run["error"]
    assert table(scratch, "id, v") == [[4, "d"]]


def test_a_first_load_keyed_in_another_case_keeps_the_last_row_per_key(scratch: Scratch):
    step(scratch, "-- @merge_strategy: incremental\n-- @unique_key: ID", [(1, "a"), (2, "b"), (1, "c")], "id, v")
    assert table(scratch, "id, v") == [[1, "c"], [2, "b"]]
