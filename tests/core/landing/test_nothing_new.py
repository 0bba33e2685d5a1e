"""Nothing new in a zone is the commonest state of an archiving pipeline, and a success (issue 26);
a file already loaded is loaded once, unless a run asks to reload it."""
from __future__ import annotations

import os
import shutil
import time

import pytest

from tests.helpers import archiving_raw_orders, script
from tests.lakehelpers import Scratch, copy_sample_namespace

pytestmark = pytest.mark.spark

ARCHIVING = "-- @merge_strategy: append_only\n-- @archive_landing_zones: true\nSELECT * FROM {{ landing_zone('drops') }}"


def test_a_second_run_with_nothing_new_succeeds_and_leaves_table_and_main_as_they_were(scratch: Scratch):
    copy_sample_namespace(scratch)
    fqn = f"{scratch.ns}.bronze.raw_orders"
    first = scratch.run(fqn)
    assert first["status"] == "success" and first["rows_written"] == 300
    snapshots = scratch.wb.tables.snapshots(fqn)
    second = scratch.run(fqn)
    assert second["status"] == "success", second["error"]
    assert second["rows_written"] == 0 and second["note"] == f"nothing new in {scratch.ns}/landing/orders"
    assert second["snapshot_id"] == first["snapshot_id"]
    assert scratch.wb.tables.snapshots(fqn) == snapshots  # no new snapshot
    assert scratch.rows(f"SELECT COUNT(*) FROM {fqn}") == [[300]]
    finished = [e for e in scratch.wb.run_log.read(second["run_id"]) if e["event"] == "PhaseFinished"]
    assert {e["phase"]: e["message"] for e in finished}["iceberg_write"] == second["note"]


def test_a_full_refresh_table_is_never_emptied_by_an_empty_zone(scratch: Scratch):
    scratch.landing("drops", "a.csv", "id,v\n1,x\n2,y\n")
    scratch.landing("drops", "_samples/a_sample.csv", "id,v\n1,x\n")
    fqn = scratch.pipeline("bronze", "full", "SELECT * FROM {{ landing_zone('drops') }}")
    assert scratch.run(fqn)["status"] == "success"
    (scratch.root / "landing" / "drops" / "a.csv").unlink()
    run = scratch.run(fqn)
    assert run["status"] == "success" and run["note"] == f"nothing new in {scratch.ns}/landing/drops"
    assert scratch.rows(f"SELECT id, v FROM {fqn} ORDER BY id") == [[1, "x"], [2, "y"]]


def test_nothing_new_in_a_zone_without_samples_succeeds_too(scratch: Scratch):
    """Files dropped into the folder (not uploaded) leave no _samples/: nothing tells the zone's columns,
    and nothing needs them, since the run writes nothing."""
    scratch.landing("drops", "a.csv", "id,v\n1,x\n")
    fqn = scratch.pipeline("bronze", "bare", ARCHIVING)
    assert scratch.run(fqn)["status"] == "success"
    run = scratch.run(fqn)
    assert run["status"] == "success" and run["note"] == f"nothing new in {scratch.ns}/landing/drops", run["error"]
    assert scratch.rows(f"SELECT id, v FROM {fqn}") == [[1, "x"]]


def test_a_pipeline_that_never_loaded_and_finds_no_files_says_so(scratch: Scratch):
    (scratch.root / "landing" / "drops").mkdir(parents=True)
    fqn = scratch.pipeline("bronze", "never", ARCHIVING)
    run = scratch.run(fqn)
    assert run["status"] == "failed" and run["error"].endswith(f"pipeline.sql:3: {scratch.ns}/landing/drops has no files yet")


def test_build_then_build_on_the_sample_both_succeed(scratch: Scratch):
    copy_sample_namespace(scratch)
    first = scratch.wb.runs.build([scratch.ns]).as_dict()
    assert all(r["status"] == "success" for r in first["runs"]), first
    second = scratch.wb.runs.build([scratch.ns]).as_dict()
    assert all(r["status"] == "success" for r in second["runs"]), second
    raw = next(r for r in second["runs"] if r["pipeline"].endswith("bronze.raw_orders"))
    assert raw["rows_written"] == 0 and raw["note"] == f"nothing new in {scratch.ns}/landing/orders"
    assert scratch.rows(f"SELECT COUNT(*) FROM {scratch.ns}.bronze.raw_orders") == [[300]]


