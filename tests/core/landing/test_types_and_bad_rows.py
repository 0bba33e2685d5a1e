"""Types that never fail a load a full pass would take, pinned types, quarantined rows and read errors
that say their cause (issue 26)."""
from __future__ import annotations

import json

import pytest

from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark

SQL = "SELECT * FROM {{{{ landing_zone('{}') }}}}"


def test_integers_then_a_decimal_and_na_past_the_sample_widen_the_column_and_say_why(scratch: Scratch):
    rows = "".join(f"{i},{i}\n" for i in range(400_000))
    scratch.landing("late", "a.csv", "id,amount\n" + rows + "400000,12.5\n400001,N/A\n")
    fqn = scratch.pipeline("bronze", "late", SQL.format("late"))
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT COUNT(*), MAX(id) FROM {fqn}") == [[400_002, 400_001]]
    assert scratch.rows(f"SELECT amount FROM {fqn} WHERE id >= 400000 ORDER BY id") == [["12.5"], ["N/A"]]
    note = f"{scratch.ns}/landing/late: widened amount: int in the sample; '12.5' at a.csv line 400,002 → string"
    assert note in run["landing_notes"]
    logged = [e.get("message", "") for e in scratch.wb.run_log.read(run["run_id"]) if e["event"] == "LogLine"]
    assert any(note in m for m in logged)


def test_a_pinned_type_is_used_and_a_value_that_does_not_fit_it_fails_naming_file_line_column_value(scratch: Scratch):
    scratch.landing("pin", "a.csv", "id,amount\n1,2.50\n2,3.25\n")
    scratch.wb.landing.set_zone_settings(scratch.ns, "pin", schema={"amount": "decimal(12,2)"})
    fqn = scratch.pipeline("bronze", "pin", SQL.format("pin"))
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, amount FROM {fqn} ORDER BY id") == [[1, "2.50"], [2, "3.25"]]
    assert scratch.wb.console.query(f"SELECT typeof(amount) FROM {fqn} LIMIT 1").as_dict()["rows"] == [["decimal(12,2)"]]
    scratch.landing("pin", "a.csv", "id,amount\n1,2.50\n2,abc\n")
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert (f"a.csv line 3: amount 'abc' does not fit the type decimal(12,2) the zone pins (rat.yaml "
            f"zones.{scratch.ns}/pin.schema)") in run["error"]
    assert scratch.rows(f"SELECT id, amount FROM {fqn} ORDER BY id") == [[1, "2.50"], [2, "3.25"]]


@pytest.mark.parametrize("decimal", [".", ","])
def test_a_value_with_more_decimal_places_than_the_pinned_decimal_fails_instead_of_rounding(scratch: Scratch,
                                                                                            decimal: str):
    """Found by a new user: `10.005` in a column pinned decimal(18,2) loaded as 10.01, green, without a word, where
    the docs promise a refusal naming file, line, column and value (a decimal-comma zone's `10,005` too)."""
    zone = f"round{'comma' if decimal == ',' else 'point'}"
    mark = lambda v: v.replace(".", decimal)  # noqa: E731
    scratch.landing(zone, "a.csv", f"id;amount\n1;{mark('19.90')}\n2;{mark('0.10')}\n")
    scratch.wb.landing.set_zone_settings(scratch.ns, zone, schema={"amount": "decimal(18,2)"},
                                         csv={"delimiter": ";", "decimal": decimal})
    fqn = scratch.pipeline("bronze", zone, SQL.format(zone))
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, CAST(amount AS STRING) FROM {fqn} ORDER BY id") == [[1, "19.90"], [2, "0.10"]]
    scratch.landing(zone, "b.csv", f"id;amount\n3;{mark('7.5')}\n4;{mark('10.005')}\n")
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert (f"b.csv line 3: amount {mark('10.005')!r} has more decimal places than the type decimal(18,2) the zone "
            f"pins (rat.yaml zones.{scratch.ns}/{zone}.schema) holds, and would be stored as 10.01; fix the file, or "
            "pin a decimal with the places it needs (decimal(19,3))") in run["error"], run["error"]
    assert scratch.rows(f"SELECT id, CAST(amount AS STRING) FROM {fqn} ORDER BY id") == [[1, "19.90"], [2, "0.10"]]


