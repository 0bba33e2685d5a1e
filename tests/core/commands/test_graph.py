"""The project as a graph, on a jaffle_shop-shaped project: zones → bronze → silver → gold."""
from __future__ import annotations

import dataclasses

import pytest

from rat_tui.core.errors import RatError
from tests.helpers import run_script_here
from tests.lakehelpers import Scratch, jaffle

pytestmark = pytest.mark.spark

def test_lineage_of_the_project_and_of_one_pipeline(scratch: Scratch):
    n = jaffle(scratch)
    ns = scratch.ns
    graph = scratch.wb.lineage.lineage()
    mine = {tuple(e) for e in graph.edges if e[1].startswith(ns + ".")}
    assert mine == {
        (f"{ns}.landing.raw_customers", n["customers"]), (f"{ns}.landing.raw_orders", n["orders"]),
        (f"{ns}.landing.raw_payments", n["payments"]), (n["customers"], n["stg_customers"]),
        (n["orders"], n["stg_orders"]), (n["payments"], n["stg_payments"]),  # from the Python pipeline's ctx.ref
        (n["stg_customers"], n["gold_customers"]), (n["stg_orders"], n["gold_customers"]),
        (n["stg_payments"], n["gold_customers"]), (n["stg_orders"], n["gold_orders"]),
        (n["stg_payments"], n["gold_orders"])}
    zone = next(x for x in graph.nodes if x.name == f"{ns}.landing.raw_orders")
    assert dataclasses.asdict(zone) == {"name": f"{ns}.landing.raw_orders", "kind": "zone", "layer": "landing", "last_status": None,
                    "last_run_at": None}
    one = scratch.wb.lineage.lineage(n["stg_orders"])
    assert sorted(x.name for x in one.nodes) == sorted(
        [f"{ns}.landing.raw_orders", n["orders"], n["stg_orders"], n["gold_customers"], n["gold_orders"]])


def test_build_runs_everything_in_order_and_records_what_each_run_read(scratch: Scratch):
    n = jaffle(scratch)
    runs = scratch.wb.runs.build([scratch.ns]).as_dict()["runs"]
    order = [r["pipeline"] for r in runs]
    assert sorted(order) == sorted(n.values()) and all(r["status"] == "success" for r in runs)
    for target, sources in scratch.wb.lineage.graph().upstream.items():
        for source in sources:
            if source in order and target in order:
                assert order.index(source) < order.index(target), (source, target)
    assert scratch.rows(f"SELECT customer_id, orders, spent FROM {n['gold_customers']} ORDER BY customer_id") == [
        [1, 2, 12.5], [2, 1, 1.0], [3, 0, 0.0]]
    gold = next(r for r in runs if r["pipeline"] == n["gold_orders"])
    assert gold["inputs"] == {n["stg_orders"]: scratch.refs(n["stg_orders"])["main"],
                              n["stg_payments"]: scratch.refs(n["stg_payments"])["main"]}
    current = [s for s in scratch.wb.tables.snapshots(n["gold_orders"]).as_dict()["snapshots"] if s["is_current"]][0]
    assert current["run_id"] == gold["run_id"] and current["inputs"] == gold["inputs"]
    assert scratch.wb.browse.runs(n["gold_orders"], limit=1).as_dict()["runs"][0]["inputs"] == gold["inputs"]


def test_a_failing_gate_skips_exactly_its_downstream_and_a_fix_reruns_the_right_set(scratch: Scratch):
    n = jaffle(scratch, failing_gate=True)
    with pytest.raises(RatError) as failed:
        scratch.wb.runs.build([scratch.ns])
    status = {r["pipeline"]: r for r in failed.value.result.as_dict()["runs"]}
    assert {name: r["status"] for name, r in status.items()} == {
        n["customers"]: "success", n["orders"]: "success", n["payments"]: "success",
        n["stg_customers"]: "success", n["stg_orders"]: "failed", n["stg_payments"]: "success",
        n["gold_customers"]: "skipped", n["gold_orders"]: "skipped"}
    assert status[n["gold_orders"]]["error"] == f"skipped: upstream {n['stg_orders']} failed"
    assert not scratch.table_exists("gold", "orders")
    # the fix, then `bronze.orders+`: it and everything downstream, in a valid order
    (scratch.root / "pipelines" / "silver" / "stg_orders" / "tests" / "quality" / "no_orphans.sql").write_text(
        "SELECT * FROM {{ this }} WHERE customer_id IS NULL")
    status, results, _ = run_script_here(scratch.wb.project.root, f"run {n['orders']}+\n")
    assert status == 0, results
    order = [r["pipeline"] for r in results[0]["runs"]]
    assert order[:2] == [n["orders"], n["stg_orders"]] and sorted(order[2:]) == sorted([n["gold_customers"], n["gold_orders"]])
    status, results, _ = run_script_here(scratch.wb.project.root, f"run +{n['gold_orders']}\n")
    assert status == 0 and sorted(r["pipeline"] for r in results[0]["runs"]) == sorted(
        [n["orders"], n["payments"], n["stg_orders"], n["stg_payments"], n["gold_orders"]])


