"""Files read as their senders meant them (issue 35): a BOM settles its file's encoding, numbers and
identifiers keep what they were written as, a title above the header is no row. Each test writes its
files in the encodings and layouts named and asserts the table's rows and types after a real run."""
from __future__ import annotations

import codecs
import os
import time

import pytest

from tests.core.landing.zone_runs import load_zone, table_columns
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark


def _zone_file(scratch: Scratch, zone: str, name: str, data: bytes):
    path = scratch.root / "landing" / zone / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _types(scratch: Scratch, fqn: str) -> dict[str, str]:
    return {r[0]: r[1] for r in scratch.rows(f"DESCRIBE {fqn}") if r[0] and not r[0].startswith("#")}


def _logged(scratch: Scratch, run: dict) -> list[str]:
    return [e.get("message", "") for e in scratch.wb.run_log.read(run["run_id"]) if e["event"] == "LogLine"]


def test_a_bom_settles_its_file_in_a_cp1252_zone(scratch: Scratch):
    """A UTF-8 file with a BOM (`;`, CRLF) beside a cp1252 file, the zone set to cp1252: each file is read
    in its own encoding; no `ï»¿id` column, no NULL ids, no mojibake."""
    _zone_file(scratch, "mixed", "a.csv", "\ufeffid;name\r\n1;Nguyễn Co\r\n2;Zoë\r\n".encode("utf-8"))
    _zone_file(scratch, "mixed", "b.csv", "id;name\r\n3;Café Noël\r\n".encode("cp1252"))
    scratch.wb.landing.set_zone_settings(scratch.ns, "mixed", csv={"encoding": "cp1252"})
    run = load_zone(scratch, "mixed")
    assert run["status"] == "success", run["error"]
    assert table_columns(scratch, run["fqn"]) == ["id", "name"]
    assert scratch.rows(f"SELECT id, name FROM {run['fqn']} ORDER BY id") == [
        [1, "Nguyễn Co"], [2, "Zoë"], [3, "Café Noël"]]


def test_excel_text_formulas_load_as_the_text_inside_and_are_said(scratch: Scratch):
    """A file made for Excel keeps codes' leading zeros as `="01234"`: loaded as that, formula and all. Now as the
    text inside, a column of them text even when each looks like a number (`="12345"`), and said with the line.
    A quoted value holding `=` and quotes is left as it is."""
    _zone_file(scratch, "xl", "codes.csv", b'id,zip,code,note\n1,="01234",="12345","a=""b"""\n'
                                          b'2,="00789","=""67890""",plain\n3,="",="42", ="x" \n')  # quoted by a writer
    run = load_zone(scratch, "xl")
    assert run["status"] == "success", run["error"]
    assert _types(scratch, run["fqn"])["zip"] == "string" and _types(scratch, run["fqn"])["code"] == "string"
    assert scratch.rows(f"SELECT id, zip, code, note FROM {run['fqn']} ORDER BY id") == [
        [1, "01234", "12345", 'a="b"'], [2, "00789", "67890", "plain"], [3, None, "42", "x"]]
    said = [(n["kind"], n["file"], n["line"], n["text"]) for n in run["notes"] if n["kind"] == "excel_text"]
    # a later file of plain numbers in those columns keeps them text: the union cast 01234 to 1234, green
    _zone_file(scratch, "xl", "more.csv", b"id;zip;code;note\n4;75001;777;x\n")  # another writer: read apart
    again = load_zone(scratch, "xl", "p2")
    assert again["status"] == "success", again["error"]
    assert scratch.rows(f"SELECT id, zip, code FROM {again['fqn']} ORDER BY id") == [
        [1, "01234", "12345"], [2, "00789", "67890"], [3, None, "42"], [4, "75001", "777"]]
    assert said == [("excel_text", f"{scratch.ns}/landing/xl/codes.csv", 2,
                     '7 value(s) of codes.csv written as Excel text formulas loaded as the text inside (="01234" '
                     "on line 2)")]


