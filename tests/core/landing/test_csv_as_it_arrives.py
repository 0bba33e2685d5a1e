"""Files shaped like the ones data engineers receive (issue 26): each read right, or one clear refusal.
Every test asserts the table's rows after a success, and the cause in an error's sentence."""
from __future__ import annotations

import gzip

import pytest

from tests.core.landing.zone_runs import ARCHIVING, load_zone, table_columns
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark


def test_a_semicolon_export_reads_as_its_columns(scratch: Scratch):
    scratch.landing("semi", "export.csv", "id;name;amount;day\n"
                    + "".join(f"{i};n{i};{i}.5;2024-01-{i % 28 + 1:02d}\n" for i in range(1, 51)))
    run = load_zone(scratch, "semi")
    assert run["status"] == "success", run["error"]
    assert table_columns(scratch, run["fqn"]) == ["id", "name", "amount", "day"]
    assert scratch.rows(f"SELECT COUNT(*), SUM(id), MAX(amount) FROM {run['fqn']}") == [[50, 1275, 50.5]]


@pytest.mark.parametrize("name, content", [
    ("a.tsv", "id\tname\n1\tx\n2\ty\n"),
    ("a.txt", "id|name\n1|x\n2|y\n"),
    ("a.csv.gz", "id;name\n1;x\n2;y\n"),
])
def test_tab_pipe_and_gzip_files_read_as_their_columns(scratch: Scratch, name: str, content: str):
    path = scratch.root / "landing" / "z" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(content.encode()) if name.endswith(".gz") else content.encode())
    run = load_zone(scratch, "z")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, name, _source_file FROM {run['fqn']} ORDER BY id") == [
        [1, "x", name], [2, "y", name]]


def test_a_tpch_tbl_file_without_header_loses_no_row(scratch: Scratch):
    scratch.landing("tbl", "region.tbl", "0|AFRICA|lar deposits|\n1|AMERICA|hs use ironic|\n2|ASIA|ges. thin|\n")
    run = load_zone(scratch, "tbl")
    assert run["status"] == "success", run["error"]
    assert table_columns(scratch, run["fqn"]) == ["_c0", "_c1", "_c2", "_c3"]
    assert scratch.rows(f"SELECT _c0, _c1 FROM {run['fqn']} ORDER BY _c0") == [[0, "AFRICA"], [1, "AMERICA"], [2, "ASIA"]]


def test_a_file_without_header_gets_the_zone_s_column_names(scratch: Scratch):
    scratch.landing("nohead", "a.csv", "1,x,2.0\n2,y,3.0\n")
    scratch.wb.landing.set_zone_settings(scratch.ns, "nohead", columns=["id", "name", "amount"])
    run = load_zone(scratch, "nohead")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, name, amount FROM {run['fqn']} ORDER BY id") == [[1, "x", 2.0], [2, "y", 3.0]]


def test_a_quoted_value_spanning_lines_reads_whole(scratch: Scratch):
    scratch.landing("ml", "a.csv", 'id,note,amount\n1,"line one\nline two",2.5\n2,"say ""hi""",3\n')
    run = load_zone(scratch, "ml")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, note, amount FROM {run['fqn']} ORDER BY id") == [
        [1, "line one\nline two", 2.5], [2, 'say "hi"', 3.0]]


def test_a_file_that_would_read_as_one_column_is_refused_naming_file_and_setting(scratch: Scratch):
    scratch.landing("pinned", "a.csv", "id;name\n1;x\n")
    scratch.wb.landing.set_zone_settings(scratch.ns, "pinned", csv={"delimiter": ","})
    run = load_zone(scratch, "pinned")
    assert run["status"] == "failed"
    assert ("a.csv would read as one column although its first line holds ';'; set the zone's delimiter in "
            f"rat.yaml (zones: {{{scratch.ns}/pinned: {{csv: {{delimiter: ';'}}}}}})") in run["error"]
    assert not scratch.table_exists("bronze", "p")


