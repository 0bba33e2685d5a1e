"""A keyed pipeline over landing files: of two rows with one key, the one of the file that arrived later wins.

Found by a new user: Spark reads a zone's files largest first, and files sniffed in another dialect (a title line)
as a frame of their own, so "the last row of each key" followed file size and dialect, not arrival. A correction
file named `a_fix.csv` put back an older file's row, green."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark

KEYED = "-- @merge_strategy: incremental\n-- @unique_key: id\n"


def arrived(path: Path, minute: int) -> None:
    stamp = 1_700_000_000 + 60 * minute
    os.utime(path, (stamp, stamp))


def test_the_row_of_the_file_that_arrived_last_wins_whatever_its_size_name_or_dialect(scratch: Scratch):
    fqn = scratch.pipeline("bronze", "sales", KEYED + "SELECT id, amount FROM {{ landing_zone('sales') }}")
    # the oldest file: a title line makes it a dialect group of its own, read first (its name sorts first)
    arrived(scratch.landing("sales", "sales_1.csv", "Sales export week 1\nid,amount\n2,12.05\n3,30.00\n"), 1)
    # a later, larger file: Spark reads it before the smaller ones of its group
    later = "id,amount\n2,99.99\n" + "".join(f"{n},{n}.00\n" for n in range(10, 60))
    arrived(scratch.landing("sales", "sales_5.csv", later), 2)
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, amount FROM {fqn} WHERE id IN (2, 3) ORDER BY id") == [[2, 99.99], [3, 30.0]]

    # a correction that arrives last, under a name that sorts first
    arrived(scratch.landing("sales", "a_fix.csv", "id,amount\n3,33.33\n"), 3)
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert [n["text"] for n in run["notes"] if n["kind"] == "duplicate_keys"] == [
        "2 row(s) of the batch repeat the id of a later row (id 2: 2 rows, id 3: 2 rows): the last row of each key was "
        "written: of rows read straight from landing files, the row of the file that arrived last (by modification "
        "time, then name) and its later line; of others, the last in the query's output order (order by a column "
        "such as updated_at to choose)"]
    assert scratch.rows(f"SELECT id, amount FROM {fqn} WHERE id IN (2, 3) ORDER BY id") == [[2, 99.99], [3, 33.33]]


def test_a_later_larger_file_wins_over_an_older_smaller_one_and_its_own_lines_keep_their_order(scratch: Scratch):
    fqn = scratch.pipeline("bronze", "lines", KEYED + "SELECT id, v FROM {{ landing_zone('lines') }}")
    arrived(scratch.landing("lines", "small.csv", "id,v\n5,old\n6,old\n"), 1)
    rows = "".join(f"{n},new{n}\n" for n in range(7, 80))
    arrived(scratch.landing("lines", "big.csv", f"id,v\n5,first\n{rows}5,second\n"), 2)
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, v FROM {fqn} WHERE id IN (5, 6) ORDER BY id") == [[5, "second"], [6, "old"]]
    assert scratch.rows(f"SELECT count(*) FROM {fqn}") == [[75]]


def test_typed_twins_of_uploaded_files_keep_the_order_of_their_uploads(scratch: Scratch, tmp_path: Path):
    fqn = scratch.pipeline("bronze", "twinned", KEYED + "SELECT id, v FROM {{ landing_zone('twinned') }}")
    for name, text in (("small.csv", "id,v\n5,old\n"),
                       ("big.csv", "id,v\n5,new\n" + "".join(f"{n},x{n}\n" for n in range(6, 90)))):
        source = tmp_path / name
        source.write_text(text)
        assert scratch.wb.landing.upload(scratch.ns, "twinned", [str(source)]).typed == [name]
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT v FROM {fqn} WHERE id = 5") == [["new"]]


def test_a_keyed_join_of_two_zones_runs_and_keeps_one_row_per_key(scratch: Scratch):
    """Spark cannot tell the file of a row joined from two file sources, and refuses to be asked
    (`input_file_name` over a join): the row order is the join's."""
    fqn = scratch.pipeline("bronze", "joined", KEYED + "SELECT o.id, o.v, p.label FROM {{ landing_zone('orders') }} o "
                                                       "JOIN {{ landing_zone('people') }} p ON o.id = p.id")
    scratch.landing("orders", "o.csv", "id,v\n1,a\n2,b\n1,c\n")
    scratch.landing("people", "p.csv", "id,label\n1,one\n2,two\n")
    for _ in range(2):  # a first load writes, then checks its keys; a second merges its materialised batch
        run = scratch.run(fqn)
        assert run["status"] == "success", run["error"]
        assert [n["kind"] for n in run["notes"]].count("duplicate_keys") == 1
        assert scratch.rows(f"SELECT id, label FROM {fqn} ORDER BY id") == [[1, "one"], [2, "two"]]


def test_the_output_order_of_a_join_of_two_file_sources_is_the_joins(scratch: Scratch, tmp_path: Path):
    from pyspark.sql.types import LongType, StructType

    from rat_tui.core.landing.arrival import arrival_place
    from rat_tui.core.run.strategies import ORDER_COLUMN, output_order

    left, right = tmp_path / "l.csv", tmp_path / "r.csv"
    left.write_text("id\n1\n")
    right.write_text("id\n1\n")
    with scratch.wb.spark.using() as spark:
        one = spark.read.option("header", True).csv(str(left))
        arrival = arrival_place([(left, 1.0), (right, 2.0)])
        assert isinstance(output_order(one, arrival).schema[ORDER_COLUMN].dataType, StructType)
        both = one.join(spark.read.option("header", True).csv(str(right)), "id")
        assert isinstance(output_order(both, arrival).schema[ORDER_COLUMN].dataType, LongType)
