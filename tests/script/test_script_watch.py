"""`watch on` in a script does what the TUI's watcher does: new landing files run their readers
(watch.run_on_landing) and a saved pipeline's successful run re-runs its downstream (watch.cascade).
These scripts use no screen command, so they run without the app."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rat_tui.core.lineage.openlineage_events import run_uuid
from rat_tui.core.project.model import Project
from tests.helpers import run_script_here

pytestmark = pytest.mark.spark


def watch_setting(project: Path, line: str) -> None:
    rat_yaml = project / "rat.yaml"
    rat_yaml.write_text(rat_yaml.read_text().replace("watch:\n", f"watch:\n  {line}\n", 1))


NEW_ORDERS = """\
order_id,customer_id,customer_name,customer_city,product_id,quantity,amount,status,order_date,updated_at
301,7,Ana Silva,Porto,3,2,19.90,placed,2024-04-02,2024-04-02 09:00:00
302,8,Ben Meyer,Berlin,4,1,5.50,placed,2024-04-03,2024-04-03 10:30:00
"""


def test_a_file_landing_in_a_zone_runs_its_reader(sample_copy: Path):
    watch_setting(sample_copy, "run_on_landing: true")
    script = ("watch on\n"
              f"write ecommerce/landing/orders/orders_2024_04.csv <<EOF\n{NEW_ORDERS}EOF\n"
              "wait-idle --timeout 180\n"
              "query SELECT count(*) AS n, max(order_id) AS last FROM ecommerce.bronze.raw_orders\n"
              "watch off\n"
              "ticks ecommerce.bronze.raw_orders\n"
              "triggers ecommerce.bronze.raw_orders\n")
    status, results, stderr = run_script_here(sample_copy, script)
    assert status == 0, (results, stderr)
    assert [(r["pipeline"], r["trigger"], r["status"]) for r in results[2]["runs"]] == [
        ("ecommerce.bronze.raw_orders", "landing", "success")]
    assert results[2]["runs"][0]["rows_written"] == 302
    assert results[3]["rows"] == [[302, 302]]
    # the run came from the implicit landing trigger of watch.run_on_landing, as its tick says
    assert [(t["kind"], t["outcome"], t["reason"], t["implicit"], t["run_id"]) for t in results[5]["ticks"]] == [
        ("landing", "fired", "1 new file in orders (watch.run_on_landing)", "watch.run_on_landing",
         results[2]["runs"][0]["run_id"])]
    assert [(t["kind"], t["spec"], t["implicit"]) for t in results[6]["triggers"]] == [
        ("landing", "orders (watch.run_on_landing)", "watch.run_on_landing")]


UP = "t/pipelines/bronze/up/pipeline.sql"
DOWN = "t/pipelines/silver/down/pipeline.sql"


def test_a_saved_pipelines_run_cascades_to_its_downstream(sample_copy: Path):
    watch_setting(sample_copy, "cascade: true")
    script = (f"write {UP} <<EOF\nSELECT 1 AS id\nEOF\n"
              f"write {DOWN} <<EOF\nSELECT id * 10 AS tens FROM {{{{ ref('bronze.up') }}}}\nEOF\n"
              "run t.bronze.up\n"
              "watch on\n"
              f"write {UP} <<EOF\nSELECT 2 AS id\nEOF\n"
              "wait-idle --timeout 180\n"
              "query SELECT tens FROM t.silver.down\n"
              "runs t.silver.down\n"
              "watch off\n"
              "ticks t.silver.down\n")
    status, results, stderr = run_script_here(sample_copy, script)
    assert status == 0, (results, stderr)
    assert [(r["pipeline"], r["trigger"], r["status"]) for r in results[5]["runs"]] == [
        ("t.bronze.up", "watch", "success"), ("t.silver.down", "after", "success")]
    assert results[6]["rows"] == [[20]]
    assert [r["trigger"] for r in results[7]["runs"]] == ["after"]  # once, after the saved pipeline's run
    # the implicit `after` trigger of watch.cascade fired it, for the saved pipeline's run
    assert [(t["kind"], t["outcome"], t["reason"], t["run_id"]) for t in results[9]["ticks"]] == [
        ("after", "fired", "t.bronze.up succeeded (watch.cascade)", results[7]["runs"][0]["run_id"])]
    # its OpenLineage events name the saved pipeline's run as their parent
    uri = Project(sample_copy).root.as_uri()
    events = [json.loads(line) for line in (sample_copy / ".rat" / "lineage" / "events.jsonl").read_text().splitlines()]
    down_run = run_uuid(uri, results[7]["runs"][0]["run_id"])
    parents = [e["run"]["facets"]["parent"] for e in events if e["run"]["runId"] == down_run]
    assert [(p["job"]["name"], p["run"]["runId"]) for p in parents] == [
        ("t.bronze.up", run_uuid(uri, results[5]["runs"][0]["run_id"]))] * 2  # START and COMPLETE


def test_a_cascade_obeys_the_downstreams_cooldown_and_says_so(sample_copy: Path):
    watch_setting(sample_copy, "cascade: true")
    saves = [f"write {UP} <<EOF\nSELECT {n} AS id\nEOF\nwait-idle --timeout 180\n" for n in (2, 3)]
    script = (f"write {UP} <<EOF\nSELECT 1 AS id\nEOF\n"
              f"write {DOWN} <<EOF\nSELECT id * 10 AS tens FROM {{{{ ref('bronze.up') }}}}\nEOF\n"
              "write t/pipelines/silver/down/config.yaml <<EOF\ncooldown: 1h\nEOF\n"
              "watch on\n" + "".join(saves) + "watch off\nquery SELECT tens FROM t.silver.down\nticks t.silver.down\n")
    status, results, stderr = run_script_here(sample_copy, script)
    assert status == 0, (results, stderr)
    assert [(r["pipeline"], r["trigger"]) for r in results[5]["runs"]] == [("t.bronze.up", "watch"),
                                                                         ("t.silver.down", "after")]
    assert [(r["pipeline"], r["trigger"]) for r in results[7]["runs"]] == [("t.bronze.up", "watch")]
    assert results[9]["rows"] == [[20]]  # the second save's run did not cascade
    skipped, fired = results[10]["ticks"]
    assert fired["outcome"] == "fired" and skipped["outcome"] == "skipped"
    assert skipped["reason"].startswith("cooldown 1h: last fired at "), skipped
    assert skipped["implicit"] == "watch.cascade"


def test_a_scheduler_evaluating_first_after_the_upstreams_success_still_runs_the_cascade(sample_copy: Path):
    """The TUI's scheduler evaluates the implicit triggers too. Its first evaluation of down's, a moment after
    up's success, started that trigger after the success, so neither it nor the cascade ever ran down (CI)."""
    watch_setting(sample_copy, "cascade: true")
    script = (f"write {UP} <<EOF\nSELECT 1 AS id\nEOF\n"
              f"write {DOWN} <<EOF\nSELECT id * 10 AS tens FROM {{{{ ref('bronze.up') }}}}\nEOF\n"
              "watch on\n"
              "run t.bronze.up\n"
              "tick\n"
              "watch off\n"
              "query SELECT tens FROM t.silver.down\n")
    status, results, stderr = run_script_here(sample_copy, script)
    assert status == 0, (results, stderr)
    assert [(f["pipeline"], f["kind"], f["status"]) for f in results[4]["fired"]] == [
        ("t.silver.down", "after", "success")]
    assert results[6]["rows"] == [[10]]