def test_a_leading_zero_past_the_sample_keeps_the_column_as_text(scratch: Scratch):
    """ZIP codes from 10001 on for 40,000 rows, then `01234`: the sample typed `zip` as a number, and
    Spark read the last one as 1234, green. The run now keeps the column as text and says where."""
    body = "".join(f"{n},{10000 + n},{n}.50\n" for n in range(1, 40001))
    _zone_file(scratch, "zips", "a.csv", f"id,zip,amount\n{body}40001,01234,5.00\n".encode())
    run = load_zone(scratch, "zips")
    assert run["status"] == "success", run["error"]
    assert _types(scratch, run["fqn"])["zip"] == "string"
    assert _types(scratch, run["fqn"])["amount"] == "double"
    assert scratch.rows(f"SELECT zip, amount FROM {run['fqn']} WHERE id IN (1, 40001) ORDER BY id") == [
        ["10001", 1.5], ["01234", 5.0]]
    notes = " ".join(n["text"] for n in run["notes"])
    assert "zip: int in the sample; '01234' at a.csv line 40,002 has a leading zero" in notes, notes


@pytest.mark.parametrize("value, zero", [
    ("01", True), ("-007", True), (" 08", True), ("+01", True), ("\t09", True), ("00.5", True),
    ("0", False), ("0.5", False), ("-0.25", False), (" 10", False), ("+3", False), ("100", False), ("", False)])
def test_the_cheap_leading_zero_test_agrees_with_the_pattern(scratch: Scratch, value: str, zero: bool):
    """The guard looks at the first character and runs the pattern only after a sign or a space."""
    from pyspark.sql import functions as F

    from rat_tui.core.landing.numbers import LEADING_ZERO_PATTERN, leading_zero

    df = scratch.wb.spark.session().createDataFrame([(value,)], "v string")
    assert df.select(leading_zero(F.col("v")), F.col("v").rlike(LEADING_ZERO_PATTERN)).first() == (zero, zero)


def test_numbers_that_turn_to_text_past_the_first_lines_are_said_with_the_value_and_line(scratch: Scratch):
    """`1.50` for 50,000 lines, then `1.500,25`: Spark's pass over the whole file typed `amount` as text, and
    the run said nothing."""
    body = "".join(f"{n},1.50\n" for n in range(1, 50001))
    _zone_file(scratch, "late", "a.csv", f"id,amount\n{body}50001,\"1.500,25\"\n".encode())
    run = load_zone(scratch, "late")
    assert run["status"] == "success", run["error"]
    assert _types(scratch, run["fqn"])["amount"] == "string"
    said = [n for n in run["notes"] if n["kind"] == "kept_as_text"]
    assert [(n["file"], n["line"]) for n in said] == [(f"{scratch.ns}/landing/late/a.csv", 50002)], run["notes"]
    assert "amount kept as text: the files' first lines hold numbers, but '1.500,25' is not one" in said[0]["text"]


def test_numbers_written_one_way_in_one_file_and_another_way_in_the_next_are_kept_as_text_and_said(
        scratch: Scratch):
    """`1.500,25` in one file, `1000.75` in the next: no reading fits both; it failed with Spark's cast error
    naming no file and suggesting spark.sql.ansi.enabled."""
    _zone_file(scratch, "mixed", "semi.csv", b"id;amount\n1;1.500,25\n2;7,5\n")
    _zone_file(scratch, "mixed", "semi2.csv", b"id;amount\n3;1000.75\n")
    run = load_zone(scratch, "mixed")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, amount FROM {run['fqn']} ORDER BY id") == [
        [1, "1.500,25"], [2, "7,5"], [3, "1000.75"]]
    texts = " ".join(n["text"] for n in run["notes"])
    assert "amount kept as text: its numbers are written in more than one way (1.500,25" in texts, texts