def test_files_of_one_zone_with_different_dialects_each_read_with_their_own(scratch: Scratch):
    scratch.landing("mixed", "a.csv", "id,name\n1,x\n")
    scratch.landing("mixed", "b.csv", "id;name\n2;y\n")
    scratch.landing("mixed", "c.tsv", "id\tname\n3\tz\n")
    run = load_zone(scratch, "mixed")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, name, _source_file FROM {run['fqn']} ORDER BY id") == [
        [1, "x", "a.csv"], [2, "y", "b.csv"], [3, "z", "c.tsv"]]


def test_a_column_one_file_keeps_as_text_is_text_in_every_file_of_the_zone(scratch: Scratch):
    """Found by a new user: a.csv's qty held `N/A` (kept as text), the other file's qty was numbers (BIGINT), and
    the run failed casting `N/A` to BIGINT, with a remedy (try_cast) the pipeline could not apply."""
    scratch.landing("qty", "a.csv", "id;qty\n1;N/A\n2;5\n")
    scratch.landing("qty", "b.csv", "id,qty\n3,7\n4,8\n")
    run = load_zone(scratch, "qty")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, qty FROM {run['fqn']} ORDER BY id") == [[1, "N/A"], [2, "5"], [3, "7"], [4, "8"]]
    assert ["qty", "string"] in [row[:2] for row in scratch.rows(f"DESCRIBE TABLE {run['fqn']}")]
    assert any(n.endswith("/landing/qty: qty is text in every file: not every value is int (a.csv holds 'N/A')")
               for n in run["landing_notes"]), run["landing_notes"]

    # An empty column (text to Spark) beside numbers stays numbers, as the union's cast made it before
    scratch.landing("blank", "a.csv", "id;qty\n1;\n2;\n")
    scratch.landing("blank", "b.csv", "id,qty\n3,7\n")
    run = load_zone(scratch, "blank", "blank")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, qty FROM {run['fqn']} ORDER BY id") == [[1, None], [2, None], [3, 7]]


def test_a_us_and_a_european_export_in_one_zone_each_keep_their_numbers(scratch: Scratch):
    """Found by a new user: the comma-separated US file's `1.500` loaded as 1500 because the `;` file beside it
    wrote `12,50`; and a zone of `1.05` and `1.234,50` kept amounts as text, so the pipeline's cast failed. A
    zip code one writer keeps as text (`00789`) is not made 789 by the other writer's numbers."""
    scratch.landing("prices", "us.csv", "sku,price,zip\nA1,1.500,12345\nA2,2.250,23456\n")
    scratch.landing("prices", "eu.csv", "sku;price;zip\nB1;12,50;00789\nB2;1.234,50;01000\n")
    run = load_zone(scratch, "prices")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT sku, price, zip FROM {run['fqn']} ORDER BY sku") == [
        ["A1", "1.500", "12345"], ["A2", "2.250", "23456"], ["B1", "12.5", "00789"], ["B2", "1234.5", "01000"]]
    assert any("us.csv: price kept as text: 1.500, 2.250 may be thousands or decimals" in n
               for n in run["landing_notes"]), run["landing_notes"]

    scratch.landing("sales", "apr.csv", "id,amount\n1,1.05\n2,7.25\n")
    scratch.landing("sales", "feb.csv", "id;amount\n5;1.234,50\n6;12,00\n")
    fqn = scratch.pipeline("silver", "sales", "-- @merge_strategy: full_refresh\nSELECT id, CAST(amount AS "
                                              "DECIMAL(10, 2)) AS amount FROM {{ landing_zone('sales') }}")
    for _ in range(2):  # a rebuild reads every file together again
        run = scratch.run(fqn)
        assert run["status"] == "success", run["error"]
        assert scratch.rows(f"SELECT id, CAST(amount AS STRING) FROM {fqn} ORDER BY id") == [
            [1, "1.05"], [2, "7.25"], [5, "1234.50"], [6, "12.00"]]


