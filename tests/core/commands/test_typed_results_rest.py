"""The rest of the commands return typed results (issue 37): diffs, landing zones, lineage, upkeep, versions,
files, tables. Each is a dataclass the TUI reads by attribute, and the script face prints it as the line
docs/script.md promises, key for key."""
from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from rat_tui.core.commands.console_export import Exported
from rat_tui.core.commands.details import zone_files
from rat_tui.core.commands.diff_results import RunDiff, SnapshotDiff, VersionDiff
from rat_tui.core.commands.files import FileWritten
from rat_tui.core.commands.landing_results import DetectedDialect, UploadResult, ZoneFile
from rat_tui.core.commands.lineage_commands import LineageGraph
from rat_tui.core.commands.table_results import Compacted, TableList, TableSummary
from rat_tui.core.commands.upkeep_results import AutoPurged, DoctorReport, PurgeReport
from rat_tui.core.commands.version_diff import version_diff
from rat_tui.core.commands.versions import Published, RolledBack
from rat_tui.core.errors import RatError
from rat_tui.core.lake.diff import TableDiff
from rat_tui.core.project.settings import ZoneSettings
from rat_tui.script.as_json import result_fields
from tests.helpers import script
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark

KEYED = "-- @merge_strategy: incremental\n-- @unique_key: id\nSELECT * FROM VALUES {rows} AS v(id, name)"
# the keys of docs/script.md's rows, as the commands printed them before they were typed
DIFF_KEYS = ["added", "removed", "changed", "columns", "schema_changes", "sample", "key", "old_rows", "read",
             "added_rows", "removed_rows"]
PURGE_KINDS = ["processed_files", "snapshots_expired", "orphan_files", "orphan_branches", "stuck_runs",
               "file_versions", "bucket_processed_files"]


def printed(result) -> dict:
    """The fields the script face prints for a typed result, through JSON as a script reader gets them."""
    assert dataclasses.is_dataclass(result), type(result)
    return json.loads(json.dumps(result_fields(result), default=str))


def fields(line: dict) -> dict:
    return {k: v for k, v in line.items() if k not in ("line", "cmd", "ok")}


def same_lines(wb, typed: dict[str, object]) -> None:
    """Each script line prints, key for key and in order, what its typed result prints."""
    status, lines = script(wb, "\n".join(typed))
    assert status == 0, lines
    for line, (command, result) in zip(lines, typed.items()):
        assert list(fields(line).items()) == list(printed(result).items()), command


def test_diffs_are_typed_and_print_as_the_contract(scratch: Scratch):
    fqn = scratch.pipeline("silver", "people", KEYED.format(rows="(1, 'a'), (2, 'b')"))
    first = scratch.run(fqn)
    scratch.pipeline("silver", "people", KEYED.format(rows="(2, 'B'), (3, 'c')"))
    second = scratch.run(fqn)
    wb = scratch.wb
    old, new = first["snapshot_id"], second["snapshot_id"]

    by_key = wb.review.key_diff(fqn, old, new)
    assert isinstance(by_key, TableDiff) and (by_key.added, by_key.changed, by_key.key) == (1, 1, ["id"])
    between = wb.tables.diff_snapshots(fqn, old, new)
    assert isinstance(between, SnapshotDiff) and between.diff.changed == 1
    assert (between.added_rows, between.removed_rows) == ([[3, "c"]], [])
    assert list(printed(between)) == DIFF_KEYS
    whole_run = wb.tables.diff_run(fqn, second["run_id"])
    assert isinstance(whole_run, RunDiff) and (whole_run.base_snapshot_id, whole_run.snapshot_id) == (old, new)
    assert list(printed(whole_run)) == ["run_id", "base_snapshot_id", "snapshot_id", *DIFF_KEYS]
    assert printed(whole_run)["run_id"] == second["run_id"]

    wb.versions.publish(fqn, "first")
    scratch.pipeline("silver", "people", KEYED.format(rows="(4, 'd')"))
    against = version_diff(wb.project, wb.version_store, wb.browse.resolve(fqn), 1)
    assert isinstance(against, VersionDiff) and [f.path for f in against.files] == ["pipeline.sql"]
    assert against.text.startswith("--- v1/pipeline.sql\n+++ working/pipeline.sql\n")
    assert printed(against) == {"files": [{"path": "pipeline.sql", "diff": against.text}]}
    same_lines(wb, {f"diff {fqn} {old} {new}": between, f"diff {fqn} --run {second['run_id']}": whole_run,
                    f"version-diff {fqn} 1": against})


