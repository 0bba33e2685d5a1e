"""Each run's lineage on real tables: OpenLineage events (START, then COMPLETE / FAIL / ABORT) checked
against the spec's schema, the lineage kept with the run, and what a held run's change breaks."""
from __future__ import annotations

import json
import threading

import pytest

from rat_tui.core.events import RunStarted
from rat_tui.core.lineage.run_lineage import RunLineage
from rat_tui.core.lineage.openlineage_events import run_uuid
from tests.lakehelpers import Scratch

from .openlineage_schema import event_problems

pytestmark = pytest.mark.spark

ORDERS_CSV = """
id,customer,amount
1,ada,10.5
2,bob,-3
3,ada,7
"""
TOTALS = "SELECT customer, SUM(amount) AS total FROM {{ ref('bronze.orders') }} WHERE amount > 0 GROUP BY customer"


def events_of(scratch: Scratch, run_id: str) -> list[dict]:
    path = scratch.wb.project.state_dir / "lineage" / "events.jsonl"
    wanted = run_uuid(scratch.wb.project.root.as_uri(), run_id)
    return [e for e in map(json.loads, path.read_text().splitlines()) if e["run"]["runId"] == wanted]


def bronze(scratch: Scratch) -> tuple[str, dict]:
    scratch.landing("orders", "orders.csv", ORDERS_CSV)
    fqn = scratch.pipeline("bronze", "orders", "SELECT * FROM {{ landing_zone('orders') }}",
                           tests={"has_ids": "SELECT * FROM {{ this }} WHERE id IS NULL"})
    return fqn, scratch.run(fqn)


def test_a_successful_run_sends_start_and_complete_with_its_facets(scratch: Scratch):
    source, first = bronze(scratch)
    fqn = scratch.pipeline("silver", "totals", TOTALS)
    record = scratch.run(fqn)
    assert record["status"] == "success"
    start, complete = events_of(scratch, record["run_id"])
    assert [start["eventType"], complete["eventType"]] == ["START", "COMPLETE"]
    assert event_problems(start) == [] and event_problems(complete) == []
    assert complete["job"]["name"] == fqn
    assert complete["job"]["facets"]["sql"]["query"].startswith(f"SELECT customer, SUM(amount) AS total FROM `{scratch.ns}`")
    assert complete["job"]["facets"]["sourceCode"]["sourceCode"] == TOTALS
    [output] = complete["outputs"]
    assert output["facets"]["version"]["datasetVersion"] == str(record["snapshot_id"])
    assert output["outputFacets"]["outputStatistics"]["rowCount"] == 1
    assert [(f["name"], f["type"]) for f in output["facets"]["schema"]["fields"]] == [
        ("customer", "string"), ("total", "double")]
    total = {(i["name"], i["field"], t["type"], t["subtype"]) for i in
             output["facets"]["columnLineage"]["fields"]["total"]["inputFields"] for t in i["transformations"]}
    assert total == {(source, "amount", "DIRECT", "AGGREGATION"), (source, "amount", "INDIRECT", "FILTER"),
                     (source, "customer", "INDIRECT", "GROUP_BY")}
    inputs = {i["name"]: i for i in complete["inputs"]}
    assert inputs[source]["facets"]["version"]["datasetVersion"] == str(first["snapshot_id"])
    assert inputs[source]["inputFacets"]["dataQualityAssertions"]["assertions"] == [
        {"assertion": "has_ids", "success": True, "severity": "error", "actual": "0", "params": {}}]
    kept = scratch.wb.lineage_store.for_run(record["run_id"])
    assert kept.columns == ("customer", "total")


def test_a_runs_lineage_is_written_beside_the_run_and_never_holds_it_up(scratch: Scratch, monkeypatch):
    """41 item 6: the lineage of a run (sqlglot, the table's schema, events.jsonl) was worked out on the run's
    own thread at its start and end, inside every save → result. It is written beside the run now; waiting for
    the run (`wait`, a command's answer) still finds it written."""
    bronze(scratch)
    fqn = scratch.pipeline("silver", "totals", TOTALS)
    release = threading.Event()
    emit = RunLineage.emit
    monkeypatch.setattr(RunLineage, "emit", lambda self, event: (release.wait(120), emit(self, event)))
    handle = scratch.wb.runs.submit(fqn)
    assert handle.done.wait(120), "the run waited for its lineage"
    assert handle.record.status == "success" and events_of(scratch, handle.run_id) == []
    release.set()
    record = handle.wait(120)
    start, complete = events_of(scratch, record.run_id)
    assert [start["eventType"], complete["eventType"]] == ["START", "COMPLETE"]