def test_a_later_file_that_cannot_tell_its_numbers_reads_them_by_the_files_loaded_before(scratch: Scratch):
    """Found by a new user: nzA.csv (`12,50`) loaded; the next run read only nzB.csv (`1.500`, `2.000`), kept them
    as text and failed on the type change, advising a schema pin; pinned, it loaded 1.5 and 2.0 and said "kept
    as text". The files still in the zone tell its decimal comma; with none, a pinned type is refused."""
    fqn = scratch.pipeline("bronze", "nz", "-- @merge_strategy: append_only\nSELECT * FROM {{ landing_zone('nz') }}")
    scratch.landing("nz", "nzA.csv", "id;amt\n1;12,50\n2;3,10\n")
    assert scratch.run(fqn)["status"] == "success"
    scratch.landing("nz", "nzB.csv", "id;amt\n3;1.500\n4;2.000\n")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, amt FROM {fqn} ORDER BY id") == [[1, 12.5], [2, 3.1], [3, 1500.0], [4, 2000.0]]

    scratch.landing("alone", "b.csv", "id;amt\n3;1.500\n4;2.000\n")
    scratch.wb.landing.set_zone_settings(scratch.ns, "alone", schema={"amt": "double"})
    run = load_zone(scratch, "alone", "alone")
    assert run["status"] == "failed"
    assert run["error"].endswith(f"zone {scratch.ns}/alone: amt is pinned to a number type, but 1.500, 2.000 may be "
                                 "thousands or decimals, and the files show no decimal mark; pin decimal and thousands "
                                 "in the zone's csv settings too"), run["error"]


def test_files_with_different_columns_are_read_by_name_and_the_log_names_the_gap(scratch: Scratch):
    scratch.landing("cols", "jan.csv", "id,name,amount\n1,x,2.5\n")
    scratch.landing("cols", "feb.csv", "name,id\ny,2\n")
    run = load_zone(scratch, "cols")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, name, amount FROM {run['fqn']} ORDER BY id") == [[1, "x", 2.5], [2, "y", None]]
    assert any("feb.csv lacks column(s) amount" in n for n in run["landing_notes"])
    logged = [e.get("message", "") for e in scratch.wb.run_log.read(run["run_id"]) if e["event"] == "LogLine"]
    assert any("feb.csv lacks column(s) amount" in m for m in logged)


def test_a_header_only_file_beside_others_is_said_to_hold_no_row(scratch: Scratch):
    """Found by a new user: a file of its header alone, beside a file that renamed a column, was said to lack
    that column, "NULL in their rows"; it has no rows."""
    scratch.landing("ho", "r3.csv", "id,full_name,amount\n5,Eve,50\n")
    scratch.landing("ho", "header_only.csv", "id,name,amount\n")
    run = load_zone(scratch, "ho")
    assert run["status"] == "success", run["error"]
    assert any(n.endswith(": header_only.csv: only a header, no row loaded") for n in run["landing_notes"])
    assert not [n for n in run["landing_notes"] if "header_only.csv lack" in n], run["landing_notes"]
    assert scratch.rows(f"SELECT id, full_name, amount FROM {run['fqn']}") == [[5, "Eve", 50]]


def test_a_bom_never_becomes_part_of_a_column_name_and_an_encoding_setting_reads_cp1252(scratch: Scratch):
    path = scratch.root / "landing" / "enc" / "a.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes("\ufeffid,name\n1,Müller\n".encode("utf-8"))
    other = path.with_name("b.csv")
    other.write_bytes("id,name\n2,Zoë\n".encode("cp1252"))
    failed = load_zone(scratch, "enc")
    assert failed["status"] == "failed" and "b.csv is not UTF-8 text" in failed["error"]
    assert "encoding: cp1252" in failed["error"]
    other.unlink()
    run = load_zone(scratch, "enc", "p2")
    assert run["status"] == "success", run["error"]
    assert table_columns(scratch, run["fqn"]) == ["id", "name"]
    path.write_bytes("id,name\n2,Zoë\n".encode("cp1252"))
    scratch.wb.landing.set_zone_settings(scratch.ns, "enc", csv={"encoding": "cp1252"})
    run = load_zone(scratch, "enc", "p3")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, name FROM {run['fqn']}") == [[2, "Zoë"]]