def test_landing_results_are_typed_and_print_as_the_contract(scratch: Scratch, tmp_path):
    wb, ns = scratch.wb, scratch.ns
    scratch.landing("semi", "a.csv", "id;name\n1;x\n")
    settings = wb.landing.zone_settings(ns, "semi")
    assert isinstance(settings, ZoneSettings) and settings.auto_purge is False and settings.schema is None
    assert list(printed(settings)) == ["settings"]
    assert list(printed(settings)["settings"]) == ["processed_max_age_days", "auto_purge", "schema"]
    changed = wb.landing.set_zone_settings(ns, "semi", auto_purge=True)
    assert isinstance(changed, ZoneSettings) and changed.auto_purge is True

    detected = wb.landing.detected_dialect(ns, "semi")
    assert isinstance(detected, DetectedDialect) and (detected.file, detected.differs) == ("a.csv", [])
    assert detected.csv["delimiter"] == ";" and detected.written is None
    pinned = wb.landing.pin_dialect(ns, "semi", "a.csv")
    assert pinned == dataclasses.replace(detected, written="rat.yaml")
    assert list(printed(pinned)) == ["zone", "file", "csv", "differs", "written"]

    [listed] = zone_files(wb.project, wb.state, ns, "semi")
    assert isinstance(listed, ZoneFile) and (listed.path, listed.kind, listed.consumed) == ("a.csv", "active", False)
    assert listed.problem is None and "';'" in listed.dialect

    source = tmp_path / "b.csv"
    source.write_text("id;name\n2;y\n")
    uploaded = wb.landing.upload(ns, "semi", [str(source)])
    assert isinstance(uploaded, UploadResult) and [(f.name, f.bytes) for f in uploaded.files] == [("b.csv", 12)]
    assert list(printed(uploaded)) == ["files", "typed", "not_typed"]
    assert printed(uploaded)["files"] == [{"name": "b.csv", "bytes": 12}]

    (tmp_path / "c.csv").write_text("id;name\n3;z\n")
    status, lines = script(wb, f"upload {ns} semi {tmp_path / 'c.csv'}\nzone-settings {ns} semi\n"
                               f"pin-dialect {ns} semi a.csv")
    assert status == 0, lines
    assert list(fields(lines[0])) == ["files", "typed", "not_typed"] and lines[0]["files"] == [{"name": "c.csv", "bytes": 12}]
    assert fields(lines[1]) == printed(wb.landing.zone_settings(ns, "semi"))
    assert fields(lines[2]) == printed(wb.landing.pin_dialect(ns, "semi", "a.csv"))