def test_preview_of_a_pipeline_whose_zone_holds_nothing_new_reads_its_samples(scratch: Scratch):
    copy_sample_namespace(scratch)
    archiving_raw_orders(scratch.root)  # the zone is emptied by the run
    fqn = f"{scratch.ns}.bronze.raw_orders"
    assert scratch.run(fqn)["status"] == "success"
    preview = scratch.wb.console.preview(fqn, limit=5).as_dict()
    assert len(preview["rows"]) == 5 and "order_id" in preview["columns"]
    assert preview["note"] == f"{scratch.ns}/landing/orders holds nothing new: read its _samples/"


def test_an_archived_file_dropped_back_is_skipped_archived_again_and_reloaded_only_when_asked(scratch: Scratch):
    copy_sample_namespace(scratch)
    archiving_raw_orders(scratch.root)
    fqn = f"{scratch.ns}.bronze.raw_orders"
    zone = scratch.root / "landing" / "orders"
    first = scratch.run(fqn)
    assert first["rows_written"] == 300
    archived = zone / "_processed" / first["run_id"] / "orders_2024_01.csv"
    shutil.copy2(archived, zone / "orders_2024_01.csv")  # what `cp -p` from the archive leaves
    second = scratch.run(fqn)
    day = time.strftime("%Y-%m-%d", time.localtime())
    assert second["status"] == "success", second["error"]
    assert second["skipped"] == [f"skipped orders_2024_01.csv: loaded by run {first['run_id']} on {day}"]
    assert second["rows_written"] == 0 and scratch.rows(f"SELECT COUNT(*) FROM {fqn}") == [[300]]
    assert not (zone / "orders_2024_01.csv").exists()
    assert (zone / "_processed" / second["run_id"] / "orders_2024_01.csv").exists()  # archived again
    logged = [e.get("message", "") for e in scratch.wb.run_log.read(second["run_id"]) if e["event"] == "LogLine"]
    assert second["skipped"][0] in logged
    # renamed, the same content is still the same file to the load history
    shutil.copy2(archived, zone / "january_again.csv")
    assert scratch.run(fqn)["skipped"][0].startswith("skipped january_again.csv: loaded by run")
    shutil.copy2(archived, zone / "orders_2024_01.csv")
    status, results = script(scratch.wb, f"run {fqn} --reload-files\n")
    assert status == 0 and results[0]["run"]["rows_written"] == 100
    assert scratch.rows(f"SELECT COUNT(*) FROM {fqn}") == [[400]]


def test_a_file_replaced_with_the_same_size_and_time_is_read_anew_not_through_its_old_twin(
        scratch: Scratch, tmp_path):
    source = tmp_path / "a.csv"
    source.write_text("id,v\n1,x\n")
    scratch.wb.landing.upload(scratch.ns, "swap", [str(source)])
    zone_file = scratch.root / "landing" / "swap" / "a.csv"
    stat = zone_file.stat()
    replacement = tmp_path / "b.csv"
    replacement.write_text("id,v\n2,y\n")  # same size
    os.utime(replacement, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and same time, as `rsync -a` leaves it
    os.replace(replacement, zone_file)
    fqn = scratch.pipeline("bronze", "swap", "SELECT id, v FROM {{ landing_zone('swap') }}")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, v FROM {fqn}") == [[2, "y"]]


def test_upload_after_every_file_was_archived_checks_the_columns_the_last_load_had(scratch: Scratch, tmp_path):
    scratch.landing("drops", "jan.csv", "id,amount,day\n1,2.5,2024-01-01\n")
    scratch.landing("drops", "feb.csv", "id,amount,day,extra\n2,3.5,2024-02-01,x\n")
    fqn = scratch.pipeline("bronze", "sums", ARCHIVING.replace("SELECT *", "SELECT id, amount, day"))
    (tmp_path / "mar.csv").write_text("id,day\n3,2024-03-01\n")
    (tmp_path / "apr.csv").write_text("id,day,amount\n4,2024-04-01,1.0\n")
    status, results = script(scratch.wb, f"run {fqn}\nupload {scratch.ns} drops {tmp_path / 'mar.csv'}\n")
    run_id = results[0]["run"]["run_id"]
    assert status == 1 and results[0]["ok"] and not results[1]["ok"]
    assert results[1]["error"] == (
        f"mar.csv lacks column(s) the files run {run_id} loaded last from the zone had: amount (it has id, day); "
        f"set the zone's schema: in rat.yaml to the columns it takes now (zones.{scratch.ns}/drops.schema)")
    assert not (scratch.root / "landing" / "drops" / "mar.csv").exists()
    # in another order, with the columns it had: accepted, and the run reads it
    status, results = script(scratch.wb, f"upload {scratch.ns} drops {tmp_path / 'apr.csv'}\nrun {fqn}\n")
    assert status == 0, results
    assert scratch.rows(f"SELECT id, amount FROM {fqn} ORDER BY id") == [[1, 2.5], [2, 3.5], [4, 1.0]]


def test_a_file_whose_load_was_rolled_back_loads_again_when_it_is_sent_again(scratch: Scratch):
    """A rollback past the run that loaded a file takes its rows out of main: the file sent again is new
    to the table, not a file to skip (which left a success and a table without its rows). Rolled
    forward again, that run's loads count again."""
    zone = scratch.root / "landing" / "drops"
    scratch.landing("drops", "jan.csv", "id,v\n1,x\n")
    fqn = scratch.pipeline("bronze", "orders", ARCHIVING)
    first = scratch.run(fqn)
    scratch.landing("drops", "feb.csv", "id,v\n2,y\n")
    second = scratch.run(fqn)
    assert second["status"] == "success" and second["rows_written"] == 1
    scratch.wb.tables.rollback_table(fqn, first["snapshot_id"])
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[1]]
    shutil.copy2(zone / "_processed" / second["run_id"] / "feb.csv", zone / "feb.csv")  # sent again
    again = scratch.run(fqn)
    assert again["status"] == "success" and again["rows_written"] == 1 and "skipped" not in again, again
    assert scratch.rows(f"SELECT id, v FROM {fqn} ORDER BY id") == [[1, "x"], [2, "y"]]
    # back to the state after the second run (its rows are on main again): its loads count again
    scratch.wb.tables.rollback_table(fqn, second["snapshot_id"])
    shutil.copy2(zone / "_processed" / second["run_id"] / "feb.csv", zone / "feb.csv")
    skipped = scratch.run(fqn)
    assert skipped["status"] == "success" and skipped["rows_written"] == 0
    assert skipped["skipped"][0].startswith("skipped feb.csv: loaded by run")
    assert scratch.rows(f"SELECT id, v FROM {fqn} ORDER BY id") == [[1, "x"], [2, "y"]]