def test_a_json_array_reads_as_rows(scratch: Scratch):
    scratch.landing("js", "a.json", '[\n  {"id": 1, "name": "x"},\n  {"id": 2, "name": "y"}\n]\n')
    scratch.landing("js", "b.json", '{"id": 3, "name": "z"}\n')
    run = load_zone(scratch, "js")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, name FROM {run['fqn']} ORDER BY id") == [[1, "x"], [2, "y"], [3, "z"]]


def test_parquet_files_with_different_columns_keep_every_column(scratch: Scratch):
    """Spark reads a set of Parquet files with one file's schema: the column only the second file had was
    dropped, and the run said success."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    zone = scratch.root / "landing" / "pq"
    zone.mkdir(parents=True)
    pq.write_table(pa.table({"id": [1, 2], "v": ["a", "b"]}), zone / "2024_01.parquet")
    pq.write_table(pa.table({"id": [3], "v": ["c"], "extra": ["X"]}), zone / "2024_02.parquet")
    run = load_zone(scratch, "pq")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, v, extra FROM {run['fqn']} ORDER BY id") == [
        [1, "a", None], [2, "b", None], [3, "c", "X"]]


def test_upload_checks_with_the_zone_s_encoding_and_the_run_reads_with_it(scratch: Scratch, tmp_path):
    source = tmp_path / "west.csv"
    source.write_bytes("id;name\n1;Zoë\n2;Müller\n".encode("cp1252"))
    with pytest.raises(Exception) as refused:
        scratch.wb.landing.upload(scratch.ns, "west", [str(source)])
    assert "west.csv is not UTF-8 text" in str(refused.value) and "encoding: cp1252" in str(refused.value)
    scratch.wb.landing.set_zone_settings(scratch.ns, "west", csv={"encoding": "cp1252"})
    assert scratch.wb.landing.upload(scratch.ns, "west", [str(source)]).typed == ["west.csv"]
    assert scratch.wb.landing.sample(scratch.ns, "west").as_dict()["rows"] == [[1, "Zoë"], [2, "Müller"]]
    run = load_zone(scratch, "west")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, name FROM {run['fqn']} ORDER BY id") == [[1, "Zoë"], [2, "Müller"]]


def test_a_file_replaced_during_the_run_with_the_same_size_and_time_is_not_archived(scratch: Scratch):
    import os

    from rat_tui.core.events import PhaseStarted

    path = scratch.landing("swap", "a.csv", "id\n1\n")
    fqn = scratch.pipeline("bronze", "swap", "-- @archive_landing_zones: true\nSELECT id FROM {{ landing_zone('swap') }}")
    done = []

    def replace_with_twin_of_same_size_and_time(event) -> None:
        if isinstance(event, PhaseStarted) and event.phase == "branch_resolution" and not done:
            stat = path.stat()
            other = path.with_name(".b.csv")
            other.write_text("id\n2\n")
            os.utime(other, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # what `cp -p` / `rsync -a` leave
            os.replace(other, path)
            done.append(True)

    unsubscribe = scratch.wb.events.subscribe(replace_with_twin_of_same_size_and_time)
    try:
        run = scratch.run(fqn)
    finally:
        unsubscribe()
    assert run["status"] == "success" and done
    assert path.read_text() == "id\n2\n"  # the unread file stays in the zone for the next run
    assert not (scratch.root / "landing" / "swap" / "_processed" / run["run_id"] / "a.csv").exists()
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[1]]


def test_the_zone_panel_lists_how_each_text_file_is_read_or_why_it_cannot_be(scratch: Scratch):
    from rat_tui.core.commands.details import zone_files

    scratch.landing("shown", "a.csv", "id;name\n1;x\n")
    scratch.landing("shown", "b.tbl", "1|x|\n")
    listed = {f.path: (f.dialect, f.problem) for f in zone_files(scratch.wb.project, scratch.wb.state, scratch.ns, "shown")}
    assert listed == {"a.csv": ("';'-separated, header", None), "b.tbl": ("'|'-separated, no header", None)}
    scratch.wb.landing.set_zone_settings(scratch.ns, "shown", csv={"delimiter": ","})
    problem = {f.path: f.problem for f in zone_files(scratch.wb.project, scratch.wb.state, scratch.ns, "shown")}["a.csv"]
    assert problem.startswith("a.csv would read as one column although its first line holds ';'")


def test_the_zone_panel_shows_the_zones_decimal_comma_and_thousands_mark_on_each_file(scratch: Scratch):
    """Found by a new user: `read as` left out the decimal comma that landing.md says it shows; a file's numbers
    are read by the zone's convention, which `12,50` in one file decides for `1.500` in another."""
    from rat_tui.core.commands.details import zone_files

    scratch.landing("eu", "a.csv", "id;amount\n1;12,50\n2;1.234,56\n")
    scratch.landing("eu", "b.csv", "id;amount\n3;7\n")
    listed = {f.path: f.dialect for f in zone_files(scratch.wb.project, scratch.wb.state, scratch.ns, "eu")}
    assert listed == {name: "';'-separated, header, decimal comma, thousands '.'" for name in ("a.csv", "b.csv")}