@pytest.mark.parametrize("zone_encoding", ["latin-1", "cp1252"])
def test_a_utf8_file_without_a_bom_in_a_latin1_zone_is_read_as_utf8_and_said(scratch: Scratch, zone_encoding: str):
    """latin-1 reads any byte, so a partner's UTF-8 file passed every check and loaded `José` as `JosÃ©`.
    The accents sit past the part of the file read to detect its dialect; a Latin-1 file beside it still
    reads in the zone's encoding."""
    zone = f"partner_{zone_encoding.replace('-', '')}"
    body = "".join(f"{n};plain {n}\n" for n in range(1, 30001))
    _zone_file(scratch, zone, "a.csv", f"id;name\n{body}30001;José\n30002;Françoise\n".encode("utf-8"))
    _zone_file(scratch, zone, "b.csv", "id;name\n30003;Noël\n".encode("latin-1"))
    scratch.wb.landing.set_zone_settings(scratch.ns, zone, csv={"encoding": zone_encoding})
    run = load_zone(scratch, zone)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, name FROM {run['fqn']} WHERE id > 30000 ORDER BY id") == [
        [30001, "José"], [30002, "Françoise"], [30003, "Noël"]]
    notes = " ".join(n["text"] for n in run["notes"])
    assert "a.csv read as UTF-8 (it is valid UTF-8 with letters beyond ASCII" in notes, notes
    assert f"b.csv read as {codecs.lookup(zone_encoding).name} (the zone's encoding)" in notes, notes


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_files_with_a_bom_read_as_text(scratch: Scratch, codec: str):
    bom = "\ufeff".encode(codec)
    _zone_file(scratch, "u16", "a.csv", bom + "id;name;amount\r\n1;Zoë;2,50\r\n2;Łódź;3,75\r\n".encode(codec))
    run = load_zone(scratch, "u16")
    assert run["status"] == "success", run["error"]
    assert table_columns(scratch, run["fqn"]) == ["id", "name", "amount"]
    assert scratch.rows(f"SELECT id, name, amount FROM {run['fqn']} ORDER BY id") == [
        [1, "Zoë", 2.5], [2, "Łódź", 3.75]]


def test_a_file_not_valid_in_its_encoding_is_refused_with_offset_and_line(scratch: Scratch):
    """A UTF-8 zone (no setting) with a cp1252 byte on line 3, and another whose bad byte lies past the part
    of the file read to detect it: each run refuses, naming file, offset, line and a likely encoding."""
    _zone_file(scratch, "bad", "a.csv", b"id;name\n1;ok\n2;Caf\xe9\n")
    run = load_zone(scratch, "bad")
    assert run["status"] == "failed"
    assert "a.csv is not UTF-8 text (bad byte 0xe9 at byte offset 18, line 3)" in run["error"]
    assert "encoding: cp125" in run["error"]
    rows = "".join(f"{i};name {i}\n" for i in range(1, 40_001)).encode()
    _zone_file(scratch, "late", "big.csv", b"id;name\n" + rows + "40001;Müller\n".encode("cp1252"))
    run = load_zone(scratch, "late", "p2")
    assert run["status"] == "failed"
    assert f"big.csv is not UTF-8 text (bad byte 0xfc at byte offset {8 + len(rows) + 7:,}, line 40,002)" in run["error"]


def test_thousands_separators_read_as_the_zone_writes_numbers(scratch: Scratch):
    """A `;` feed with qty 1.500 and 2.250, and 12,50 decimal commas in another file of the zone: qty is 1500
    and 2250 (BIGINT), price 12.5 (DOUBLE), and the run says how it read qty."""
    scratch.landing("eu", "a.csv", "id;qty\n1;1.500\n2;2.250\n")
    scratch.landing("eu", "b.csv", "id;price\n3;12,50\n4;7,25\n")
    run = load_zone(scratch, "eu")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, qty, price FROM {run['fqn']} ORDER BY id") == [
        [1, 1500, None], [2, 2250, None], [3, None, 12.5], [4, None, 7.25]]
    types = _types(scratch, run["fqn"])
    assert types["qty"] == "bigint" and types["price"] == "double"
    assert any("qty: 1.500 read as 1500 (decimal ',', '.' thousands separator)" in m for m in _logged(scratch, run))