def test_the_same_content_under_two_names_in_one_batch_loads_once_as_in_two_runs(scratch: Scratch):
    """A copy under another name sent after the file's run is skipped; sent with it, it was loaded too
    (twice the rows): the table depended on when the copy arrived."""
    zone = scratch.root / "landing" / "drops"
    scratch.landing("drops", "orders.csv", "id,v\n1,x\n2,y\n")
    copy = scratch.landing("drops", "orders (1).csv", "id,v\n1,x\n2,y\n")  # what a browser names a second download
    os.utime(copy, (time.time() + 60, time.time() + 60))  # sent after orders.csv
    fqn = scratch.pipeline("bronze", "orders", ARCHIVING)
    run = scratch.run(fqn)
    assert run["status"] == "success" and run["rows_written"] == 2, run
    assert run["skipped"] == [f"skipped orders (1).csv: same content as {scratch.ns}/landing/drops/orders.csv, "
                              "loaded by this run"]
    assert scratch.rows(f"SELECT id, v FROM {fqn} ORDER BY id") == [[1, "x"], [2, "y"]]
    assert sorted(p.name for p in (zone / "_processed" / run["run_id"]).iterdir()) == ["orders (1).csv", "orders.csv"]


def test_a_header_only_first_file_does_not_fix_the_table_s_types(scratch: Scratch):
    """The day's first export often has no rows yet: `id,v` and nothing else. Its load created the table
    with every column a string (nothing to infer from), and the first real file failed 'column id
    changes type from string to int'. A table no reader sees a row of is rebuilt with the new types."""
    fqn = scratch.pipeline("bronze", "daily", ARCHIVING)
    scratch.landing("drops", "monday.csv", "id,v\n")
    assert scratch.run(fqn)["status"] == "success"
    scratch.landing("drops", "tuesday.csv", "id,v\n1,x\n")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.wb.console.query(f"SELECT typeof(id), v FROM {fqn}").as_dict()["rows"] == [["int", "x"]]


APPENDING = "-- @merge_strategy: append_only\nSELECT * FROM {{ landing_zone('drops') }}"


