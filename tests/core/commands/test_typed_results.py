"""Commands return typed results (issue 37): the TUI reads their attributes, and the script face prints each
as the line docs/script.md promises, key for key."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest

from rat_tui.core.commands.browse_results import Listing, ProblemList, QueryResult
from rat_tui.core.commands.details import PipelineDetail, pipeline_detail
from rat_tui.core.commands.run_results import (
    BackfillResult,
    IntervalList,
    ReviewResult,
    RunList,
    RunResult,
    SelectionResult,
)
from rat_tui.core.commands.table_results import SnapshotList, TableHistory, TablePreview, TableRollback
from rat_tui.core.commands.versions import VersionList
from rat_tui.core.errors import RatError
from rat_tui.core.store.state import RunRecord
from rat_tui.script.as_json import result_fields
from tests.helpers import script
from tests.intervalhelpers import last_three_days
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark

# A run object of the contract (docs/script.md, `run`), as printed before the results were typed.
RUN_KEYS = {"run_id", "pipeline", "status", "version", "trigger", "queued_at", "started_at", "waited_for_spark_ms",
            "finished_at", "rows_written", "phases", "phase_rows", "quality", "snapshot_id", "error", "inputs", "notes"}
KEYED = "-- @merge_strategy: incremental\n-- @unique_key: id\nSELECT * FROM VALUES {rows} AS v(id, name)"


def printed(result) -> dict:
    """The fields the script face prints for a typed result, through JSON as a script reader gets them."""
    return json.loads(json.dumps(result_fields(result), default=str))


def fields(line: dict) -> dict:
    return {k: v for k, v in line.items() if k not in ("line", "cmd", "ok")}


def test_run_runs_review_and_selection_results_are_typed_and_print_as_the_contract(scratch: Scratch):
    fqn = scratch.pipeline("silver", "people", KEYED.format(rows="(1, 'a')"))
    down = scratch.pipeline("gold", "people_count", "SELECT count(*) AS n FROM {{ ref('silver.people') }}")
    ran = scratch.wb.runs.run(fqn)
    assert isinstance(ran, RunResult) and isinstance(ran.run, RunRecord)
    assert (ran.run.status, ran.run.rows_written, ran.impact) == ("success", 1, None)
    assert set(printed(ran)) == {"run"} and set(printed(ran)["run"]) == RUN_KEYS

    status, (listed,) = script(scratch.wb, f"runs {fqn}")
    assert status == 0 and fields(listed) == printed(scratch.wb.browse.runs(fqn))
    assert isinstance(scratch.wb.browse.runs(fqn), RunList) and [r.run_id for r in scratch.wb.browse.runs(fqn).runs] == [ran.run.run_id]
    assert set(listed["runs"][0]) == RUN_KEYS

    scratch.pipeline("silver", "people", KEYED.format(rows="(1, 'a'), (2, 'b')"))
    status, (held_line,) = script(scratch.wb, f"run {fqn} --review")
    held = held_line["run"]
    assert status == 0 and set(held) == RUN_KEYS | {"diff", "impact"} and held["status"] == "awaiting_review"
    pending = scratch.wb.review.pending_reviews()  # of the whole shared lake: other tests leave runs held
    assert isinstance(pending, RunList) and [r.run_id for r in pending.runs if r.pipeline == fqn] == [held["run_id"]]
    assert pending.impact[held["run_id"]] == held["impact"]
    assert [r for r in printed(pending)["runs"] if r["pipeline"] == fqn] == [held]

    approved = scratch.wb.review.approve(held["run_id"])
    assert isinstance(approved, ReviewResult) and approved.run.status == "success"
    assert approved.run.snapshot_id == scratch.refs(fqn)["main"]
    assert set(printed(approved)) == {"run"} and set(printed(approved)["run"]) == RUN_KEYS | {"diff"}

    selection = scratch.wb.runs.run(f"{fqn}+")
    assert isinstance(selection, SelectionResult) and selection.rebuilt_from is None
    assert [(r.pipeline, r.status) for r in selection.runs] == [(fqn, "success"), (down, "success")]
    assert set(printed(selection)) == {"runs"} and all(set(r) == RUN_KEYS for r in printed(selection)["runs"])

    scratch.pipeline("silver", "people", KEYED.split("SELECT")[0] + "SELECT no_such_column FROM VALUES (1) AS v(id)")
    with pytest.raises(RatError) as failed:
        scratch.wb.runs.run(f"{fqn}+")
    partial = failed.value.result
    assert isinstance(partial, SelectionResult)
    assert [(r.pipeline, r.status) for r in partial.runs] == [(fqn, "failed"), (down, "skipped")]
    status, (line,) = script(scratch.wb, f"run {fqn}")
    assert status == 1 and line["ok"] is False and set(line) == {"line", "cmd", "ok", "run", "error"}
    assert line["run"]["status"] == "failed" and "no_such_column" in line["run"]["error"]


def test_intervals_and_backfill_results_are_typed_and_print_as_the_contract(scratch: Scratch):
    start, fqn = last_three_days(scratch)
    end = str(start + timedelta(days=2))
    listed = scratch.wb.intervals.intervals(fqn, str(start), end)
    assert isinstance(listed, IntervalList) and [s.status for s in listed.intervals] == ["missing", "missing"]
    status, (line,) = script(scratch.wb, f"intervals {fqn} --start {start} --end {end}")
    assert status == 0 and fields(line) == printed(listed)

    planned = scratch.wb.intervals.backfill(fqn, str(start), end, dry_run=True)
    assert isinstance(planned, BackfillResult) and planned.run is None
    assert printed(planned) == {"intervals": printed(listed)["intervals"], "dry_run": True}

    done = scratch.wb.intervals.backfill(fqn, str(start), end)
    assert isinstance(done, BackfillResult) and done.run is not None and done.run.status == "success"
    assert [s.status for s in done.intervals] == ["done", "done"]
    assert set(printed(done)) == {"run", "intervals"} and set(printed(done)["run"]) == RUN_KEYS


HISTORY_KEYS = {"kind", "run_id", "strategy", "snapshot_id", "base_snapshot_id", "snapshot_ids", "committed_at",
                "operation", "added_rows", "updated_rows", "deleted_rows", "total_rows", "on_main", "is_current", "inputs"}
RAW_SNAPSHOT_KEYS = {"snapshot_id", "parent_id", "committed_at", "operation", "added_rows", "total_rows", "is_current",
                     "run_id", "schema_changes", "inputs"}


def test_table_version_and_browse_results_are_typed_and_print_as_the_contract(scratch: Scratch):
    fqn = scratch.pipeline("silver", "people", KEYED.format(rows="(1, 'a'), (2, 'b')"))
    ran = scratch.wb.runs.run(fqn).run
    scratch.wb.versions.publish(fqn, "first")
    wb = scratch.wb
    typed = {
        f"snapshots {fqn}": (wb.tables.history(fqn), TableHistory),
        f"snapshots {fqn} --all": (wb.tables.snapshots(fqn), SnapshotList),
        f"table-preview {fqn}": (wb.tables.table_preview(fqn), TablePreview),
        f"versions {fqn}": (wb.versions.list_versions(fqn), VersionList),
        f"preview {fqn}": (wb.console.preview(fqn), QueryResult),
        "query SELECT 1 AS one": (wb.console.query("SELECT 1 AS one"), QueryResult),
        "ls": (wb.browse.ls(), Listing),
        f"validate {fqn}": (wb.browse.validate(fqn), ProblemList),
    }
    status, lines = script(wb, "\n".join(typed))
    assert status == 0
    for line, (command, (result, kind)) in zip(lines, typed.items()):
        assert isinstance(result, kind) and fields(line) == printed(result), command

    history, raw = wb.tables.history(fqn), wb.tables.snapshots(fqn)
    assert [(e.kind, e.run_id) for e in history.entries] == [("create", None), ("run", ran.run_id)]
    assert history.refs == {"main": ran.snapshot_id} and history.inputs == {ran.run_id: {}}
    assert all(set(e) == HISTORY_KEYS for e in printed(history)["snapshots"])
    assert ran.run_id in [s.run_id for s in raw.snapshots]
    assert all(set(s) == RAW_SNAPSHOT_KEYS for s in printed(raw)["snapshots"])
    assert wb.tables.table_preview(fqn).rows == [[1, "a"], [2, "b"]] and wb.tables.table_preview(fqn).snapshot_id == ran.snapshot_id
    assert [(v.version, v.message) for v in wb.versions.list_versions(fqn).versions] == [(1, "first")]
    assert wb.versions.list_versions(fqn).current == 1 and set(printed(wb.versions.list_versions(fqn))) == {"versions", "current"}
    assert (wb.console.query("SELECT 1 AS one").columns, wb.console.query("SELECT 1 AS one").rows) == (["one"], [[1]])
    assert set(printed(wb.console.query("SELECT id FROM range(1001)"))) == {"columns", "rows", "truncated"}
    assert fqn in next(ns for ns in printed(wb.browse.ls())["namespaces"] if ns["name"] == scratch.ns)["pipelines"]

    detail = pipeline_detail(wb.project, wb.browse.resolve(fqn))
    assert isinstance(detail, PipelineDetail) and detail.kind == "sql" and detail.problems == []
    assert detail.config["unique_key"] == ["id"] and detail.sources["unique_key"] == "annotation"
    mine = next(ns for ns in wb.browse.overview().namespaces if ns.name == scratch.ns)
    assert [(p.ref.fqn, p.last_status, p.published, p.drift) for p in mine.pipelines] == [(fqn, "success", True, False)]
    assert [(t.ref.fqn, t.snapshot_id, t.rows) for t in mine.tables] == [(fqn, ran.snapshot_id, 2)]

    created = history.entries[0].snapshot_id
    back = wb.tables.rollback_table(fqn, created)
    assert isinstance(back, TableRollback) and (back.stale_downstream, back.rebuild) == ([], None)
    assert printed(back) == {"snapshot_id": created, "stale_downstream": []}