def test_us_grouping_becomes_a_number_or_text_never_a_decimal(scratch: Scratch):
    """A quoted "6,718" (US grouping): in a zone that shows decimal points it is 6718; alone, where the values
    cannot tell, it stays text ("6,718"), never 6.718."""
    scratch.landing("us", "a.csv", 'id,students,share\n1,"6,718",0.25\n2,"12,001",0.5\n')
    run = load_zone(scratch, "us")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, students, share FROM {run['fqn']} ORDER BY id") == [[1, 6718, 0.25], [2, 12001, 0.5]]
    scratch.landing("alone", "a.csv", 'id,students\n1,"6,718"\n2,"12,001"\n')
    run = load_zone(scratch, "alone", "p2")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, students FROM {run['fqn']} ORDER BY id") == [[1, "6,718"], [2, "12,001"]]
    assert _types(scratch, run["fqn"])["students"] == "string"
    assert any("students kept as text: 6,718, 12,001 may be thousands or decimals" in m for m in _logged(scratch, run))


def test_pinned_number_format_reads_ambiguous_values(scratch: Scratch):
    """`decimal: ","` and `thousands: "."` pinned: 1.500 alone reads as 1500."""
    scratch.landing("pin", "a.csv", "id;qty\n1;1.500\n2;2.250\n")
    scratch.wb.landing.set_zone_settings(scratch.ns, "pin", csv={"decimal": ",", "thousands": "."})
    run = load_zone(scratch, "pin")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, qty FROM {run['fqn']} ORDER BY id") == [[1, 1500], [2, 2250]]


def test_identifiers_with_leading_zeros_stay_text(scratch: Scratch):
    """State codes 01, 02 and ZIP codes 08123: text, the zeros kept; a plain count beside them stays a number."""
    scratch.landing("zip", "a.csv", "state,zip,count\n01,08123,5\n02,10001,7\n10,0,0\n")
    run = load_zone(scratch, "zip")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT state, zip, count FROM {run['fqn']} ORDER BY state") == [
        ["01", "08123", 5], ["02", "10001", 7], ["10", "0", 0]]
    types = _types(scratch, run["fqn"])
    assert types["state"] == "string" and types["zip"] == "string" and types["count"] == "int"


GOV_REPORT = (",,,,,,,,\r\n"
              "Number of Students Enrolled by State During FY 2010,,,,\r\n"
              "State,Code,Zip,Students,Y2008,Y2009,Y2010,Share,Note\r\n"
              'Alabama,01,35004,"6,718",1.5,2.5,3.5,0.25,a\r\n'
              'Alaska,02,99501,"12,001",1.5,2.5,3.5,0.5,b\r\n'
              'New Jersey,34,08123,"987",1.5,2.5,3.5,0.75,c\r\n'
              ",,,,,,,,\r\n")


def test_a_report_with_a_title_above_its_header_loads_its_table(scratch: Scratch):
    """A government report: an empty line and a title above the header, a trailing `,,,,,,,,`: the table has
    the header's columns, no title row, no empty row, and the run tells both."""
    _zone_file(scratch, "gov", "fy2010.csv", GOV_REPORT.encode())
    run = load_zone(scratch, "gov")
    assert run["status"] == "success", run["error"]
    assert table_columns(scratch, run["fqn"]) == ["State", "Code", "Zip", "Students", "Y2008", "Y2009", "Y2010",
                                                  "Share", "Note"]
    assert scratch.rows(f"SELECT State, Code, Zip, Students, Share FROM {run['fqn']} ORDER BY State") == [
        ["Alabama", "01", "35004", 6718, 0.25], ["Alaska", "02", "99501", 12001, 0.5],
        ["New Jersey", "34", "08123", 987, 0.75]]
    logged = _logged(scratch, run)
    assert any("fy2010.csv: lines 1-2 above the header (a title) not loaded" in m for m in logged)
    assert any("1 row(s) of fy2010.csv with no value not loaded (line 7)" in m for m in logged)


def _loads_without_its_title(scratch: Scratch, zone: str, name: str, content: bytes, rows: list) -> None:
    """The file's `id, amount` rows load, and the run says its line 1 (a title) was left out."""
    _zone_file(scratch, zone, name, content)
    run = load_zone(scratch, zone)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, amount FROM {run['fqn']} ORDER BY id") == rows
    assert any(f"{name}: line 1 above the header (a title) not loaded" in m for m in _logged(scratch, run))