def test_files_of_one_zone_whose_dates_were_detected_in_opposite_orders_are_refused(scratch: Scratch):
    """A US export: January's file has 12/25/2024 (month first, no doubt), February's only days up to 12,
    and one more column. Each file was sniffed alone: February's 02/01/2024 became 2024-01-02 beside
    January's 2024-12-25, and the run said success."""
    scratch.landing("us", "jan.csv", "id,day\n1,12/25/2024\n")
    scratch.landing("us", "feb.csv", "id,day,note\n2,02/01/2024,x\n3,02/03/2024,y\n")
    run = load_zone(scratch, "us")
    assert run["status"] == "failed" and run["error"].endswith(
        f"the files of zone {scratch.ns}/us write dates in two orders: feb.csv as dd/MM/yyyy (no day above 12: it "
        f"reads either way), jan.csv as MM/dd/yyyy (jan.csv line 2, column day: 12/25/2024); set the zone's "
        f"date_format in rat.yaml (zones: {{{scratch.ns}/us: {{csv: {{date_format: 'dd/MM/yyyy'}}}}}}, "
        "or 'MM/dd/yyyy')"), run["error"]
    assert not scratch.table_exists("bronze", "p")


def _restarted() -> None:
    """What a restart of the app leaves: no file sniffed yet."""
    from rat_tui.core.landing import dialect

    dialect._by_header.clear()
    dialect._cache.clear()


def _us_zone_loaded(scratch: Scratch) -> str:
    """A zone whose first load was a US export (12/25/2024: month first, no doubt), archived."""
    scratch.landing("us", "jan.csv", "id,day\n1,12/25/2024\n")
    fqn = scratch.pipeline("bronze", "p", ARCHIVING.format("us"))
    assert scratch.run(fqn)["status"] == "success"
    _restarted()
    return fqn


def test_a_later_file_of_a_zone_reads_its_dates_in_the_order_the_zone_s_earlier_loads_had(scratch: Scratch):
    fqn = _us_zone_loaded(scratch)
    scratch.landing("us", "feb.csv", "id,day\n2,02/01/2024\n3,02/03/2024\n")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, CAST(day AS STRING) FROM {fqn} ORDER BY id") == [
        [1, "2024-12-25"], [2, "2024-02-01"], [3, "2024-02-03"]]


