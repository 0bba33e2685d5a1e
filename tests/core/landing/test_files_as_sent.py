"""Files read as their senders meant them (issue 35): a BOM settles its file's encoding, numbers and
identifiers keep what they were written as, a title above the header is no row. Each test writes its
files in the encodings and layouts named and asserts the table's rows and types after a real run."""
from __future__ import annotations

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


def test_a_bom_settles_its_file_in_a_cp1252_zone(scratch: Scratch):
    """A UTF-8 file with a BOM (`;`, CRLF) beside a cp1252 file, the zone set to cp1252: each file is read
    in its own encoding; no `ï»¿id` column, no NULL ids, no mojibake."""
    _zone_file(scratch, "mixed", "a.csv", "\ufeffid;name\r\n1;Nguyễn Co\r\n2;Zoë\r\n".encode("utf-8"))
    _zone_file(scratch, "mixed", "b.csv", "id;name\r\n3;Café Noël\r\n".encode("cp1252"))
    scratch.wb.set_zone_settings(scratch.ns, "mixed", csv={"encoding": "cp1252"})
    run = load_zone(scratch, "mixed")
    assert run["status"] == "success", run["error"]
    assert table_columns(scratch, run["fqn"]) == ["id", "name"]
    assert scratch.rows(f"SELECT id, name FROM {run['fqn']} ORDER BY id") == [
        [1, "Nguyễn Co"], [2, "Zoë"], [3, "Café Noël"]]


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