def test_a_small_report_with_a_one_word_title_above_two_columns_loads_its_table_and_a_headerless_pair_its_rows(
        scratch: Scratch):
    """Found by a new user: `Sales` above `id,amount` was taken for the header, a table of one column named
    `Sales` (only tables of three columns or more were looked at). A two-column file's first row with an empty
    value (`1,`) is a row, not a title."""
    _loads_without_its_title(scratch, "small", "r.csv", b"Sales\nid,amount\n1,10.5\n2,7.25\n", [[1, 10.5], [2, 7.25]])
    _zone_file(scratch, "pairs", "p.csv", b"id,amount\n1,\n2,7.25\n")
    run = load_zone(scratch, "pairs")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, amount FROM {run['fqn']} ORDER BY id") == [[1, None], [2, 7.25]]


def test_a_title_as_wide_as_the_header_is_left_out_when_the_line_under_it_names_columns_of_numbers(scratch: Scratch):
    """`Sales export, week 1` above `id,amount` read as the header: a green run, two text columns holding `id`,
    `amount` and the numbers as text. A first row of words in columns of numbers, under a header of words
    (`name,city` then text only), stays a row."""
    _loads_without_its_title(scratch, "wide", "w.csv", b"Sales export, week 1\nid,amount\n2,12.05\n3,30.00\n",
                             [[2, 12.05], [3, 30.0]])
    _zone_file(scratch, "words", "t.csv", b"name,city\nAlice,Paris\nBob,Rome\n")
    run = load_zone(scratch, "words", "p2")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT name, city FROM {run['fqn']} ORDER BY name") == [["Alice", "Paris"], ["Bob", "Rome"]]


def test_skip_rows_pins_the_lines_above_the_header(scratch: Scratch):
    """A title of several values, which detection cannot tell from a header: refused naming the lines; with
    skip_rows pinned the table loads."""
    _zone_file(scratch, "title", "r.csv", b"Report,FY 2010,all states\nid,name,amount,day\n1,a,2.5,x\n2,b,3.5,y\n")
    run = load_zone(scratch, "title")
    assert run["status"] == "failed"
    assert "r.csv line 1 hold(s) 3 column(s) where the rows under it have 4" in run["error"]
    assert "skip_rows: 1" in run["error"]
    scratch.wb.landing.set_zone_settings(scratch.ns, "title", csv={"skip_rows": 1})
    run = load_zone(scratch, "title", "p2")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, name, amount FROM {run['fqn']} ORDER BY id") == [[1, "a", 2.5], [2, "b", 3.5]]


def test_pin_dialect_writes_the_zone_s_number_format_and_later_files_read_by_it(scratch: Scratch):
    """`pin-dialect` (`E`) writes the decimal mark and thousands separator the zone's files show; a later file
    whose values alone cannot tell (1.500) then reads as 1500, not as text."""
    scratch.landing("feed", "a.csv", "id;qty;price\n1;1.500;12,50\n")
    pinned = scratch.wb.landing.pin_dialect(scratch.ns, "feed", "a.csv")
    assert pinned.csv["decimal"] == "," and pinned.csv["thousands"] == "."
    assert "decimal: ','" in (scratch.wb.project.root / "rat.yaml").read_text()
    (scratch.root / "landing" / "feed" / "a.csv").unlink()
    scratch.landing("feed", "b.csv", "id;qty\n2;2.250\n3;3.125\n")
    run = load_zone(scratch, "feed")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, qty FROM {run['fqn']} ORDER BY id") == [[2, 2250], [3, 3125]]


def test_a_number_written_otherwise_past_the_sample_fails_naming_its_line(scratch: Scratch):
    """qty grouped with '.' in the zone's first lines (beside 12,50 decimal commas), then `2.5` on line 6,002:
    the run fails naming file, line, column and value, rather than load 25."""
    rows = "".join(f"{i};{i % 9 + 1}.{i % 1000:03d};{i % 90},50\n" for i in range(1, 6001))
    scratch.landing("late", "a.csv", "id;qty;price\n" + rows + "6001;2.5;1,50\n")
    run = load_zone(scratch, "late")
    assert run["status"] == "failed"
    assert "a.csv line 6,002: qty '2.5' is not written like the column's other numbers (decimal ','" in run["error"]