def test_the_zone_s_date_order_survives_a_restart_and_pinning_a_later_file_pins_it(scratch: Scratch):
    """A new app over the same project (its state read from disk, nothing sniffed yet) detects a later
    file whose days are all 12 or less month-first, and pin-dialect writes that order into rat.yaml."""
    from rat_tui.core.compose import open_project
    from rat_tui.core.project.settings import load_settings

    _us_zone_loaded(scratch)
    scratch.landing("us", "feb.csv", "id,day\n2,02/01/2024\n3,02/03/2024\n")
    restarted = open_project(scratch.wb.project.root)
    try:
        assert restarted.landing.detected_dialect(scratch.ns, "us", "feb.csv").csv["date_format"] == "MM/dd/yyyy"
        assert restarted.landing.pin_dialect(scratch.ns, "us", "feb.csv").csv["date_format"] == "MM/dd/yyyy"
    finally:
        restarted.open_mark.close()
    settings, _ = load_settings(scratch.wb.project.root)
    assert settings.zones[f"{scratch.ns}/us"]["csv"]["date_format"] == "MM/dd/yyyy"


def test_a_later_file_that_writes_dates_day_first_in_a_month_first_zone_is_refused_naming_where(scratch: Scratch):
    fqn = _us_zone_loaded(scratch)
    scratch.landing("us", "dec.csv", "id,day\n2,02/01/2024\n3,25/12/2024\n")
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert (f"the files of zone {scratch.ns}/us write dates in two orders: the zone's earlier loads as MM/dd/yyyy, "
            "dec.csv as dd/MM/yyyy (dec.csv line 3, column day: 25/12/2024); set the zone's date_format in rat.yaml"
            ) in run["error"], run["error"]
    assert (scratch.root / "landing" / "us" / "dec.csv").exists()
    assert scratch.rows(f"SELECT id, CAST(day AS STRING) FROM {fqn}") == [[1, "2024-12-25"]]


def test_rolled_back_loads_sent_again_read_their_dates_as_they_did(scratch: Scratch):
    """The order is what the source's files showed, and a rollback does not change the source: files sent
    again after a rollback of every dated load read as before (day-first, February's file would refuse
    them, read beside January's)."""
    import shutil

    scratch.landing("us", "zero.csv", "id,day\n0,2024-01-01\n")
    fqn = scratch.pipeline("bronze", "p", ARCHIVING.format("us"))
    before = scratch.run(fqn)
    zone = scratch.root / "landing" / "us"
    runs = {}
    for name, content in (("jan.csv", "id,day\n1,12/25/2024\n"), ("feb.csv", "id,day\n2,02/01/2024\n")):
        scratch.landing("us", name, content)
        _restarted()
        runs[name] = scratch.run(fqn)
        assert runs[name]["status"] == "success", runs[name]["error"]
    scratch.wb.tables.rollback_table(fqn, before["snapshot_id"])
    for name, run in runs.items():
        shutil.copy2(zone / "_processed" / run["run_id"] / name, zone / name)
    _restarted()
    again = scratch.run(fqn)
    assert again["status"] == "success", again["error"]
    assert scratch.rows(f"SELECT id, CAST(day AS STRING) FROM {fqn} ORDER BY id") == [
        [0, "2024-01-01"], [1, "2024-12-25"], [2, "2024-02-01"]]


def test_a_day_first_file_with_the_header_of_a_month_first_one_is_refused_in_the_same_app(scratch: Scratch):
    """Files that start with the same header reuse the first one's dialect, dates included: in the app that
    loaded January's and February's US files, December's 25/12/2024 was read month-first (no date)."""
    scratch.landing("us", "jan.csv", "id,day\n1,12/25/2024\n")
    fqn = scratch.pipeline("bronze", "p", ARCHIVING.format("us"))
    assert scratch.run(fqn)["status"] == "success"
    scratch.landing("us", "feb.csv", "id,day\n4,02/01/2024\n")
    assert scratch.run(fqn)["status"] == "success"
    scratch.landing("us", "dec.csv", "id,day\n2,02/01/2024\n3,25/12/2024\n")
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert "the zone's earlier loads as MM/dd/yyyy, dec.csv as dd/MM/yyyy (dec.csv line 3, column day: " \
           "25/12/2024); set" in run["error"], run["error"]
    assert scratch.rows(f"SELECT id, CAST(day AS STRING) FROM {fqn} ORDER BY id") == [
        [1, "2024-12-25"], [4, "2024-02-01"]]