def test_a_pinned_decimal_whose_files_write_numbers_two_ways_is_refused_not_misread(scratch: Scratch):
    """Found by a new user: `1.234,56` and `12,50` in one file, `12.50` and `7.125` in a later one, the column
    pinned decimal(18,2): the zone could not tell the decimal mark, said the pinned column was "kept as text",
    and the table held 1.23 and 1250.00 (Spark's parser read the commas as grouping)."""
    scratch.landing("twoways", "e1.csv", "id;betrag\n1;1.234,56\n2;12,50\n")
    scratch.wb.landing.set_zone_settings(scratch.ns, "twoways", schema={"betrag": "decimal(18,2)"})
    fqn = scratch.pipeline("bronze", "twoways", SQL.format("twoways"))
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT CAST(betrag AS STRING) FROM {fqn} ORDER BY id") == [["1234.56"], ["12.50"]]
    scratch.landing("twoways", "e3.csv", "id;betrag\n3;12.50\n4;7.125\n")
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert (f"zone {scratch.ns}/twoways: betrag is pinned to a number type, but its numbers are written in more than "
            "one way (1.234,56, 7.125); fix the files, or pin decimal and thousands in the zone's csv settings") \
        in run["error"], run["error"]
    assert scratch.rows(f"SELECT CAST(betrag AS STRING) FROM {fqn} ORDER BY id") == [["1234.56"], ["12.50"]]


def test_quarantine_sets_rows_that_do_not_parse_aside_with_file_and_line(scratch: Scratch):
    scratch.landing("q", "a.csv", "id,name\n1,a\n2\n3,c\n4,d,extra\n")
    scratch.wb.landing.set_zone_settings(scratch.ns, "q", bad_rows="quarantine")
    fqn = scratch.pipeline("bronze", "q", SQL.format("q"))
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, name FROM {fqn} ORDER BY id") == [[1, "a"], [3, "c"]]
    assert run.get("rejected_rows") == 2, run
    rejected = scratch.root / "landing" / "q" / "_rejected" / run["run_id"] / "rejected.jsonl"
    assert [json.loads(line) for line in rejected.read_text().splitlines()] == [
        {"file": "a.csv", "line": 3, "record": "2"}, {"file": "a.csv", "line": 5, "record": "4,d,extra"}]
    assert any("2 row(s) of a.csv did not parse and were set aside" in n for n in run["landing_notes"])


def test_quarantine_never_rejects_a_row_a_full_pass_would_read(scratch: Scratch, monkeypatch):
    from rat_tui.core.landing import schema as sampling

    monkeypatch.setattr(sampling, "SAMPLE_BYTES_PER_FILE", 64)
    scratch.landing("qw", "a.csv", "id,amount\n" + "".join(f"{i},{i}\n" for i in range(40)) + "40,N/A\n")
    scratch.wb.landing.set_zone_settings(scratch.ns, "qw", bad_rows="quarantine")
    fqn = scratch.pipeline("bronze", "qw", SQL.format("qw"))
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert run.get("rejected_rows", 0) == 0
    assert scratch.rows(f"SELECT amount FROM {fqn} WHERE id = 40") == [["N/A"]]


def test_a_malformed_csv_fails_with_its_cause_file_and_line(scratch: Scratch):
    scratch.landing("bad", "region.csv", "id,name\n1,a\n2,b\n3,c,extra\n")
    fqn = scratch.pipeline("bronze", "bad", SQL.format("bad"))
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert "region.csv line 4 is not a well-formed record of 2 column(s) ('3,c,extra')" in run["error"]
    assert "bad_rows: quarantine" in run["error"] and len(run["error"].splitlines()) == 1
    # the first records are checked before Spark reads (a five-line file took 11-28 s of Spark's read, full pass
    # and read again); one further down is Spark's to find, with the same sentence
    rows = "".join(f"{i},n{i}\n" for i in range(3000))
    scratch.landing("late", "region.csv", "id,name\n" + rows + "3000,c,extra\n")
    run = scratch.run(scratch.pipeline("bronze", "late", SQL.format("late")))
    assert run["status"] == "failed"
    assert "region.csv line 3,002 is not a well-formed record of 2 column(s) ('3000,c,extra')" in run["error"]


