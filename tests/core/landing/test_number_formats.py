"""How a zone writes its numbers, identifiers and titles, read without the JVM (issue 35): what the zone
reader plans and the notes a green run carries (`ZoneReader.run_notes`), and what pinning writes."""
from __future__ import annotations

from pathlib import Path

import pytest

from rat_tui.core.errors import RatError
from rat_tui.core.landing.dialect import detect, zone_dialects
from rat_tui.core.landing.zone_reader import ZoneReader
from rat_tui.core.landing.zone_settings import read_settings
from rat_tui.core.project.settings import Settings
from tests.lakehelpers import Scratch


def _settings(csv: dict | None = None, schema: dict | None = None):
    zone = {key: value for key, value in (("csv", csv), ("schema", schema)) if value}
    return read_settings(Settings(zones={"shop/z": zone} if zone else {}), "shop", "z")


def _zone(tmp_path: Path, files: dict[str, bytes]) -> Path:
    zone = tmp_path / "shop" / "landing" / "z"
    zone.mkdir(parents=True)
    for name, data in files.items():
        (zone / name).write_bytes(data)
    return zone


def _reader(zone: Path, csv: dict | None = None, schema: dict | None = None) -> ZoneReader:
    """The zone reader as a run builds it: planning reads no row with Spark (none is started)."""
    files = sorted(p for p in zone.iterdir() if p.is_file())
    return ZoneReader(None, zone, "shop/landing/z", files, lambda p: "file:" + str(p), _settings(csv, schema))


def _notes(reader: ZoneReader) -> list[tuple]:
    return [(n.kind, n.file, n.line, n.text) for n in reader.run_notes]


def test_grouping_in_a_decimal_comma_zone_is_a_run_note(tmp_path):
    zone = _zone(tmp_path, {"a.csv": b"id;qty\n1;1.500\n2;2.250\n", "b.csv": b"id;price\n3;12,50\n"})
    reader = _reader(zone)
    numbers = {g.files[0].name: g.dialect.numbers for g in reader.groups}
    assert [(c.name, c.decimal, c.thousands, c.integral) for c in numbers["a.csv"]] == [("qty", ",", ".", True)]
    assert [(c.name, c.decimal, c.thousands, c.integral) for c in numbers["b.csv"]] == [("price", ",", None, False)]
    assert ("number_format", None, None, "qty: 1.500 read as 1500 (decimal ',', '.' thousands separator)") \
        in _notes(reader)


def test_files_of_another_delimiter_decide_their_numbers_apart(tmp_path):
    """Found by a new user: a comma-separated US file's `1.500` read as 1500 because a `;` file beside it
    wrote `12,50`. A file of another delimiter comes from another writer; files of one delimiter still decide
    together (above), and a file that cannot tell is kept as text, with its name in the note."""
    reader = _reader(_zone(tmp_path, {"us.csv": b"sku,price\nA1,1.500\nA2,2.250\n", "eu.csv": b"sku;price\nB1;12,50\n"}))
    dialects = {f.name: g.dialect for g in reader.groups for f in g.files}
    assert dialects["us.csv"].numbers == () and dialects["us.csv"].text_columns == ("price",)
    assert [(c.name, c.decimal) for c in dialects["eu.csv"].numbers] == [("price", ",")]
    assert [text for kind, _, _, text in _notes(reader) if kind == "kept_as_text"] == [
        "us.csv: price kept as text: 1.500, 2.250 may be thousands or decimals, and the zone shows no decimal mark; "
        "pin decimal and thousands in the zone's csv settings"]
    # a comma file's `1.05` and a `;` file's `1.234,50`: each read its own way (the zone was text, and the cast failed)
    other = _reader(_zone(tmp_path / "o", {"apr.csv": b"id,amount\n1,1.05\n",
                                           "feb.csv": b"id;amount\n5;1.234,50\n6;12,00\n"}))
    dialects = {f.name: g.dialect for g in other.groups for f in g.files}
    assert dialects["apr.csv"].numbers == () and dialects["apr.csv"].text_columns == ()  # Spark's own reading
    assert [(c.name, c.decimal, c.thousands) for c in dialects["feb.csv"].numbers] == [("amount", ",", ".")]
    pinned = _reader(_zone(tmp_path / "p", {"us.csv": b"sku,price\nA1,1.500\n", "eu.csv": b"sku;price\nB1;12,50\n"}),
                     {"decimal": ",", "thousands": "."})  # a pin is the zone's, whatever the delimiter
    assert [[(c.name, c.decimal) for c in g.dialect.numbers] for g in pinned.groups] == [[("price", ",")]] * 2