def test_lineage_upkeep_versions_files_and_tables_are_typed_and_print_as_the_contract(scratch: Scratch, tmp_path):
    wb, ns = scratch.wb, scratch.ns
    fqn = scratch.pipeline("silver", "people", KEYED.format(rows="(1, 'a'), (2, 'b')"))
    down = scratch.pipeline("gold", "people_count", "SELECT count(*) AS n FROM {{ ref('%s') }}" % fqn)
    ran, ran_down = wb.runs.run(f"{fqn}+").runs

    graph = wb.lineage.lineage(fqn)
    assert isinstance(graph, LineageGraph) and graph.edges == [(fqn, down)]
    assert [(n.name, n.kind, n.layer, n.last_status) for n in graph.nodes] == [
        (down, "pipeline", "gold", "success"), (fqn, "pipeline", "silver", "success")]
    assert [n.last_run_at for n in graph.nodes] == [ran_down.finished_at, ran.finished_at]
    assert printed(graph)["edges"] == [[fqn, down]]
    assert list(printed(graph)["nodes"][0]) == ["name", "kind", "layer", "last_status", "last_run_at"]

    found = wb.upkeep.doctor(namespace=ns)
    assert isinstance(found, DoctorReport) and found.findings == [] and printed(found) == {"findings": []}
    planned = wb.upkeep.purge(dry_run=True, namespace=ns)
    assert isinstance(planned, PurgeReport) and planned.dry_run and set(planned.purged.values()) == {0}
    assert list(printed(planned)) == ["purged", "items", "dry_run"]
    assert list(printed(planned)["purged"]) == list(printed(planned)["items"]) == PURGE_KINDS
    assert wb.upkeep.auto_purge(now=0) == AutoPurged(0) and printed(AutoPurged(0)) == {"purged": 0}

    published = wb.versions.publish(fqn, "first")
    assert isinstance(published, Published) and published.version == 1 and list(published.files) == ["pipeline.sql"]
    relpath = f"{ns}/pipelines/silver/people/pipeline.sql"
    written = wb.files.write(relpath, KEYED.format(rows="(3, 'c')"))
    assert written == FileWritten(relpath) and printed(written) == {"path": relpath}
    rolled = wb.versions.rollback(fqn, 1)
    assert rolled == RolledBack(2, 1) and printed(rolled) == {"version": 2, "pinned_from": 1}

    listed = next(t for t in wb.tables.tables().tables if t.name == fqn)
    assert isinstance(listed, TableSummary) and (listed.snapshot_id, listed.rows) == (ran.snapshot_id, 2)
    compacted = wb.tables.compact(fqn)
    assert isinstance(compacted, Compacted) and compacted.rows == 2
    assert list(printed(compacted)) == ["files_before", "files_after", "snapshot_id", "rows"]
    exported = wb.console.export(str(tmp_path / "people.csv"), f"SELECT * FROM {fqn}")
    assert exported == Exported(str(tmp_path / "people.csv"), 2, "csv")
    assert printed(exported) == {"path": str(tmp_path / "people.csv"), "rows": 2, "format": "csv"}

    tables = wb.tables.tables()
    assert isinstance(tables, TableList)
    same_lines(wb, {f"lineage {fqn}": wb.lineage.lineage(fqn), f"doctor --namespace {ns}": wb.upkeep.doctor(namespace=ns),
                    f"purge --dry-run --namespace {ns}": wb.upkeep.purge(dry_run=True, namespace=ns), "tables": tables,
                    f"export {tmp_path / 'people.csv'} SELECT * FROM {fqn}": exported})
    status, lines = script(wb, f"publish {fqn} -m again\nrollback {fqn} 1\nwrite {relpath} <<EOF\nSELECT 1 AS id\nEOF\n"
                               f"compact {fqn}")
    assert status == 0, lines
    assert [list(fields(line)) for line in lines] == [["version", "files", "warning"], ["version", "pinned_from"], ["path"],
                                                      ["files_before", "files_after", "snapshot_id", "rows"]]
    assert (lines[0]["version"], lines[1]["version"], lines[2]["path"]) == (3, 4, relpath)


def test_a_doctor_with_findings_fails_carrying_its_typed_report(scratch: Scratch):
    fqn = scratch.pipeline("silver", "dropped", "SELECT 1 AS id")
    scratch.run(fqn)
    shutil.rmtree(scratch.root / "warehouse" / "silver" / "dropped")  # it ran, but its table is gone
    with pytest.raises(RatError) as failed:
        scratch.wb.upkeep.doctor(namespace=scratch.ns)
    report = failed.value.result
    assert isinstance(report, DoctorReport)
    assert [(f.kind, f.object, f.fixed) for f in report.findings] == [("pipeline_without_table", fqn, False)]
    status, (line,) = script(scratch.wb, f"doctor --namespace {scratch.ns}")
    assert status == 1 and line["ok"] is False and line["findings"] == printed(report)["findings"]