def test_a_quoted_value_spanning_lines_past_the_detected_part_names_file_line_and_the_multiline_setting(
        scratch: Scratch):
    """Whether quoted values span lines is read from a file's first 256 KB. One that does further on was
    read line by line and failed: "a record of landing zone … is malformed ('line\"')", no file, no line,
    no way out."""
    rows = "".join(f"{i},note {i}\n" for i in range(30_000))  # about 400 KB
    scratch.landing("late", "a.csv", "id,note\n" + rows + '99999,"multi\nline"\n100000,last\n')
    fqn = scratch.pipeline("bronze", "late", SQL.format("late"))
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert run["error"].endswith(
        "a.csv line 30,003 ('line\"') ends a quoted value begun on an earlier line: quoted values span "
        "lines past the part of the file read to detect it; set multiline: true in the zone's csv settings "
        f"(zones: {{{scratch.ns}/late: {{csv: {{multiline: true}}}}}})"), run["error"]
    scratch.wb.landing.set_zone_settings(scratch.ns, "late", csv={"multiline": True})
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT note FROM {fqn} WHERE id = 99999") == [["multi\nline"]]


def test_a_malformed_json_lines_file_fails_naming_file_and_line(scratch: Scratch):
    """Spark's sentence named neither: "cannot read landing zone …: Malformed records are detected in schema
    inference. Parse Mode: FAILFAST: Unexpected character ('}' (code 125)) …"."""
    scratch.landing("js", "events.json", '{"id": 1}\n\n{"id": 2,}\n{"id": 3}\n')
    fqn = scratch.pipeline("bronze", "js", SQL.format("js"))
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert run["error"].endswith(
        f"cannot read landing zone {scratch.ns}/landing/js: events.json line 3 is not one JSON object "
        "(expecting property name enclosed in double quotes: '{\"id\": 2,}'); fix the file"), run["error"]


def test_a_later_file_of_numbers_in_a_text_column_of_an_archiving_pipeline_loads_as_text(scratch: Scratch):
    """Codes A7 loaded, then a file of 7 and 10 (sampled as int; codes with leading zeros, 007, are text by
    themselves: test_files_as_sent.py). The run failed, advising `--full-refresh`: which, on a pipeline that
    archives its zone, rebuilt the table from that one file (A7 gone), and said success; then the advice was
    to pin the zone's `schema:`. A column the table holds as text is now read as text: the codes load as
    they are written, with nothing to pin."""
    archiving = "-- @merge_strategy: append_only\n-- @archive_landing_zones: true\n" + SQL.format("codes")
    fqn = scratch.pipeline("bronze", "codes", archiving)
    scratch.landing("codes", "jan.csv", "code,v\nA7,x\n")
    assert scratch.run(fqn)["status"] == "success"
    scratch.landing("codes", "feb.csv", "code,v\n7,y\n10,z\n")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT code, v FROM {fqn} ORDER BY v") == [["A7", "x"], ["7", "y"], ["10", "z"]]


def test_a_json_file_that_changes_a_column_s_type_is_named_with_the_way_out(scratch: Scratch):
    """The sentence named the query ("fix the query") when a partner's file carried the change."""
    scratch.landing("events", "mon.jsonl", '{"id": 1, "v": "a"}\n')
    fqn = scratch.pipeline("bronze", "events", "-- @merge_strategy: append_only\n"
                                               "SELECT * FROM {{ landing_zone('events') }}")
    assert scratch.run(fqn)["status"] == "success"
    scratch.landing("events", "tue.jsonl", '{"id": "2", "v": "b"}\n')
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert run["error"].endswith(
        "column id changes type from bigint to string, which is not a safe widening; this run's files (tue.jsonl) "
        f"read it as string: fix the files, or run {fqn} with --full-refresh to rebuild the table from every file "
        "in the zone"), run["error"]
    assert scratch.run(fqn, full_refresh=True)["status"] == "success"
    assert scratch.rows(f"SELECT id, v FROM {fqn} ORDER BY v") == [["1", "a"], ["2", "b"]]