def test_upload_takes_a_bom_file_into_a_cp1252_zone_and_its_twin_reads_right(scratch: Scratch, tmp_path):
    """Upload checks each file in the encoding it is read with: a UTF-8 file with a BOM in a cp1252 zone is
    UTF-8 (its twin and sample too), a cp1252 file with a byte cp1252 lacks is refused with offset and line."""
    scratch.wb.landing.create_zone(scratch.ns, "up")
    scratch.wb.landing.set_zone_settings(scratch.ns, "up", csv={"encoding": "cp1252"})
    bom = tmp_path / "bom.csv"
    bom.write_bytes("\ufeffid;name;qty\r\n1;Nguyễn Co;1.500\r\n2;Zoë;2.250\r\n".encode("utf-8"))
    west = tmp_path / "west.csv"
    west.write_bytes("id;name;price\r\n3;Café;12,50\r\n".encode("cp1252"))
    assert scratch.wb.landing.upload(scratch.ns, "up", [str(bom), str(west)]).typed == ["bom.csv", "west.csv"]
    assert [r[:2] for r in scratch.wb.landing.sample(scratch.ns, "up", "_samples/bom_sample.csv").as_dict()["rows"]] == [
        [1, "Nguyễn Co"], [2, "Zoë"]]
    run = load_zone(scratch, "up")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, name, qty, price FROM {run['fqn']} ORDER BY id") == [
        [1, "Nguyễn Co", 1500, None], [2, "Zoë", 2250, None], [3, "Café", None, 12.5]]
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"id;name\r\n4;x\x81y\r\n")
    with pytest.raises(Exception) as refused:
        scratch.wb.landing.upload(scratch.ns, "up", [str(bad)])
    assert "bad.csv is not cp1252 text (bad byte 0x81 at byte offset 12, line 2)" in str(refused.value)


def test_the_same_file_under_two_names_gives_its_rows_once_in_a_full_refresh_table(scratch: Scratch):
    """A partner resent `orders.csv` as `orders (1).csv`: the zone's full refresh doubled every row. A file
    of the same size but other bytes is read."""
    _zone_file(scratch, "resent", "orders.csv", b"id,v\n1,a\n2,b\n")
    copy = _zone_file(scratch, "resent", "orders (1).csv", b"id,v\n1,a\n2,b\n")
    os.utime(copy, (time.time() + 60, time.time() + 60))  # sent later; it sorts first by name
    _zone_file(scratch, "resent", "other.csv", b"id,v\n3,c\n4,d\n")
    run = load_zone(scratch, "resent")
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, v FROM {run['fqn']} ORDER BY id") == [[1, "a"], [2, "b"], [3, "c"], [4, "d"]]
    notes = [n["text"] for n in run["notes"]]
    assert f"skipped orders (1).csv: same content as {scratch.ns}/landing/resent/orders.csv, loaded by this run" \
        in notes, notes
    assert scratch.rows(f"SELECT DISTINCT _source_file FROM {run['fqn']} WHERE id = 1") == [["orders.csv"]]


def test_a_value_the_pipeline_cannot_cast_is_named_with_its_file_line_and_column(scratch: Scratch):
    """`CAST(day AS DATE)` of `2024-13-45` failed with Spark's sentence: the value, not where it is."""
    _zone_file(scratch, "days", "a.csv", b"id,day\n1,2024-01-02\n")
    _zone_file(scratch, "days", "b.csv", b"id,day\n2,2024-01-03\n3,2024-13-45\n")
    fqn = scratch.pipeline("bronze", "days", "SELECT id, CAST(day AS DATE) AS day FROM {{ landing_zone('days') }}")
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert run["error"].endswith(f"query failed: '2024-13-45' in column day at {scratch.ns}/landing/days/b.csv line 3 "
                                 "cannot be cast to DATE; fix the file, or cast with try_cast to read such values as NULL"), run["error"]