def test_numbers_written_two_ways_in_one_column_are_kept_as_text_and_said(tmp_path):
    """Found by a new user: `1.234,50` above `1234.50` fell back to text with no note, and so did dates
    written two ways."""
    reader = _reader(_zone(tmp_path, {"mixed.csv": b"id;val;when\n1;1.234,50;31/12/2024\n2;1234.50;2024-12-30\n"
                                                   b"3;7;01/01/2025\n"}))
    assert reader.groups[0].dialect.text_columns == ("val",)
    assert [note for note in _notes(reader) if note[0] == "kept_as_text"] == [
        ("kept_as_text", None, None, "val kept as text: its numbers are written in more than one way "
         "(1.234,50, 1234.50); fix the files, or pin decimal and thousands in the zone's csv settings"),
        ("kept_as_text", None, None, "when kept as text: its dates are written in more than one way (31/12/2024, "
         "2024-12-30); fix the files, or read each way in the pipeline (to_date with each pattern, in coalesce)")]
    names = _reader(_zone(tmp_path / "n", {"n.csv": b"id;name\n1;Ann, Bob\n2;C.J.\n"}))  # words: no note
    assert names.run_notes == []


def test_values_that_cannot_tell_are_kept_as_text_and_said(tmp_path):
    reader = _reader(_zone(tmp_path, {"a.csv": b'id,students\n1,"6,718"\n2,"12,001"\n'}))
    assert reader.groups[0].dialect.text_columns == ("students",)
    assert [n[0] for n in _notes(reader)] == ["kept_as_text"]
    assert "students kept as text: 6,718, 12,001 may be thousands or decimals" in _notes(reader)[0][3]


def test_a_value_below_one_proves_the_point_a_decimal_mark(tmp_path):
    """Found by a new user: weights 0.750, 1.000, 2.500 were kept as text, "may be thousands or decimals"; a
    group of thousands never starts with 0, so 0.750 can only be three quarters."""
    reader = _reader(_zone(tmp_path, {"a.csv": b"id,weight\n1,0.750\n2,1.000\n3,2.500\n"}))
    dialect = reader.groups[0].dialect
    assert {decimal for decimal, _ in dialect.samples["weight"].fits} == {"."}  # never 1.000 as a thousand
    assert dialect.text_columns == () and dialect.numbers == ()  # a plain decimal point: Spark's own reading
    assert not [n for n in _notes(reader) if n[0] == "kept_as_text"], _notes(reader)


def test_leading_zeros_make_a_column_text(tmp_path):
    zone = _zone(tmp_path, {"a.csv": b"state,zip,count,share\n01,08123,5,0.5\n10,10001,0,0\n"})
    reader = _reader(zone)
    assert reader.groups[0].dialect.text_columns == ("state", "zip")
    assert ("kept_as_text", None, None, "zip kept as text: '08123' has a leading zero (an identifier, which a number "
            "would lose)") in _notes(reader)
    # Found by a new user: pinned as the note advises, the zip column loaded as numbers and the note still said text
    pinned = _reader(zone, schema={"zip": "int"})
    assert pinned.groups[0].dialect.text_columns == ("state",)
    assert [text.split(":")[0] for kind, _, _, text in _notes(pinned) if kind == "kept_as_text"] == [
        "state kept as text"]