def test_a_json_file_of_whole_numbers_loads_into_a_double_column_and_a_number_past_2_53_fails_naming_it(
        scratch: Scratch):
    """Found by a new user: after `{"price": 2.5}`, a file of `{"price": 3}` was refused (`double to bigint, not a
    safe widening`), blaming the file: JSON reads whole numbers as bigint. Each is a double exactly up to 2^53."""
    scratch.landing("prices", "mon.jsonl", '{"id": 1, "price": 2.5}\n')
    fqn = scratch.pipeline("bronze", "prices", "-- @merge_strategy: append_only\n"
                                               "SELECT * FROM {{ landing_zone('prices') }}")
    assert scratch.run(fqn)["status"] == "success"
    scratch.landing("prices", "tue.jsonl", '{"id": 2, "price": 3}\n{"id": 3, "price": -9007199254740992}\n')
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, price FROM {fqn} ORDER BY id") == [[1, 2.5], [2, 3.0], [3, -9007199254740992.0]]
    assert scratch.rows(f"SELECT DISTINCT typeof(price) FROM {fqn}") == [["double"]]
    scratch.landing("prices", "wed.jsonl", '{"id": 4, "price": 9007199254740993}\n')
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert "column price holds 9007199254740993, a whole number past 2^53 that no double holds exactly" in run["error"], \
        run["error"]
    assert scratch.rows(f"SELECT count(*) FROM {fqn}") == [[3]]


def test_the_way_out_of_a_later_file_s_wider_type_never_pins_the_old_one_and_following_it_keeps_every_value(
        scratch: Scratch):
    """Found by a new user: after ZIPs 75001, a file of 01234 was refused advising `schema: {zip: int}` first;
    pinned, the run was green with 1234. Whole-number prices, then 2.5: the advice was `price: int` (never
    readable). The way out is a rebuild at the type every file fits, and a pin of that type."""
    fqn = scratch.pipeline("bronze", "zips", "-- @merge_strategy: append_only\n"
                                             "SELECT * FROM {{ landing_zone('zips') }}")
    scratch.landing("zips", "a.csv", "id,zip,price\n1,75001,3\n2,10115,10\n")
    assert scratch.run(fqn)["status"] == "success"
    scratch.landing("zips", "b.csv", "id,zip,price\n3,01234,2.5\n")
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert run["error"].endswith(
        "column zip changes type from int to string, which is not a safe widening; this run's files (b.csv) read it "
        f"as string: fix the files, or run {fqn} with --full-refresh to rebuild the table from every file in the "
        f"zone; after the rebuild, pin it in rat.yaml (zones: {{{scratch.ns}/zips: {{schema: {{zip: string}}}}}}) so "
        "every file to come reads it as string (a pin alone leaves the table as it is)"), run["error"]
    assert scratch.run(fqn, full_refresh=True)["status"] == "success"
    assert scratch.rows(f"SELECT id, zip, price FROM {fqn} ORDER BY id") == [
        [1, "75001", 3.0], [2, "10115", 10.0], [3, "01234", 2.5]]


