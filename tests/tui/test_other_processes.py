"""Another process on the same project, seen by an open app (issue 27, items 5 and 6): its runs show in the
tree marks, the run view and the Runs tab within a second or two, without F5; and two apps watching one
project run one save once, with no failure. Real second processes, bounded waits."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from textual.widgets import DataTable

from devkit.pilot import notifications, screen, select, until
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.pipeline_view import PipelineView
from rat_tui.tui.components.project_tree import ProjectTree
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark
SIZE = (140, 45)


def script_process(project, text: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "rat_tui", str(project), "--script", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    proc.stdin.write(text)
    proc.stdin.close()
    proc.stdin = None
    return proc


def runs_tab(app: RatApp) -> dict[str, str]:
    """run id -> status, as the Runs tab lists them."""
    table = app.query_one("#runs-table", DataTable)
    labels = [str(column.label) for column in table.columns.values()]
    if "run" not in labels:  # the tab is still loading: no columns yet
        return {}
    run, status = labels.index("run"), labels.index("status")
    return {str(table.get_row_at(i)[run]): str(table.get_row_at(i)[status]) for i in range(table.row_count)}


async def test_a_run_by_a_script_shows_in_the_open_app_within_seconds(scratch: Scratch):
    fqn = scratch.pipeline("silver", "elsewhere", "SELECT 5 AS id")
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        app.query_one(PipelineView).show_tab("tab-runs")
        proc = script_process(scratch.wb.project.root, f"run {fqn}\n")
        try:
            await until(pilot, lambda: "success" in runs_tab(app).values() or proc.poll() is not None, 240,
                        "the Runs tab to list the other process's run", every=0.05)
            seen_at = time.time()
            out, err = proc.communicate(timeout=120)
        finally:
            proc.kill()
        result = json.loads(out.splitlines()[0])
        assert result["ok"] is True, err[-2000:]
        run = result["run"]
        assert runs_tab(app) == {run["run_id"]: "success"}
        assert seen_at - run["finished_at"] < 2.0  # seen within two seconds of its end, no F5 pressed
        assert app.query_one(ProjectTree).live.get(fqn, ("success",))[0] == "success"
        app.query_one(PipelineView).show_tab("tab-run")
        await until(pilot, lambda: "SUCCESS" in screen(app), 5, "the run view to show the run")
        assert run["run_id"] in screen(app)


async def test_two_apps_watching_one_project_run_one_save_once(scratch: Scratch):
    fqn = scratch.pipeline("silver", "saved", "-- @merge_strategy: append_only\nSELECT 1 AS id")
    source = f"{scratch.ns}/pipelines/silver/saved/pipeline.sql"
    app = RatApp(scratch.wb, watch=True, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "pipeline", fqn)
        proc = script_process(scratch.wb.project.root, "watch on\n"
                              f"write {source} <<EOF\n-- @merge_strategy: append_only\nSELECT 2 AS id\nEOF\n"
                              "wait-idle --timeout 200\n")
        try:
            await until(pilot, lambda: proc.poll() is not None, 260, "the watching script to end")
            out, err = proc.communicate(timeout=30)
        finally:
            proc.kill()
        await until(pilot, lambda: not scratch.wb.runner.active and not scratch.wb.watching._busy, 120,
                    "this app's run to end")
        lines = [json.loads(line) for line in out.splitlines() if line.strip()]
        assert proc.returncode == 0 and all(line["ok"] for line in lines), err[-2000:]
        assert not [n for n in notifications(app) if n.severity == "error"]
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[2]]  # one save, one run reached main
    runs = scratch.wb.browse.runs(fqn).as_dict()["runs"]
    assert [(r["status"], r["trigger"]) for r in runs] == [("success", "watch")]
    script_runs = lines[-1]["runs"]
    joined = [r for r in script_runs if r.get("joined")]
    assert len(script_runs) == 1 and (joined == [] or joined[0]["joined"] == runs[0]["run_id"])