def test_a_column_a_leading_zero_made_text_stays_text_in_the_next_runs(scratch: Scratch):
    """The first run kept `zip` as text; every plain run after it failed: its sample typed `zip` as a number
    again, and the table's string -> int was refused before the read reached `01234`."""
    body = "".join(f"{n},{10000 + n}\n" for n in range(1, 30001))
    _zone_file(scratch, "zips2", "a.csv", f"id,zip\n{body}30001,01234\n".encode())
    first = load_zone(scratch, "zips2")
    assert first["status"] == "success", first["error"]
    second = scratch.run(first["fqn"])
    assert second["status"] == "success", second["error"]
    assert _types(scratch, first["fqn"])["zip"] == "string"
    assert scratch.rows(f"SELECT zip FROM {first['fqn']} WHERE id IN (1, 30001) ORDER BY id") == [["10001"], ["01234"]]


def test_a_file_that_grows_while_the_run_reads_it_fails_the_run_and_main_stays(scratch: Scratch, tmp_path,
                                                                                monkeypatch: pytest.MonkeyPatch):
    """A sender still writing: the run loaded 360,001 of the final 500,000 rows and said success."""
    path = _zone_file(scratch, "growing", "grow.csv", b"id,v\n" + b"".join(b"%d,x\n" % n for n in range(1, 1001)))
    marker, resume = tmp_path / "paused", tmp_path / "resume"
    monkeypatch.setenv("RAT_TEST_PAUSE_AT", "during:iceberg_write")
    monkeypatch.setenv("RAT_TEST_PAUSE_FILE", str(marker))
    monkeypatch.setenv("RAT_TEST_RESUME_FILE", str(resume))
    fqn = scratch.pipeline("bronze", "growing", "SELECT * FROM {{ landing_zone('growing') }}")
    handle = scratch.wb.runs.submit(fqn)
    deadline = time.monotonic() + 120
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists(), "the run never reached its write"
    with path.open("ab") as more:  # the rest of the file arrives after Spark read it
        more.write(b"".join(b"%d,y\n" % n for n in range(1001, 2001)))
    resume.touch()
    run = handle.wait().as_dict()
    assert run["status"] == "failed"
    assert run["error"].startswith(f"{scratch.ns}/landing/growing/grow.csv changed while this run read it "), run["error"]
    assert "main is unchanged: run again once the file is complete" in run["error"]
    monkeypatch.delenv("RAT_TEST_PAUSE_AT")
    assert scratch.run(fqn)["status"] == "success"
    assert scratch.rows(f"SELECT COUNT(*) FROM {fqn}") == [[2000]]


def test_a_later_file_of_its_header_alone_or_of_whole_prices_loads_into_the_tables_types(scratch: Scratch):
    """Found by a new user, both blocking the zone: a partner's file of its header alone failed the run once the
    table had rows (`price changes type from double to string`), and so did a file whose prices were all whole
    numbers (`double to int`, which loses nothing)."""
    fqn = scratch.pipeline("bronze", "partner",
                           "-- @merge_strategy: append_only\nSELECT * FROM {{ landing_zone('partner') }}")
    scratch.landing("partner", "f1.csv", "id;name;price;qty\n00123;Ada;1,50;2\n00124;Bob;2,25;3\n")
    assert scratch.run(fqn)["status"] == "success"
    price_type = _types(scratch, fqn)["price"]
    scratch.landing("partner", "f2_header.csv", "id;name;price;qty\n")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert run["rows_written"] == 0
    assert [n["text"] for n in run["notes"] if "only a header" in n["text"]] == [
        f"{scratch.ns}/landing/partner/f2_header.csv: only a header, no row loaded; the table's column types kept"]
    scratch.landing("partner", "f3.csv", "id;name;price;qty\n00126;Kim;5;7\n")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert _types(scratch, fqn)["price"] == price_type == "double"
    assert scratch.rows(f"SELECT id, name, price, qty FROM {fqn} ORDER BY id") == [
        ["00123", "Ada", 1.5, 2], ["00124", "Bob", 2.25, 3], ["00126", "Kim", 5.0, 7]]