def test_numbers_dressed_as_text_and_date_times_spark_has_no_pattern_for_are_said_with_the_way_to_read_them(
        scratch: Scratch):
    """Found by a new user: `12%`, `(45.00)` and `31.12.2024 23:59` loaded as text with no word."""
    scratch.landing("dressed", "a.csv", "id,pct,neg,ts\n1,12%,(45.00),31.12.2024 23:59\n2,5%,10.00,01.01.2025 00:00\n")
    fqn = scratch.pipeline("bronze", "dressed", SQL.format("dressed"))
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    said = {n["text"].split(" ")[0]: n["text"] for n in run["notes"] if n["kind"] == "kept_as_text"}
    assert said == {
        "pct": "pct kept as text: its numbers are written with a percent sign (12% is 12, or 0.12 as a fraction), "
               "which Spark does not read (12%); read them in the pipeline (regexp_replace, then CAST), or pin the "
               "column (schema: {pct: string}) to keep it as text without this note",
        "neg": "neg kept as text: its numbers are written in parentheses, an accountant's negative ((45.00) is "
               "-45.00), which Spark does not read ((45.00)); read them in the pipeline (regexp_replace, then CAST), "
               "or pin the column (schema: {neg: string}) to keep it as text without this note",
        "ts": "ts kept as text: its date-times (31.12.2024 23:59) are read as timestamps only with the zone's "
              "timestamp_format: set it in rat.yaml (csv: timestamp_format: 'dd.MM.yyyy HH:mm', or MM first if the "
              "month comes first)"}, run["notes"]
    # as the note says
    scratch.wb.landing.set_zone_settings(scratch.ns, "dressed", csv={"timestamp_format": "dd.MM.yyyy HH:mm"})
    again = scratch.run(fqn)
    assert again["status"] == "success", again["error"]
    assert scratch.rows(f"SELECT DISTINCT typeof(ts) FROM {fqn}") == [["timestamp"]]
    assert "ts" not in {n["text"].split(" ")[0] for n in again["notes"] if n["kind"] == "kept_as_text"}


def test_an_archiving_pipeline_s_way_out_of_a_wider_type_moves_its_files_back_and_rebuilds(scratch: Scratch):
    """Whole-number prices first, then 2.5, in a zone whose pipeline archives: the advice to pin `price: int`
    (which nothing reads 2.5 with) went round in a loop. Followed now, the table holds every price."""
    archiving = "-- @merge_strategy: append_only\n-- @archive_landing_zones: true\n" + SQL.format("ia")
    fqn = scratch.pipeline("bronze", "ia", archiving)
    scratch.landing("ia", "a.csv", "id,price\n1,3\n2,10\n")
    first = scratch.run(fqn)
    assert first["status"] == "success"
    scratch.landing("ia", "b.csv", "id,price\n3,2.5\n")
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert run["error"].endswith(
        "this run's files (b.csv) read it as double: fix the files, or rebuild the table as double: move the files "
        f"loaded before back from _processed/ and run {fqn} with --full-refresh (it reads only the files in the "
        f"zone); after the rebuild, pin it in rat.yaml (zones: {{{scratch.ns}/ia: {{schema: {{price: double}}}}}}) so "
        "every file to come reads it as double (a pin alone leaves the table as it is)"), run["error"]
    zone = scratch.root / "landing" / "ia"
    (zone / "_processed" / first["run_id"] / "a.csv").rename(zone / "a.csv")
    rebuilt = scratch.run(fqn, full_refresh=True)
    assert rebuilt["status"] == "success", rebuilt["error"]
    assert scratch.rows(f"SELECT id, price FROM {fqn} ORDER BY id") == [[1, 3.0], [2, 10.0], [3, 2.5]]


def test_a_type_change_the_query_s_own_cast_makes_names_the_query_not_the_files(scratch: Scratch):
    """Found by a new user: after `CAST(amount AS DOUBLE)` in the query, the refusal blamed this run's files and
    advised pinning the zone's schema, which changes nothing the query casts."""
    scratch.landing("sales", "mar.csv", "id,amount\n1,2.50\n")
    query = "-- @merge_strategy: append_only\nSELECT id, CAST(amount AS {}) AS amount FROM {{{{ landing_zone('sales') }}}}"
    fqn = scratch.pipeline("bronze", "sales", query.format("DECIMAL(10, 2)"))
    assert scratch.run(fqn)["status"] == "success"
    scratch.pipeline("bronze", "sales", query.format("DOUBLE"))
    scratch.landing("sales", "apr.csv", "id,amount\n2,3.75\n")
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert run["error"].endswith(
        "column amount changes type from decimal(10,2) to double, which is not a safe widening; fix the query, or "
        f"run {fqn} with --full-refresh to rebuild the table"), run["error"]