def test_cross_namespace_refs_and_cycles(scratch: Scratch, lake):
    n = jaffle(scratch)
    from tests.lakehelpers import Scratch as Other

    other = Other.create(lake, "reports")
    report = other.pipeline("gold", "report", f"SELECT COUNT(*) AS n FROM {{{{ ref('{n['gold_orders']}') }}}}")
    runs = scratch.wb.runs.run(f"+{report}").as_dict()["runs"]
    assert runs[-1]["pipeline"] == report and n["gold_orders"] in [r["pipeline"] for r in runs]
    assert other.rows(f"SELECT n FROM {report}") == [[3]]
    a = other.pipeline("silver", "a", "SELECT * FROM {{ ref('silver.b') }}")
    other.pipeline("silver", "b", "SELECT * FROM {{ ref('silver.a') }}")
    with pytest.raises(RatError, match=rf"cyclic ref: {other.ns}\.silver\.(a|b) -> {other.ns}\.silver\.(a|b) -> "):
        scratch.wb.runs.run(f"+{a}")
    with pytest.raises(RatError, match="cyclic ref"):
        scratch.wb.runs.build([other.ns])


def test_a_rollback_names_the_downstream_tables_built_from_removed_data(scratch: Scratch):
    n = jaffle(scratch)
    scratch.wb.runs.build([scratch.ns])
    before = scratch.refs(n["stg_orders"])["main"]
    scratch.landing("raw_orders", "o2.csv", "id,customer_id,status\n13,3,placed\n")
    scratch.wb.runs.run(f"{n['orders']}+")
    result = scratch.wb.tables.rollback_table(n["stg_orders"], before).as_dict()
    assert result["stale_downstream"] == sorted([n["gold_customers"], n["gold_orders"]])
    # rolling the other way, to the snapshot they were built from, leaves nothing stale
    latest = [s for s in scratch.wb.tables.snapshots(n["stg_orders"]).as_dict()["snapshots"] if s["snapshot_id"] != before][-1]
    assert scratch.wb.tables.rollback_table(n["stg_orders"], latest["snapshot_id"]).as_dict()["stale_downstream"] == []


def test_a_broken_pipeline_elsewhere_never_breaks_the_graph(scratch: Scratch):
    n = jaffle(scratch)
    scratch.pipeline("silver", "broken", "SELECT 1 AS id\n{% if %}")  # a Jinja syntax error
    scratch.pipeline("silver", "garbled", "SELECT * FROM {{ ref('bronze.orders') ")
    graph = scratch.wb.lineage.lineage()
    assert f"{scratch.ns}.silver.broken" in [node.name for node in graph.nodes]
    assert (n["orders"], n["stg_orders"]) in graph.edges


def test_a_rollback_past_runs_that_changed_no_row_leaves_nothing_stale(scratch: Scratch):
    """`t` back past two runs that changed no rows (+0 -0 ~0) offered "Rebuild 1 stale table? Built from
    data the rollback removed": the data is the same; only what the rollback removed makes a table stale
    (issue 36.9)."""
    up = scratch.pipeline("bronze", "up", "-- @merge_strategy: incremental\n-- @unique_key: id\n"
                                          "SELECT id FROM range(3) AS r(id)")
    down = scratch.pipeline("silver", "down", f"SELECT id * 2 AS twice FROM {{{{ ref('{up}') }}}}")
    scratch.wb.runs.run(f"{up}+")
    before = scratch.refs(up)["main"]
    scratch.pipeline("bronze", "up", "-- @merge_strategy: incremental\n-- @unique_key: id\n"
                                     "SELECT id FROM range(3) AS r(id) WHERE id < 0")
    for _ in range(2):
        assert [r["status"] for r in scratch.wb.runs.run(f"{up}+").as_dict()["runs"]] == ["success", "success"]
    runs = [s for s in scratch.wb.tables.history(up).as_dict()["snapshots"] if s["kind"] == "run"]
    assert [(s["added_rows"], s["deleted_rows"], s["updated_rows"]) for s in runs[1:]] == [(0, 0, 0)] * (len(runs) - 1)
    assert scratch.refs(up)["main"] != before  # the runs made snapshots, which the rollback removes
    assert scratch.wb.tables.rollback_table(up, before).as_dict()["stale_downstream"] == []
    # a run that did change rows still makes its readers stale
    scratch.pipeline("bronze", "up", "-- @merge_strategy: incremental\n-- @unique_key: id\n"
                                     "SELECT id FROM range(5) AS r(id)")
    scratch.wb.runs.run(f"{up}+")
    assert scratch.wb.tables.rollback_table(up, before).as_dict()["stale_downstream"] == [down]
