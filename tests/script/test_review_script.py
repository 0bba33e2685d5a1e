"""Review through the script face, across processes: a pending review survives a restart (the run is held by
a child that then exits; this process starts after it, recovers, and approves)."""
from __future__ import annotations

from pathlib import Path

import pytest

from devkit.sample import copy_sample
from tests.helpers import run_script, run_script_here

pytestmark = pytest.mark.spark

PIPELINE = """-- @merge_strategy: incremental
-- @unique_key: id
SELECT * FROM VALUES {rows} AS v(id, name)
"""


def test_a_review_held_by_one_process_is_approved_by_another(tmp_path: Path):
    project = copy_sample(tmp_path / "project")
    path = "ecommerce/pipelines/silver/people/pipeline.sql"
    status, lines, err = run_script(project, "\n".join([
        f"write {path} <<EOF", PIPELINE.format(rows="(1, 'a'), (2, 'b')"), "EOF",
        "run ecommerce.silver.people",
        f"write {path} <<EOF", PIPELINE.format(rows="(2, 'B'), (3, 'c')"), "EOF",
        "run ecommerce.silver.people --review"]))
    assert status == 0, err
    held = lines[-1]["run"]
    assert held["status"] == "awaiting_review"
    assert {k: held["diff"][k] for k in ("added", "removed", "changed", "columns")} == {
        "added": 1, "removed": 0, "changed": 1, "columns": {"name": 1}}
    status, lines, err = run_script_here(project, "\n".join([
        "runs ecommerce.silver.people --limit 1",
        "purge --dry-run",
        f"diff ecommerce.silver.people --run {held['run_id']}",
        f"approve {held['run_id']}",
        "query SELECT * FROM ecommerce.silver.people ORDER BY id",
        f"reject {held['run_id']}"]), "--keep-going")
    assert lines[0]["runs"][0]["status"] == "awaiting_review"  # recovery at start-up left it alone
    assert lines[1]["purged"]["orphan_branches"] == 0
    # found by a new user: `diff --run` of a held run said it "never reached main"; it shows what approving changes
    assert lines[2]["ok"] and lines[2]["note"] == (f"run {held['run_id']} awaits review: main is unchanged; this is "
                                                   "what approving it changes")
    assert {k: lines[2][k] for k in ("added", "removed", "changed")} == {"added": 1, "removed": 0, "changed": 1}
    assert lines[3]["ok"] and lines[3]["run"]["status"] == "success"
    assert lines[4]["rows"] == [[1, "a"], [2, "B"], [3, "c"]]
    assert lines[5] == {"line": 6, "cmd": "reject", "ok": False,
                        "error": f"run {held['run_id']} of ecommerce.silver.people is not awaiting review (it is success)"}
