"""One-key fixtures in the core: a unit test written from a preview's inputs and output, which passes as
written, keeps the input rows that reach the output, and never overwrites a file."""
from __future__ import annotations

import yaml

import pytest

from rat_tui.core.errors import RatError

pytestmark = pytest.mark.spark

ORDERS = """\
    order_id,customer_id,amount
    1,10,5.50
    2,11,7.00
    3,12,1.25
    4,10,9.00
"""


def given_rows(text: str) -> dict[str, list[dict]]:
    return {g["input"]: g["rows"] for g in yaml.safe_load(text)["given"]}


def test_a_fixture_from_a_ref_and_a_landing_zone_keeps_traced_rows_and_passes(scratch):
    scratch.pipeline("bronze", "customers", """\
        -- @merge_strategy: full_refresh
        SELECT * FROM VALUES (10, 'ann'), (11, 'bob'), (12, 'cy'), (13, 'dee') AS c(customer_id, name)
    """)
    assert scratch.run(f"{scratch.ns}.bronze.customers")["status"] == "success"
    scratch.landing("orders", "orders.csv", ORDERS)
    fqn = scratch.pipeline("silver", "orders", """\
        -- @merge_strategy: incremental
        -- @unique_key: order_id
        SELECT CAST(o.order_id AS BIGINT) AS order_id, c.name, CAST(o.amount AS DECIMAL(10, 2)) AS amount
        FROM {{ landing_zone('orders') }} o JOIN {{ ref('bronze.customers') }} c
          ON CAST(o.customer_id AS INT) = c.customer_id
        WHERE o.order_id <> '3'
    """)
    written = scratch.wb.unit_tests.unit_fixture(fqn, rows=2).as_dict()
    path = scratch.wb.project.root / written["path"]
    assert written["path"] == f"{scratch.ns}/pipelines/silver/orders/tests/unit/preview.yaml"
    assert written["test"]["status"] == "passed", written
    rows = given_rows(path.read_text())
    assert set(rows) == {"landing_zone('orders')", "ref('bronze.customers')"}
    assert len(rows["landing_zone('orders')"]) == 2
    # customers are traced by customer_id... which the output does not carry: the first rows are kept;
    # orders reach the output by order_id (the unique key), so order 3 (filtered out) is never kept.
    assert all(r["order_id"] != 3 for r in rows["landing_zone('orders')"])
    expected = yaml.safe_load(path.read_text())["expect"]["output"]
    assert 1 <= len(expected) <= 2
    assert scratch.wb.unit_tests.unit_test(fqn).as_dict()["tests"][0]["status"] == "passed"

    again = scratch.wb.unit_tests.unit_fixture(fqn, rows=2).as_dict()
    assert again["name"] == "preview_2" and path.read_text() == (path.parent / "preview.yaml").read_text()
    assert {t.result.name: t.result.status for t in scratch.wb.unit_tests.unit_test_listing(
        scratch.wb.browse.resolve(fqn))} == {"preview": "passed", "preview_2": "passed"}


def test_join_keys_trace_the_rows_that_reach_the_output(scratch):
    scratch.pipeline("bronze", "people", """\
        -- @merge_strategy: full_refresh
        SELECT * FROM VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e'), (6, 'f') AS p(person_id, name)
    """)
    assert scratch.run(f"{scratch.ns}.bronze.people")["status"] == "success"
    fqn = scratch.pipeline("gold", "late", """\
        SELECT person_id, UPPER(name) AS shout FROM {{ ref('bronze.people') }} WHERE person_id >= 5
    """)
    written = scratch.wb.unit_tests.unit_fixture(fqn, rows=3).as_dict()
    text = (scratch.wb.project.root / written["path"]).read_text()
    assert sorted(r["person_id"] for r in given_rows(text)["ref('bronze.people')"]) == [5, 6]
    assert sorted(r["shout"] for r in yaml.safe_load(text)["expect"]["output"]) == ["E", "F"]
    assert written["test"]["status"] == "passed"


def test_a_pipeline_that_does_not_build_writes_no_file(scratch):
    fqn = scratch.pipeline("silver", "broken", "SELECT nope FROM {{ ref('bronze.missing') }}\n")
    with pytest.raises(RatError, match="bronze.missing"):
        scratch.wb.unit_tests.unit_fixture(fqn)
    assert not (scratch.root / "pipelines" / "silver" / "broken" / "tests").exists()


def test_a_fixture_of_an_incremental_preview_carries_this_and_the_watermark(scratch):
    scratch.landing("feed", "a.csv", "id,v,ts\n1,a,2024-01-01 00:00:00\n2,b,2024-01-02 00:00:00\n")
    fqn = scratch.pipeline("silver", "feed", """\
        -- @merge_strategy: incremental
        -- @unique_key: id
        -- @watermark_column: ts
        SELECT CAST(id AS BIGINT) AS id, v, CAST(ts AS TIMESTAMP) AS ts FROM {{ landing_zone('feed') }}
        {% if is_incremental() %}WHERE CAST(ts AS TIMESTAMP) > TIMESTAMP '{{ watermark_value }}'{% endif %}
    """)
    assert scratch.run(fqn)["status"] == "success"
    scratch.landing("feed", "b.csv", "id,v,ts\n2,B,2024-01-03 00:00:00\n3,c,2024-01-04 00:00:00\n"
                                     "1,old,2023-12-31 00:00:00\n")
    written = scratch.wb.unit_tests.unit_fixture(fqn).as_dict()
    test = yaml.safe_load((scratch.wb.project.root / written["path"]).read_text())
    assert written["test"]["status"] == "passed", written
    assert test["vars"] == {"is_incremental": True, "watermark_value": "2024-01-02 00:00:00"}
    # Traced by the unique key: id 1 never reaches the output (the watermark filters it), 2 and 3 do.
    assert {r["id"] for r in test["given"][0]["rows"]} == {2, 3}
    assert [(r["id"], r["v"]) for r in test["this"]] == [(2, "b")]  # the table's row the output touches
    assert sorted((r["id"], r["v"]) for r in test["expect"]["output"]) == [(2, "B"), (3, "c")]