def test_an_append_only_pipeline_whose_zone_keeps_its_files_appends_each_file_once(scratch: Scratch):
    """Without archiving the zone keeps every file: a second run appended them all again, and said success
    (the sample's raw_events doubled on every build)."""
    scratch.landing("drops", "jan.csv", "id,v\n1,x\n2,y\n")
    fqn = scratch.pipeline("bronze", "events", APPENDING)
    first = scratch.run(fqn)
    assert first["status"] == "success" and first["rows_written"] == 2
    again = scratch.run(fqn)
    assert again["status"] == "success" and again["rows_written"] == 0, again
    assert again["note"] == f"nothing new in {scratch.ns}/landing/drops"
    assert again["skipped"] == [f"not read again: 1 file(s) of {scratch.ns}/landing/drops loaded by earlier runs"]
    scratch.landing("drops", "feb.csv", "id,v\n3,z\n")
    scratch.landing("drops", "jan (1).csv", "id,v\n1,x\n2,y\n")  # jan sent twice, under another name
    third = scratch.run(fqn)
    assert third["status"] == "success" and third["rows_written"] == 1, third
    assert third["skipped"] == [  # the copy under another name is news, said alone (a new user missed it)
        f"skipped jan (1).csv: loaded by run {first['run_id']} on {time.strftime('%Y-%m-%d')} "
        f"(as {scratch.ns}/landing/drops/jan.csv)",
        f"not read again: 1 file(s) of {scratch.ns}/landing/drops loaded by earlier runs"]
    assert scratch.rows(f"SELECT id, v FROM {fqn} ORDER BY id") == [[1, "x"], [2, "y"], [3, "z"]]
    assert sorted(p.name for p in (scratch.root / "landing" / "drops").iterdir() if p.is_file()) == [
        "feb.csv", "jan (1).csv", "jan.csv"]  # nothing archived
    refreshed = scratch.run(fqn, full_refresh=True)  # every file in the zone, each content once
    assert refreshed["status"] == "success", refreshed["error"]
    assert scratch.rows(f"SELECT id, v FROM {fqn} ORDER BY id") == [[1, "x"], [2, "y"], [3, "z"]]


def test_an_append_only_run_rolled_back_reads_its_files_again(scratch: Scratch):
    scratch.landing("drops", "jan.csv", "id,v\n1,x\n")
    fqn = scratch.pipeline("bronze", "events", APPENDING)
    first = scratch.run(fqn)
    scratch.landing("drops", "feb.csv", "id,v\n2,y\n")
    assert scratch.run(fqn)["rows_written"] == 1
    scratch.wb.tables.rollback_table(fqn, first["snapshot_id"])
    again = scratch.run(fqn)
    assert again["status"] == "success" and again["rows_written"] == 1, again
    assert scratch.rows(f"SELECT id, v FROM {fqn} ORDER BY id") == [[1, "x"], [2, "y"]]


def test_a_file_corrected_in_place_is_refused_by_an_append_only_pipeline_and_a_full_refresh_takes_it(
        scratch: Scratch):
    """A partner appended a row to a file already loaded: the run appended the whole file again (order 1
    twice), green. Now it is refused before anything is written, naming the file and both ways out."""
    path = scratch.landing("drops", "may.csv", "id,v\n1,x\n")
    fqn = scratch.pipeline("bronze", "events", APPENDING)
    first = scratch.run(fqn)
    assert first["status"] == "success" and first["rows_written"] == 1
    with open(path, "a") as fh:
        fh.write("2,y\n")
    changed = scratch.run(fqn)
    assert changed["status"] == "failed"
    assert (f"{scratch.ns}/landing/drops/may.csv changed since run {first['run_id']} loaded it on" in changed["error"]
            and "its earlier rows would be in the table twice" in changed["error"]
            and f"rat-tui run {fqn} --full-refresh" in changed["error"]), changed["error"]
    assert scratch.rows(f"SELECT id, v FROM {fqn} ORDER BY id") == [[1, "x"]]
    refreshed = scratch.run(fqn, full_refresh=True)
    assert refreshed["status"] == "success", refreshed["error"]
    assert scratch.rows(f"SELECT id, v FROM {fqn} ORDER BY id") == [[1, "x"], [2, "y"]]
    scratch.landing("drops", "june.csv", "id,v\n3,z\n")  # after the rebuild, new files append as before
    assert scratch.run(fqn)["rows_written"] == 1
    assert scratch.rows(f"SELECT id FROM {fqn} ORDER BY id") == [[1], [2], [3]]