def test_a_failed_quality_test_sends_fail_with_the_assertion(scratch: Scratch):
    bronze(scratch)
    fqn = scratch.pipeline("silver", "totals", TOTALS, tests={"no_ada": "SELECT * FROM {{ this }} WHERE customer = 'ada'"})
    record = scratch.run(fqn)
    assert record["status"] == "failed"
    start, fail = events_of(scratch, record["run_id"])
    assert [start["eventType"], fail["eventType"]] == ["START", "FAIL"]
    assert event_problems(fail) == []
    assert "no_ada" in fail["run"]["facets"]["errorMessage"]["message"]
    [output] = fail["outputs"]
    assert output["facets"]["dataQualityAssertions"]["assertions"] == [
        {"assertion": "no_ada", "success": False, "severity": "error", "actual": "1", "params": {}}]


def test_a_cancelled_run_sends_abort(scratch: Scratch):
    bronze(scratch)
    fqn = scratch.pipeline("silver", "totals", TOTALS)
    handles = []

    def cancel_on_start(event) -> None:
        if isinstance(event, RunStarted) and event.pipeline == fqn:
            scratch.wb.runs.cancel(event.run_id)

    unsubscribe = scratch.wb.events.subscribe(cancel_on_start)
    try:
        handles.append(scratch.wb.runs.submit(fqn))
        record = handles[0].wait(120)
    finally:
        unsubscribe()
    assert record.status == "cancelled"
    start, abort = events_of(scratch, record.run_id)
    assert [start["eventType"], abort["eventType"]] == ["START", "ABORT"]
    assert event_problems(abort) == []


def test_a_held_run_that_drops_a_column_names_what_it_breaks(scratch: Scratch):
    bronze(scratch)
    scratch.pipeline("silver", "totals", TOTALS)
    gold = scratch.pipeline("gold", "big", "SELECT customer FROM {{ ref('silver.totals') }} WHERE total > 5")
    for fqn in (f"{scratch.ns}.silver.totals", gold):
        assert scratch.run(fqn)["status"] == "success"
    scratch.pipeline("silver", "totals", "SELECT customer FROM {{ ref('bronze.orders') }} GROUP BY customer")
    held = scratch.wb.runs.run(f"{scratch.ns}.silver.totals", review=True).as_dict()["run"]
    assert held["status"] == "awaiting_review"
    assert held["impact"] == ["dropping `total` breaks the filter of `gold.big` (indirect)"]
    [pending] = [r for r in scratch.wb.review.pending_reviews().as_dict()["runs"] if r["run_id"] == held["run_id"]]
    assert pending["impact"] == held["impact"]
    scratch.wb.review.reject(held["run_id"])


@pytest.fixture
def triggered(scratch: Scratch):
    """A scratch namespace whose config.yaml triggers are removed after the test (the lake is shared)."""
    yield scratch
    for config in scratch.root.glob("pipelines/*/*/config.yaml"):
        config.unlink()


def at(text: str) -> float:
    from rat_tui.script.arg_types import clock_time

    return clock_time(text)


def test_a_triggered_run_names_its_tick_or_upstream_run_as_parent_and_a_cron_time_as_nominal(triggered: Scratch):
    scratch, uri = triggered, triggered.wb.project.root.as_uri()
    up = scratch.pipeline("bronze", "up", "SELECT 1 AS x", config='triggers:\n  - cron: "0 * * * *"\n')
    down = scratch.pipeline("silver", "down", "SELECT x FROM {{ ref('bronze.up') }}",
                            config="triggers:\n  - after: bronze.up\n")
    automation = scratch.wb.automation
    automation.tick(at("2025-06-01T09:30:00Z"))  # the schedules start
    [cron_fired] = [f for f in automation.tick(at("2025-06-01T10:00:10Z")).fired if f.pipeline == up]
    [after_fired] = [f for f in automation.tick(at("2025-06-01T10:00:20Z")).fired if f.pipeline == down]
    assert (cron_fired.status, after_fired.status) == ("success", "success")
    for event in events_of(scratch, cron_fired.run_id):
        assert event_problems(event) == []
        facets = event["run"]["facets"]
        assert facets["nominalTime"]["nominalStartTime"] == "2025-06-01T10:00:00Z"
        job = facets["parent"]["job"]
        assert (job["namespace"], job["name"]) == (uri, f"{up} trigger cron:0 * * * *")
        assert facets["parent"]["run"]["runId"] == run_uuid(uri, f"tick/{up}/cron:0 * * * */2025-06-01T10:00:00Z")
    for event in events_of(scratch, after_fired.run_id):
        assert event_problems(event) == []
        facets = event["run"]["facets"]
        assert "nominalTime" not in facets  # an upstream's success is no schedule
        job = facets["parent"]["job"]
        assert (job["namespace"], job["name"]) == (uri, up)
        assert facets["parent"]["run"]["runId"] == run_uuid(uri, cron_fired.run_id)  # the upstream run's own id
    manual = scratch.run(up)
    assert [set(e["run"]["facets"]) & {"nominalTime", "parent"} for e in events_of(scratch, manual["run_id"])] == [
        set(), set()]