def test_a_full_refresh_pipeline_reads_its_zone_as_its_settings_say_now_not_as_its_table_has_it(scratch: Scratch):
    """Found by a new user: after `null_values: N/A` a full_refresh pipeline's run kept qty as text (its table's
    type) while its note said the values read as numbers; only --full-refresh gave numbers."""
    scratch.landing("na", "na.csv", "id,qty\n1,5\n2,N/A\n3,7\n")
    fqn = scratch.pipeline("bronze", "na", "-- @merge_strategy: full_refresh\nSELECT * FROM {{ landing_zone('na') }}")
    first = scratch.run(fqn)
    assert first["status"] == "success"
    assert scratch.rows(f"SELECT typeof(qty) FROM {fqn} LIMIT 1") == [["string"]]
    scratch.wb.landing.set_zone_settings(scratch.ns, "na", csv={"null_values": "N/A"})
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, qty, typeof(qty) FROM {fqn} ORDER BY id") == [
        [1, 5, "int"], [2, None, "int"], [3, 7, "int"]]

    # found by the same user: a rollback past the rebuild that changed qty's type went green and left the table
    # unreadable (`IntVector cannot be cast …`): main's schema goes back with its snapshot
    scratch.wb.tables.rollback_table(fqn, first["snapshot_id"])
    assert scratch.rows(f"SELECT id, qty, typeof(qty) FROM {fqn} ORDER BY id") == [
        [1, "5", "string"], [2, "N/A", "string"], [3, "7", "string"]]
    again = scratch.run(fqn)
    assert again["status"] == "success", again["error"]
    assert scratch.rows(f"SELECT id, qty FROM {fqn} ORDER BY id") == [[1, 5], [2, None], [3, 7]]


def test_a_header_a_partner_renamed_is_named_with_its_file(scratch: Scratch):
    """Found by a new user: `client` in place of `customer` failed with Spark's "cannot be resolved", which named
    no file; the zone's last load had the column, so the sentence says which file lacks it."""
    scratch.landing("cust", "a.csv", "id,customer\n1,Ann\n")
    fqn = scratch.pipeline("bronze", "cust", "-- @merge_strategy: append_only\n-- @archive_landing_zones: true\n"
                                             "SELECT id, customer FROM {{ landing_zone('cust') }}")
    first = scratch.run(fqn)
    assert first["status"] == "success"
    scratch.landing("cust", "b.csv", "id,client\n2,Bob\n")
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert run["error"].endswith(
        f"; b.csv of {scratch.ns}/landing/cust has no column customer (header: id, client), which the zone's files "
        f"had when run {first['run_id']} loaded them; if the sender renamed it, rename it back or select the new "
        "name"), run["error"]
    assert scratch.rows(f"SELECT id, customer FROM {fqn}") == [[1, "Ann"]]
    # a name no file ever had is the query's: Spark's sentence alone
    scratch.pipeline("bronze", "cust", "SELECT id, custmer FROM {{ landing_zone('cust') }}")
    run = scratch.run(fqn)
    assert run["status"] == "failed" and run["error"].endswith("[`client`, `id`, `_source_file`]"), run["error"]


def test_a_header_that_names_a_column_twice_is_said_with_the_names_the_table_gets(scratch: Scratch):
    """A partner's export with `id` and `ID` loaded green as id0, name1, ID2, Name3 with no word: a pipeline's
    `SELECT id` then failed on a column the file plainly has. The run says it, naming what to select."""
    scratch.landing("dups", "a.csv", "id,name,ID,Name,amount\n1,ann,7,x,2.5\n2,bo,8,y,3\n")
    fqn = scratch.pipeline("bronze", "dups", SQL.format("dups"))
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id0, name1, ID2, Name3, amount FROM {fqn} ORDER BY id0") == [
        [1, "ann", 7, "x", 2.5], [2, "bo", 8, "y", 3.0]]
    [note] = [n for n in run["notes"] if n["kind"] == "renamed_columns"]
    assert (note["file"], note["line"]) == (f"{scratch.ns}/landing/dups/a.csv", 1)
    assert note["text"] == ("a.csv names a column more than once in the header; read 'id' (column 1) as id0, "
                            "'name' (column 2) as name1, 'ID' (column 3) as ID2, 'Name' (column 4) as Name3: "
                            "select those names, or rename the columns in the files")
    # a header without repeats, with an empty name Spark calls _c1, says nothing of the kind
    scratch.landing("plain", "b.csv", "id,,amount\n1,a,2\n")
    plain = scratch.run(scratch.pipeline("bronze", "plain", SQL.format("plain")))
    assert plain["status"] == "success" and not [n for n in plain["notes"] if n["kind"] == "renamed_columns"]


