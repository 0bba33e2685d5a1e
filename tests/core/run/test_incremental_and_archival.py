"""The sample's incremental silver pipeline over two batches, and landing-zone archival."""
from __future__ import annotations

import threading

import pytest

from rat_tui.core.events import PhaseStarted
from tests.lakehelpers import Scratch, copy_sample_namespace

pytestmark = pytest.mark.spark

HEADER = "order_id,customer_id,customer_name,customer_city,product_id,quantity,amount,status,order_date,updated_at\n"


def test_clean_orders_second_run_changes_exactly_the_new_and_updated_keys(scratch: Scratch):
    copy_sample_namespace(scratch)
    ns = scratch.ns
    zone = scratch.root / "landing" / "orders"
    first = scratch.run(f"{ns}.bronze.raw_orders")
    assert first["status"] == "success" and first["rows_written"] == 300
    # the sample leaves the files it read in place (its load history keeps them from being read twice)
    assert sorted(p.name for p in zone.glob("*.csv")) == ["orders_2024_01.csv", "orders_2024_02.csv", "orders_2024_03.csv"]
    assert not (zone / "_processed").exists()
    assert (zone / "_samples" / "orders_sample.csv").exists()

    silver = scratch.run(f"{ns}.silver.clean_orders")
    assert silver["status"] == "success", silver["error"]
    assert {q["name"]: q["status"] for q in silver["quality"]} == {
        "order_id_not_null": "passed", "positive_amount": "warned", "unique_order_id": "passed"}
    before = {r[0]: r[1:] for r in scratch.rows(f"SELECT order_id, status, amount FROM {ns}.silver.clean_orders")}

    scratch.landing("orders", "orders_2024_04.csv", HEADER
                    + "7,1,Ana Silva,Lisbon,3,2,99.90,returned,2024-01-05,2024-04-02 09:00:00\n"
                    + "301,2,Eva Costa,Porto,4,1,12.50,placed,2024-04-01,2024-04-01 10:00:00\n")
    assert scratch.run(f"{ns}.bronze.raw_orders")["rows_written"] == 2
    second = scratch.run(f"{ns}.silver.clean_orders")
    # 2 new or updated keys, plus the row at the old watermark upserted again unchanged (`>=`: late rows
    # sharing the maximum timestamp are never dropped)
    assert second["status"] == "success" and second["rows_written"] == 3
    after = {r[0]: r[1:] for r in scratch.rows(f"SELECT order_id, status, amount FROM {ns}.silver.clean_orders")}
    changed = {k for k in after if after[k] != before.get(k)}
    assert changed == {7, 301}
    assert after[7] == ["returned", "99.90"] and after[301] == ["placed", "12.50"]
    assert len(after) == 301


def test_a_file_arriving_during_the_run_stays_active(scratch: Scratch):
    scratch.landing("drops", "a.csv", "id\n1\n")
    fqn = scratch.pipeline("bronze", "drops", "-- @merge_strategy: append_only\n-- @archive_landing_zones: true\n"
                           "SELECT id FROM {{ landing_zone('drops') }}")
    late = scratch.root / "landing" / "drops" / "late.csv"
    arrived = threading.Event()

    def drop_late_file(event) -> None:
        if isinstance(event, PhaseStarted) and event.phase == "iceberg_write" and not arrived.is_set():
            late.write_text("id\n2\n")
            arrived.set()

    unsubscribe = scratch.wb.events.subscribe(drop_late_file)
    try:
        run = scratch.run(fqn)
    finally:
        unsubscribe()
    assert run["status"] == "success" and arrived.is_set()
    assert late.exists()
    assert (scratch.root / "landing" / "drops" / "_processed" / run["run_id"] / "a.csv").exists()
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[1]]


def test_a_failed_run_archives_nothing(scratch: Scratch):
    scratch.landing("drops", "a.csv", "id\n1\n")
    fqn = scratch.pipeline("bronze", "drops", "-- @archive_landing_zones: true\nSELECT id FROM {{ landing_zone('drops') }}",
                           tests={"never": "SELECT * FROM {{ this }}"})
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert (scratch.root / "landing" / "drops" / "a.csv").exists()
    assert not (scratch.root / "landing" / "drops" / "_processed").exists()


ARCHIVING = "-- @merge_strategy: append_only\n-- @archive_landing_zones: true\nSELECT id, v FROM {{ landing_zone('z') }}"


def _two_archived_loads(scratch: Scratch) -> tuple[str, str]:
    """A zone whose two files were loaded by two runs, each archived: (the pipeline, the first run's id)."""
    fqn = scratch.pipeline("bronze", "p", ARCHIVING)
    scratch.landing("z", "a.csv", "id,v\n1,a\n2,b\n")
    first = scratch.run(fqn)
    scratch.landing("z", "b.csv", "id,v\n3,c\n")
    second = scratch.run(fqn)
    assert first["status"] == second["status"] == "success", (first["error"], second["error"])
    return fqn, first["run_id"]


def test_a_full_refresh_that_would_lose_the_rows_of_archived_files_is_refused_and_writes_nothing(scratch: Scratch):
    """A full refresh rebuilds from the files in the zone; the rows of archived files would be lost
    while the run said success. Refused before any write, saying the way out."""
    fqn, _ = _two_archived_loads(scratch)
    snapshot = scratch.refs(fqn)["main"]
    new = scratch.landing("z", "c.csv", "id,v\n4,d\n")  # what the table was rebuilt from: 1, 2 and 3 were lost
    run = scratch.run(fqn, full_refresh=True)
    assert run["status"] == "failed"
    assert run["error"].endswith(
        f": a full refresh of {fqn} rebuilds it from the files in {scratch.ns}/landing/z only, and would lose the "
        f"rows of 2 archived file(s) it loaded before; move them from {scratch.ns}/landing/z/_processed/ back "
        "into the zone and run the full refresh again, which reads every file in the zone")
    assert scratch.refs(fqn) == {"main": snapshot}
    assert scratch.rows(f"SELECT id, v FROM {fqn} ORDER BY id") == [[1, "a"], [2, "b"], [3, "c"]]
    assert new.exists()  # not archived: the run loaded nothing


def test_a_full_refresh_reads_every_file_in_the_zone_when_the_archived_ones_are_back(scratch: Scratch):
    fqn, _ = _two_archived_loads(scratch)
    zone = scratch.root / "landing" / "z"
    for archived in (zone / "_processed").rglob("*.csv"):
        archived.rename(zone / archived.name)
    scratch.landing("z", "c.csv", "id,v\n4,d\n")
    scratch.landing("z", "b copy.csv", "id,v\n3,c\n")  # one content loads once, as in any run: the first sent
    run = scratch.run(fqn, full_refresh=True)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, v FROM {fqn} ORDER BY id") == [[1, "a"], [2, "b"], [3, "c"], [4, "d"]]
    assert run["skipped"] == [f"skipped b copy.csv: same content as {scratch.ns}/landing/z/b.csv, loaded by this run"]
    assert sorted(p.name for p in zone.glob("*.csv")) == []  # archived again, by this run