def test_encodings_per_file_and_rows_with_no_value_are_run_notes(tmp_path):
    zone = _zone(tmp_path, {"a.csv": "\ufeffid;name\r\n1;Zoë\r\n;\r\n".encode("utf-8"),
                            "b.csv": "id;name\r\n2;Noël\r\n".encode("cp1252")})
    reader = _reader(zone, {"encoding": "cp1252"})
    assert {g.files[0].name: g.dialect.encoding for g in reader.groups} == {"a.csv": "utf-8", "b.csv": "cp1252"}
    notes = _notes(reader)
    assert ("encoding", "shop/landing/z/a.csv", None, "a.csv read as UTF-8 (its byte-order mark)") in notes
    assert ("encoding", "shop/landing/z/b.csv", None, "b.csv read as cp1252 (the zone's encoding)") in notes
    assert ("empty_rows", "shop/landing/z/a.csv", 3, "1 row(s) of a.csv with no value not loaded (line 3)") in notes
    # Spark reads a.csv from a copy without that row
    assert reader.uri_of(zone / "a.csv").startswith(f"file:{zone}/_cleaned/")
    assert reader.uri_of(zone / "b.csv") == f"file:{zone}/b.csv"


def test_a_title_above_the_header_is_skipped_and_pinned(tmp_path):
    zone = _zone(tmp_path, {"r.csv": b",,,,\nSales by region FY 2010,,,,\nregion,code,q1,q2,q3\nNorth,01,1,2,3\n"})
    dialect = detect(zone / "r.csv", _settings())
    assert dialect.skip_rows == 2 and dialect.names == ("region", "code", "q1", "q2", "q3")
    assert zone_dialects(zone, _settings())[zone / "r.csv"].pinned()["skip_rows"] == 2


@pytest.mark.parametrize(("text", "lines", "skip"), [
    (b"Report,FY 2010\n\nid,name,amount,day\n1,a,2.5,x\n", "line 1", 2),  # an empty line under the title
    (b"Report,FY 2010,all states\nid,name,amount,day\n1,a,2.5,x\n", "line 1", 1),
], ids=["title-then-empty-line", "title"])
def test_a_title_of_several_values_is_refused_with_the_lines_above_the_header_to_skip(tmp_path, text, lines, skip):
    """Found by a new user: with an empty line between the title and the header, the advice said skip_rows: 1,
    which left the empty line above the header."""
    zone = _zone(tmp_path, {"r.csv": text})
    with pytest.raises(RatError) as refused:
        detect(zone / "r.csv", _settings())
    assert f"r.csv {lines} hold(s)" in str(refused.value) and f"skip_rows: {skip}}}" in str(refused.value), refused.value
    assert detect(zone / "r.csv", _settings(csv={"skip_rows": skip})).names == ("id", "name", "amount", "day")


def test_the_zone_s_number_convention_is_what_pinning_writes(tmp_path):
    zone = _zone(tmp_path, {"a.csv": b"id;qty\n1;1.500\n", "b.csv": b"id;price\n3;12,50\n"})
    pinned = zone_dialects(zone, _settings())[zone / "a.csv"].pinned()
    assert pinned["decimal"] == "," and pinned["thousands"] == "."


@pytest.mark.parametrize("csv, why", [
    ({"decimal": ";"}, "decimal must be one of '.', ','"),
    ({"decimal": ",", "thousands": ","}, "decimal and thousands cannot both be ','"),
    ({"skip_rows": -1}, "skip_rows must be a number of lines"),
])
def test_pinned_number_formats_and_skip_rows_are_checked(csv, why):
    with pytest.raises(RatError, match=why):
        _settings(csv)