def test_a_published_runs_events_carry_the_published_code_not_the_working_copy(scratch: Scratch):
    fqn = scratch.pipeline("silver", "pinned", "SELECT 1 AS x")
    scratch.wb.versions.publish(fqn, "first")
    scratch.pipeline("silver", "pinned", "SELECT 2 AS x, 3 AS y")  # edited since, not published
    record = scratch.wb.runs.run(fqn, published=True).as_dict()["run"]
    assert (record["status"], record["version"]) == ("success", "1")
    start, complete = events_of(scratch, record["run_id"])
    for event in (start, complete):
        assert event["job"]["facets"]["sourceCode"]["sourceCode"] == "SELECT 1 AS x"
        assert event["job"]["facets"]["sql"]["query"] == "SELECT 1 AS x"
    assert list(complete["outputs"][0]["facets"]["columnLineage"]["fields"]) == ["x"]


def test_reading_a_pythons_lineage_while_a_runs_lineage_waits_for_the_same_lock_does_not_wait(scratch: Scratch):
    """The lineage of a Python pipeline is read under ColumnLineage's lock (the tree, a review's impact); a run's
    lineage, written in the background, takes that lock too. Reads waited for the background writes, which
    waited for the lock: each such read hung until a 30 s timeout (a review test of the full suite took 130 s)."""
    fqn = scratch.pipeline("silver", "py", "def run(spark, ctx):\n    return spark.range(3)\n", filename="pipeline.py")
    lineage = scratch.wb.column_lineage
    read: list = []
    with lineage._lock:  # as the tree's lineage pass holds it
        handle = scratch.wb.runs.submit(fqn)
        assert handle.done.wait(120)  # its lineage waits for the lock in the background meanwhile
        reader = threading.Thread(target=lambda: read.append(scratch.wb.lineage_store.latest(fqn, "x")))
        reader.start()
        reader.join(20)
        assert not reader.is_alive(), "a read of the stored lineage waited for the background writer"
    assert read == [None] and handle.wait(120).status == "success"
    assert scratch.wb.lineage_store.for_run(handle.run_id) is not None  # written once the lock was free


def test_a_long_runs_start_is_written_while_it_runs_and_a_short_runs_before_its_end(scratch: Scratch, monkeypatch):
    """The START waits a moment (its parse and files held up the run's first phases), never the run's end."""
    import dataclasses
    import time

    from rat_tui.core.lineage import run_lineage

    project = scratch.wb.project
    monkeypatch.setattr(project, "settings", dataclasses.replace(project.settings, quality_timeout_seconds=6))
    short = scratch.run(scratch.pipeline("silver", "short", "SELECT 1 AS id"))
    assert [e["eventType"] for e in events_of(scratch, short["run_id"])] == ["START", "COMPLETE"]
    fqn = scratch.pipeline("silver", "long", "SELECT 1 AS id", tests={
        "slow": "SELECT * FROM {{ this }} CROSS JOIN range(400000) a CROSS JOIN range(40000) b WHERE hash(a.id, b.id) = 7"})
    handle = scratch.wb.runs.submit(fqn)
    deadline = time.monotonic() + run_lineage.START_DELAY + 4
    while not events_of(scratch, handle.run_id) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not handle.done.is_set(), "the slow quality test ended too soon for this test"
    assert [e["eventType"] for e in events_of(scratch, handle.run_id)] == ["START"]
    record = handle.wait()
    assert record.status == "failed"
    assert [e["eventType"] for e in events_of(scratch, handle.run_id)] == ["START", "FAIL"]