def test_a_column_of_numbers_but_for_n_a_or_null_is_said_with_the_setting_that_reads_it(scratch: Scratch):
    """`N/A` and `NULL` among a partner's amounts loaded the column as text, green, with no word: sums then failed
    or compared as strings. The run says which words kept it text, and how to read it as numbers."""
    scratch.landing("na", "a.csv", "id,amount,qty\n1,2.5,3\n2,N/A,NULL\n3,4.25,n/a\n")
    fqn = scratch.pipeline("bronze", "na", SQL.format("na"))
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT amount, qty FROM {fqn} ORDER BY id") == [["2.5", "3"], ["N/A", "NULL"], ["4.25", "n/a"]]
    notes = {n["text"].split(" ")[0]: n for n in run["notes"] if n["kind"] == "kept_as_text"}
    assert (notes["amount"]["file"], notes["amount"]["line"]) == (f"{scratch.ns}/landing/na/a.csv", 3)
    assert notes["amount"]["text"] == (
        f"amount kept as text: its values are numbers but for 'N/A'; if 'N/A' means no value, set null_values: 'N/A' "
        f"under zones: {scratch.ns}/na: csv: in rat.yaml to read the column as numbers")
    assert notes["qty"]["text"] == (
        "qty kept as text: its values are numbers but for 'NULL', 'n/a'; a zone takes one null marker (csv "
        "null_values): read it with try_cast(qty AS DOUBLE) in the pipeline, which gives NULL for each of them")
    # as the note says: with the setting, the column is numbers and N/A a NULL, and nothing more is said of it
    scratch.wb.landing.set_zone_settings(scratch.ns, "na", csv={"null_values": "N/A"})
    scratch.pipeline("bronze", "na2", SQL.format("na"))
    again = scratch.run(f"{scratch.ns}.bronze.na2")
    assert again["status"] == "success", again["error"]
    assert scratch.rows(f"SELECT amount FROM {scratch.ns}.bronze.na2 ORDER BY id") == [[2.5], [None], [4.25]]
    assert [n["text"].split(" ")[0] for n in again["notes"] if n["kind"] == "kept_as_text"] == ["qty"]


def test_a_column_of_decimals_holding_more_digits_than_a_double_is_kept_as_text_and_said(scratch: Scratch):
    """Found by a new user: `2.5` above `9007199254740993` made a double column, and the run was green with
    9007199254740992. Kept as text now, with the decimal to pin; pinned, the table holds every digit."""
    scratch.landing("exact", "a.csv", "id,amount,ratio\n1,2.5,0.5\n2,9007199254740993,0.25\n3,12345678901234567.89,1.0\n")
    fqn = scratch.pipeline("bronze", "exact", SQL.format("exact"))
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    said = [n["text"] for n in run["notes"] if n["kind"] == "kept_as_text"]
    assert said == ["amount kept as text: 9007199254740993 has more digits than a double holds exactly (it would "
                    "read as 9007199254740992); pin the column to a decimal wide enough for its values (schema: "
                    "{amount: 'decimal(19,2)'}) to read them as numbers"], run["notes"]
    assert scratch.rows(f"SELECT amount, ratio FROM {fqn} ORDER BY id") == [
        ["2.5", 0.5], ["9007199254740993", 0.25], ["12345678901234567.89", 1.0]]
    # as the note says
    scratch.wb.landing.set_zone_settings(scratch.ns, "exact", schema={"amount": "decimal(19,2)"})
    again = scratch.run(fqn, full_refresh=True)
    assert again["status"] == "success", again["error"]
    assert scratch.rows(f"SELECT CAST(amount AS STRING) FROM {fqn} ORDER BY id") == [
        ["2.50"], ["9007199254740993.00"], ["12345678901234567.89"]]
    assert not [n for n in again["notes"] if n["kind"] == "kept_as_text"]


