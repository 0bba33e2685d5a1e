"""Detecting a CSV file's dialect without the JVM (issue 26): the options Spark then reads it with."""
from __future__ import annotations

import gzip
import time
from pathlib import Path

import pytest

from rat_tui.core.errors import RatError
from rat_tui.core.landing.dialect import detect, spark_pattern
from rat_tui.core.landing.zone_settings import read_settings
from rat_tui.core.project.settings import Settings

SEMI = "id;name;amount;day\n" + "".join(f"{i};n{i};{i}.5;2024-01-{i % 28 + 1:02d}\n" for i in range(50))


def _zone(zones: dict | None = None):
    return read_settings(Settings(zones=zones or {}), "shop", "z")


def _file(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


@pytest.mark.parametrize("name, content, delimiter, header, names", [
    ("semi.csv", SEMI, ";", True, ("id", "name", "amount", "day")),
    ("tab.tsv", "id\tname\n1\ta\n2\tb\n", "\t", True, ("id", "name")),
    ("lineitem.tbl", "1|x|2.0|\n2|y|3.0|\n", "|", False, ("_c0", "_c1", "_c2", "_c3")),
    ("nohead.csv", "1,x,2.0\n2,y,3.0\n", ",", False, ("_c0", "_c1", "_c2")),
    ("bom.csv", "\ufeffid,name\n1,a\n", ",", True, ("id", "name")),
])
def test_delimiter_and_header_are_detected(tmp_path, name, content, delimiter, header, names):
    dialect = detect(_file(tmp_path, name, content), _zone())
    assert (dialect.delimiter, dialect.header, dialect.names) == (delimiter, header, names)
    assert dialect.spark_options()["sep"] == delimiter and not dialect.multiline


def test_quotes_doubled_inside_a_value_are_spark_s_escape(tmp_path):
    dialect = detect(_file(tmp_path, "q.csv", 'id,t\n1,"he said ""hi"", ok"\n'), _zone())
    assert (dialect.quote, dialect.escape, dialect.multiline) == ('"', '"', False)
    dialect = detect(_file(tmp_path, "b.csv", 'id,t\n1,"a \\" b"\n'), _zone())
    assert dialect.escape == "\\"


def test_multiline_only_for_a_file_whose_quoted_values_span_lines(tmp_path):
    assert detect(_file(tmp_path, "ml.csv", 'id,t\n1,"line one\nline two"\n2,x\n'), _zone()).multiline
    assert not detect(_file(tmp_path, "one.csv", 'id,t\n1,"a, b"\n2,x\n'), _zone()).multiline


def test_the_zone_s_settings_win_over_detection(tmp_path):
    path = _file(tmp_path, "nohead.csv", "1,x,2.0\n2,y,3.0\n")
    zone = _zone({"shop/z": {"csv": {"header": False}, "columns": ["id", "name", "amount"]}})
    assert detect(path, zone).names == ("id", "name", "amount")
    pinned = detect(_file(tmp_path, "semi2.csv", SEMI), _zone({"shop/z": {"csv": {"delimiter": "semicolon"}}}))
    assert pinned.delimiter == ";"
    with pytest.raises(RatError, match=r"nohead.csv has 3 column\(s\) but the zone's columns list names 2"):
        detect(path, _zone({"shop/z": {"csv": {"header": False}, "columns": ["id", "name"]}}))


def test_a_file_that_would_read_as_one_column_is_refused_naming_the_setting(tmp_path):
    path = _file(tmp_path, "semi.csv", SEMI)
    with pytest.raises(RatError) as caught:
        detect(path, _zone({"shop/z": {"csv": {"delimiter": ","}}}))
    assert str(caught.value) == ("semi.csv would read as one column although its first line holds ';'; set the "
                                 "zone's delimiter in rat.yaml (zones: {shop/z: {csv: {delimiter: ';'}}})")


def test_a_file_that_is_not_utf8_names_the_encoding_setting_and_reads_with_it(tmp_path):
    path = _file(tmp_path, "lat.csv", "id,name\n1,Müller\n2,Zoë\n".encode("cp1252"))
    with pytest.raises(RatError, match=r"lat.csv is not UTF-8 text .*encoding: cp1252"):
        detect(path, _zone())
    dialect = detect(path, _zone({"shop/z": {"csv": {"encoding": "cp1252"}}}))
    assert dialect.names == ("id", "name") and dialect.spark_options()["encoding"] == "windows-1252"


def test_gzip_is_sniffed_through(tmp_path):
    path = tmp_path / "g.csv.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("a;b\n1;2\n")
    assert detect(path, _zone()).delimiter == ";"


def test_dates_in_a_local_format_become_spark_patterns(tmp_path):
    assert spark_pattern("%d/%m/%Y") == "dd/MM/yyyy" and spark_pattern("%Y-%m-%d") is None
    dialect = detect(_file(tmp_path, "d.csv", "d,v\n31/12/2024,1\n01/02/2024,2\n"), _zone())
    assert dialect.date_format == "dd/MM/yyyy"


def test_bad_zone_settings_are_one_sentence_naming_the_key():
    with pytest.raises(RatError, match=r"zones.shop/z.csv.delimiter must be one character"):
        _zone({"shop/z": {"csv": {"delimiter": ";;"}}})
    with pytest.raises(RatError, match=r"zones.shop/z.bad_rows must be fail or quarantine"):
        _zone({"shop/z": {"bad_rows": "skip"}})


def test_detection_is_fast_and_cached(tmp_path):
    path = _file(tmp_path, "semi.csv", SEMI * 200)
    began = time.perf_counter()
    detect(path, _zone())
    first = time.perf_counter() - began
    began = time.perf_counter()
    detect(path, _zone())
    assert time.perf_counter() - began < first


def test_a_file_quoted_two_ways_still_finds_its_separator(tmp_path):
    """DuckDB's strict sniffer answered `|` (one column) for this file; the lenient one finds the comma."""
    tricky = ('id,name,amount\n1,"Smith, ""Jr""",1.5\n2,"back\\"slash",\n3,plain,2\n')
    dialect = detect(_file(tmp_path, "tricky.csv", tricky), _zone())
    assert (dialect.delimiter, dialect.header, dialect.names) == (",", True, ("id", "name", "amount"))


def test_a_header_wider_than_what_the_sniffer_reads_is_a_header(tmp_path):
    """3,000 `;` columns: the header alone passed the sniffer's 16 KB, its sample was cut to no line, and
    the file was read header-less: its header a row of data, every column `_cN` text."""
    header = ";".join(f"column_{i:05d}" for i in range(3000))
    rows = "".join(";".join(f"{r},{c % 10}" for c in range(3000)) + "\n" for r in range(20))
    dialect = detect(_file(tmp_path, "wide.csv", header + "\n" + rows), _zone())
    assert (dialect.delimiter, dialect.header) == (";", True)
    assert dialect.names[:2] == ("column_00000", "column_00001") and len(dialect.names) == 3000


def test_a_fixed_width_file_is_refused_not_loaded_as_one_column(tmp_path):
    """`ID  NAME      AMT` loaded as one column named so, with success and no note."""
    path = _file(tmp_path, "fw.txt", "ID  NAME      AMT\n001 Ada       10.50\n002 Grace     5.00\n")
    with pytest.raises(RatError) as raised:
        detect(path, _zone())
    assert str(raised.value).startswith("fw.txt would read as one column: its first line ('ID  NAME      AMT') "
                                        "looks like columns of fixed width"), str(raised.value)
    assert detect(_file(tmp_path, "one.csv", "full name\nAda Lovelace\n"), _zone()).names == ("full name",)