def test_zones_with_the_same_header_read_their_dates_each_its_own_way(scratch: Scratch):
    """The header-line cache was shared by every zone: a European zone's first file with the header of a
    US zone's file read its 02/01/2024 as February."""
    scratch.landing("us", "jan.csv", "id,day\n1,12/25/2024\n")
    us = load_zone(scratch, "us", "us")
    assert us["status"] == "success", us["error"]
    scratch.landing("eu", "jan.csv", "id,day\n1,25/12/2024\n2,02/01/2024\n")
    eu = load_zone(scratch, "eu", "eu")
    assert eu["status"] == "success", eu["error"]
    assert scratch.rows(f"SELECT id, CAST(day AS STRING) FROM {eu['fqn']} ORDER BY id") == [
        [1, "2024-12-25"], [2, "2024-01-02"]]


def test_a_first_file_whose_dates_read_either_way_says_how_it_read_them(scratch: Scratch):
    """Found by a new user: 01/02/2024, 03/04/2024 and 12/11/2024 loaded as 1 February, 3 April and 12 November
    with no word; only a later 12/25/2024 was refused, with the rows already on main. The first load now says
    the order it took and the setting for the other; a file with a day above 12 proves its order and says
    nothing, nor does a zone whose earlier loads settled it."""
    scratch.landing("ambig", "ship.csv", "id,shipped\n1,01/02/2024\n2,03/04/2024\n3,12/11/2024\n")
    run = load_zone(scratch, "ambig")
    assert run["status"] == "success", run["error"]
    either = [{k: n[k] for k in ("file", "line", "text")} for n in run["notes"] if n["kind"] == "dates_either_way"]
    assert either == [{"file": f"{scratch.ns}/landing/ambig/ship.csv", "line": 2, "text": (
        "ship.csv: its shipped dates read either way (01/02/2024 on line 2): read as dd/MM/yyyy, so 01/02/2024 "
        f"is 2024-02-01; if they are month first, set the zone's date_format in rat.yaml (zones: {{{scratch.ns}/"
        "ambig: {csv: {date_format: 'MM/dd/yyyy'}}})")}], run["notes"]
    assert scratch.rows(f"SELECT id, CAST(shipped AS STRING) FROM {run['fqn']} ORDER BY id") == [
        [1, "2024-02-01"], [2, "2024-04-03"], [3, "2024-11-12"]]
    scratch.landing("proven", "ship.csv", "id,shipped\n1,01/02/2024\n2,25/04/2024\n")
    assert not [n for n in load_zone(scratch, "proven", "q")["notes"] if n["kind"] == "dates_either_way"]
    # a file of the same load that proves the order settles it for its neighbour whose dates read either way
    scratch.landing("pair", "a.csv", "id,shipped\n1,31/01/2024\n")
    scratch.landing("pair", "b.csv", "id,shipped\n2,03/02/2024\n")
    run = load_zone(scratch, "pair", "r")
    assert run["status"] == "success" and not [n for n in run["notes"] if n["kind"] == "dates_either_way"], run["notes"]
    fqn = _us_zone_loaded(scratch)  # month first, settled by its first load
    scratch.landing("us", "feb.csv", "id,day\n2,02/01/2024\n3,02/03/2024\n")
    run = scratch.run(fqn)
    assert run["status"] == "success" and not [n for n in run["notes"] if n["kind"] == "dates_either_way"]