def test_whole_numbers_past_a_double_stay_exact_numbers_without_a_note(scratch: Scratch):
    """Whole numbers are read as bigint (or a decimal past it): nothing is lost, nothing said."""
    scratch.landing("ids", "a.csv", "id,account\n1,9007199254740993\n2,12345678901234567890\n")
    fqn = scratch.pipeline("bronze", "ids", SQL.format("ids"))
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert not [n for n in run["notes"] if n["kind"] == "kept_as_text"]
    assert scratch.rows(f"SELECT CAST(account AS STRING) FROM {fqn} ORDER BY id") == [
        ["9007199254740993"], ["12345678901234567890"]]


@pytest.mark.parametrize("strategy", ["append_only", "incremental"])
def test_a_later_json_file_with_a_new_key_inside_an_object_adds_the_field(scratch: Scratch, strategy: str):
    """Found by a new user: `meta: {src}` then `meta: {src, extra}` failed the run ("not a safe widening").
    Iceberg adds a field inside a struct as it adds a column: the field is added, earlier rows hold NULL in
    it, and a file after them without the key loads with NULL too."""
    fqn = scratch.pipeline("bronze", f"nested_{strategy}", f"-- @merge_strategy: {strategy}\n-- @unique_key: id\n"
                           + SQL.format(f"nested_{strategy}"))
    zone = f"nested_{strategy}"
    scratch.landing(zone, "a.json", '{"id": 1, "meta": {"src": "web", "at": {"h": 1}}}\n')
    assert scratch.run(fqn)["status"] == "success"
    scratch.landing(zone, "b.json", '{"id": 2, "meta": {"src": "app", "extra": "x", "at": {"h": 2, "m": 30}}}\n')
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert [n["text"] for n in run["notes"] if n["kind"] == "schema"] == [
        "added field meta.at.m bigint", "added field meta.extra string"]
    scratch.landing(zone, "c.json", '{"id": 3, "meta": {"src": "api"}}\n')
    third = scratch.run(fqn)
    assert third["status"] == "success", third["error"]
    assert scratch.rows(f"SELECT id, meta.src, meta.extra, meta.at.h, meta.at.m FROM {fqn} ORDER BY id") == [
        [1, "web", None, 1, None], [2, "app", "x", 2, 30], [3, "api", None, None, None]]
    assert scratch.rows(f"SELECT typeof(meta) FROM {fqn} LIMIT 1") == [
        ["struct<at:struct<h:bigint,m:bigint>,src:string,extra:string>"]]


def test_a_later_file_of_numbers_past_a_double_advises_the_decimal_then_the_rebuild(scratch: Scratch):
    """Found by a new user: day 2 brought `1234567890123456.78` into a double column. The refusal advised pinning
    `string` after a rebuild while the run's note advised a decimal; pinned as the note said, the next run was
    refused again with the same advice. The refusal now gives the note's decimal, pinned before the rebuild."""
    fqn = scratch.pipeline("bronze", "pay", "-- @merge_strategy: append_only\n" + SQL.format("pay"))
    scratch.landing("pay", "p1.csv", "id,amount\n1,19.90\n2,5.00\n")
    assert scratch.run(fqn)["status"] == "success"
    scratch.landing("pay", "p2.csv", "id,amount\n3,1234567890123456.78\n4,0.01\n")
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert run["error"].endswith(
        f"this run's files (p2.csv) read it as string: pin it in rat.yaml (zones: {{{scratch.ns}/pay: {{schema: "
        f"{{amount: 'decimal(18,2)'}}}}}}), as the run's note on amount says, then run {fqn} with --full-refresh "
        "to rebuild the table from every file in the zone with it"), run["error"]
    scratch.wb.landing.set_zone_settings(scratch.ns, "pay", schema={"amount": "decimal(18,2)"})
    again = scratch.run(fqn, full_refresh=True)
    assert again["status"] == "success", again["error"]
    assert scratch.rows(f"SELECT id, CAST(amount AS STRING) FROM {fqn} ORDER BY id") == [
        [1, "19.90"], [2, "5.00"], [3, "1234567890123456.78"], [4, "0.01"]]
