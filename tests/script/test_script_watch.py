"""`watch on` in a script does what the TUI's watcher does: new landing files run their readers
(watch.run_on_landing) and a saved pipeline's successful run re-runs its downstream (watch.cascade).
These scripts use no screen command, so they run without the app."""
from __future__ import annotations

from pathlib import Path

import pytest

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
              "watch off\n")
    status, results, stderr = run_script_here(sample_copy, script)
    assert status == 0, (results, stderr)
    assert [(r["pipeline"], r["trigger"], r["status"]) for r in results[2]["runs"]] == [
        ("ecommerce.bronze.raw_orders", "landing", "success")]
    assert results[2]["runs"][0]["rows_written"] == 302
    assert results[3]["rows"] == [[302, 302]]


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
              "watch off\n")
    status, results, stderr = run_script_here(sample_copy, script)
    assert status == 0, (results, stderr)
    assert [(r["pipeline"], r["trigger"], r["status"]) for r in results[5]["runs"]] == [
        ("t.bronze.up", "watch", "success"), ("t.silver.down", "selection", "success")]
    assert results[6]["rows"] == [[20]]
    assert [r["trigger"] for r in results[7]["runs"]] == ["selection"]  # once, after the saved pipeline's run