def test_a_file_with_a_bad_byte_past_the_sample_is_refused_with_its_line(tmp_path):
    rows = b"".join(b"%d;name %d\n" % (i, i) for i in range(1, 30_001))
    zone = _zone(tmp_path, {"big.csv": b"id;name\n" + rows + b"30001;M\xfcller\n"})
    with pytest.raises(RatError, match=rf"big.csv is not UTF-8 text \(bad byte 0xfc at byte offset "
                                       rf"{8 + len(rows) + 7:,}, line 30,002\)"):
        _reader(zone)


def test_a_typed_twin_key_holds_the_zone_s_number_format(tmp_path):
    """Twins are keyed by the dialect they were read with (its JSON): a zone's number format changes the key."""
    from rat_tui.core.landing.twins import twin_folder

    zone = _zone(tmp_path, {"a.csv": b"id;qty\n1;1.500\n", "b.csv": b"id;price\n3;12,50\n"})
    grouped = zone_dialects(zone, _settings())[zone / "a.csv"]
    alone = detect(zone / "a.csv", _settings())
    assert twin_folder(zone, zone / "a.csv", grouped) != twin_folder(zone, zone / "a.csv", alone)


def test_the_dialects_note_names_each_description_once(tmp_path):
    """Files grouped apart for what a description leaves out (other columns) were listed as two identical
    descriptions ("a.csv: comma-separated, header; b.csv: comma-separated, header")."""
    zone = _zone(tmp_path, {"a.csv": b"id,name\n1,a\n", "b.csv": b"id,city\n2,b\n"})
    assert not [n for n in _reader(zone).notes if "different dialects" in n]
    (zone / "c.csv").write_bytes(b"id;name\n3;c\n")
    [note] = [n for n in _reader(zone).notes if "different dialects" in n]
    assert note == "files read with different dialects: a.csv, b.csv: comma-separated, header; c.csv: ';'-separated, header"


def test_a_zone_whose_files_show_both_decimal_marks_says_so(tmp_path):
    """Found by a new user: beside a decimal-comma file, a decimal-point one made `1.500` "may be thousands or
    decimals, and the zone shows no decimal mark", which the zone plainly did; it shows both."""
    reader = _reader(_zone(tmp_path, {"a.csv": b"id;qty;amt\n1;1.500;12,50\n", "b.csv": b"id;qty;amt\n2;2.000;7.25\n"}))
    assert [text for kind, _, _, text in _notes(reader) if kind == "kept_as_text" and "qty" in text] == [
        "qty kept as text: 1.500, 2.000 may be thousands or decimals, and the zone's files show both decimal marks "
        "(',' in some, '.' in others); pin decimal and thousands in the zone's csv settings"]


def test_numbers_no_reading_of_the_pinned_decimal_fits_are_refused_naming_the_value(scratch: Scratch):
    """Found by a new user: with `decimal: ','` and `thousands: '.'` pinned, a zone of a comma-separated file
    (`10.50`) and a `;`-separated one (`1.500`) loaded 1.5, green: no reading the pin allows fitted both, and the
    column was left to Spark's. The same file alone reads 1500."""
    fqn = scratch.pipeline("bronze", "pinned", "SELECT id, amount FROM {{ landing_zone('pinned') }}")
    scratch.landing("pinned", "march.csv", "id,name,amount\n1,a,10.50\n2,b,20.00\n")
    scratch.landing("pinned", "fix.csv", "id;name;amount\n2;b;1.500\n3;c;2.000\n")
    scratch.wb.landing.set_zone_settings(scratch.ns, "pinned", csv={"decimal": ",", "thousands": "."})
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert run["error"].endswith("amount: 10.50 is not a number written with the decimal ',' and thousands '.' the "
                                 "zone's csv settings pin; fix the file, or the settings")
    (scratch.root / "landing" / "pinned" / "march.csv").unlink()
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, amount FROM {fqn} ORDER BY id") == [[2, 1500], [3, 2000]]