def test_an_archiving_append_only_pipeline_loads_a_file_under_an_archived_name_and_says_how_to_undo_a_resend(
        scratch: Scratch):
    """Found by a new user: a corrected `may.csv` sent to a zone that archives was appended in full, ids twice, with
    nothing said (a zone that keeps its files refuses it). A daily file of one name is as likely: loaded, and said
    with the way back."""
    scratch.landing("drops", "may.csv", "id,v\n1,x\n")
    fqn = scratch.pipeline("bronze", "events", ARCHIVING)
    first = scratch.run(fqn)
    assert first["status"] == "success" and first["notes"] == [], first
    scratch.landing("drops", "may.csv", "id,v\n1,x\n2,y\n")
    scratch.landing("drops", "june.csv", "id,v\n3,z\n")
    again = scratch.run(fqn)
    assert again["status"] == "success" and again["rows_written"] == 3, again
    resent = [n for n in again["notes"] if n["kind"] == "resent_files"]
    assert [(n["file"], n["text"]) for n in resent] == [(
        f"{scratch.ns}/landing/drops/may.csv",
        f"may.csv has the name of a file run {first['run_id']} loaded on {time.strftime('%Y-%m-%d')} (archived in "
        f"{scratch.ns}/landing/drops/_processed/), with other content: its rows were appended. If it is a corrected "
        f"re-send, every row it repeats is now in {fqn} twice, which appending cannot mend. To take the correction: "
        f"roll the table back past this run (t in the TUI, or rat-tui rollback-table {fqn} with the snapshot before "
        "it, as rat-tui snapshots lists them); make the pipeline @merge_strategy: incremental with a @unique_key, "
        "whose change takes a --full-refresh (it reads only the zone's files: move the archived ones back first); "
        "then send the corrected file again: its rows replace their earlier versions")]
    assert scratch.rows(f"SELECT id, v FROM {fqn} ORDER BY id") == [[1, "x"], [1, "x"], [2, "y"], [3, "z"]]
    scratch.wb.tables.rollback_table(fqn, first["snapshot_id"])  # the way back the note gives
    assert scratch.rows(f"SELECT id, v FROM {fqn} ORDER BY id") == [[1, "x"]]


def test_a_run_with_nothing_new_after_a_zone_s_settings_changed_says_the_files_are_not_read_again(scratch: Scratch):
    """Found by a new user: `null_values: [N/A]` set for a zone already loaded, the run said only "nothing new"."""
    scratch.landing("drops", "a.csv", "id,qty\n1,3\n2,N/A\n")
    fqn = scratch.pipeline("bronze", "events", APPENDING)
    first = scratch.run(fqn)
    assert first["status"] == "success" and scratch.rows(f"SELECT DISTINCT typeof(qty) FROM {fqn}") == [["string"]]
    scratch.wb.landing.set_zone_settings(scratch.ns, "drops", csv={"null_values": ["N/A"]})
    run = scratch.run(fqn)
    assert run["status"] == "success" and run["rows_written"] == 0, run
    said = [n["text"] for n in run["notes"] if n["kind"] == "settings_changed"]
    assert said == [f"rat.yaml's csv.null_values for {scratch.ns}/landing/drops changed since run {first['run_id']} "
                    "loaded its files, which are not read again: to read them as the settings say now, rebuild the "
                    f"table with a full refresh (rat-tui run {fqn} --full-refresh)"], run["notes"]
    assert scratch.run(fqn, full_refresh=True)["status"] == "success"  # the way out it gives
    assert scratch.rows(f"SELECT id, qty FROM {fqn} ORDER BY id") == [[1, 3], [2, None]]
    assert [n for n in scratch.run(fqn)["notes"] if n["kind"] == "settings_changed"] == []  # read as they say now


def test_a_run_with_nothing_new_notes_nothing_of_the_samples_it_read_for_the_columns(scratch: Scratch):
    """Found by a new user: a run with nothing new noted `f1_sample.csv read as UTF-8 …` and the zone's number
    format, of the _samples/ it read for the columns (files the user never made) and no row it loaded."""
    scratch.landing("drops", "a.csv", "\ufeffid;price\n1;1.234,56\n2;7,5\n")
    scratch.landing("drops", "_samples/a_sample.csv", "\ufeffid;price\n1;1.234,56\n")
    fqn = scratch.pipeline("bronze", "quiet", "-- @merge_strategy: append_only\nSELECT * FROM {{ landing_zone('drops') }}")
    first = scratch.run(fqn)
    assert first["status"] == "success" and first["notes"], first  # how the file was read is news then
    run = scratch.run(fqn)
    assert run["status"] == "success" and run["rows_written"] == 0, run["error"]
    assert [(n["kind"], n["text"]) for n in run["notes"]] == [
        ("skipped_files", f"not read again: 1 file(s) of {scratch.ns}/landing/drops loaded by earlier runs"),
        ("nothing_new", f"nothing new in {scratch.ns}/landing/drops")]
