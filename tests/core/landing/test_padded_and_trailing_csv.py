"""CSV shapes partners send that loaded wrong with a green run: fields padded around the delimiter, a
delimiter ending every line, and a `;` file whose text holds commas. Each test asserts the table's
columns and rows after the run, or the cause in the refusal."""
from __future__ import annotations

import pytest

from tests.core.landing.zone_runs import ARCHIVING, load_zone, table_columns
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark


@pytest.mark.parametrize("name, content", [
    ("a.csv", 'id , name , note\n1 , a , "  q "\n2 , b ,x\n'),
    ("a.tsv", 'id \t name \t note\n1 \t a \t "  q "\n2 \t b \tx\n'),
])
def test_padded_fields_load_trimmed_with_their_types_and_quoted_spaces_kept(scratch: Scratch, name: str,
                                                                           content: str):
    """Columns `id ` and ` name`, id DOUBLE (Java's number parsing trims, the integer check does not),
    names ` a`: and the run said success."""
    scratch.landing("pad", name, content)
    run = load_zone(scratch, "pad")
    assert run["status"] == "success", run["error"]
    assert table_columns(scratch, run["fqn"]) == ["id", "name", "note"]
    assert scratch.rows(f"SELECT typeof(id), id, name, note FROM {run['fqn']} ORDER BY id") == [
        ["int", 1, "a", "  q "], ["int", 2, "b", "x"]]


def test_a_padded_upload_is_typed_alike_and_a_later_unpadded_file_lands_in_the_same_columns(scratch: Scratch,
                                                                                           tmp_path):
    padded = tmp_path / "jan.csv"
    padded.write_text("id , name\n1 , a\n2 , b\n")
    assert scratch.wb.landing.upload(scratch.ns, "mem", [str(padded)]).typed == ["jan.csv"]
    fqn = scratch.pipeline("bronze", "p", ARCHIVING.format("mem"))
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    plain = tmp_path / "feb.csv"
    plain.write_text("id,name\n3,c\n")
    scratch.wb.landing.upload(scratch.ns, "mem", [str(plain)])  # checked against the columns the zone loaded
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert table_columns(scratch, fqn) == ["id", "name"]
    assert scratch.rows(f"SELECT typeof(id), id, name, _source_file FROM {fqn} ORDER BY id") == [
        ["int", 1, "a", "jan.csv"], ["int", 2, "b", "jan.csv"], ["int", 3, "c", "feb.csv"]]


@pytest.mark.parametrize("upload, content, rows", [
    (False, "id;name;\n1;a;\n2;b;\n", [[1, "a"], [2, "b"]]),
    (True, "id;name;\n1;a;\n2;b;\n", [[1, "a"], [2, "b"]]),
    # found by a new user: text columns alone, and the header's empty last cell made it a row (_c0, _c1, _c2)
    (False, "id,name,\nAda,London,\nGrace,New York,\n", [["Ada", "London"], ["Grace", "New York"]]),
], ids=["dropped-in", "uploaded", "text-columns"])
def test_a_delimiter_ending_every_line_adds_no_column(scratch: Scratch, tmp_path, upload: bool, content: str,
                                                     rows: list):
    """An extra column `_c2` full of NULLs, and the run said success."""
    if upload:
        source = tmp_path / "a.csv"
        source.write_text(content)
        assert scratch.wb.landing.upload(scratch.ns, "trail", [str(source)]).typed == ["a.csv"]
        sample = scratch.wb.landing.sample(scratch.ns, "trail").as_dict()
        assert (sample["columns"], sample["rows"]) == (["id", "name"], [[1, "a"], [2, "b"]])
    else:
        scratch.landing("trail", "a.csv", content)
    run = load_zone(scratch, "trail")
    assert run["status"] == "success", run["error"]
    assert table_columns(scratch, run["fqn"]) == ["id", "name"]
    assert scratch.rows(f"SELECT id, name FROM {run['fqn']} ORDER BY id") == rows


def test_an_unnamed_last_column_with_a_value_in_the_first_lines_stays_a_column(scratch: Scratch):
    scratch.landing("kept", "a.csv", "id;name;\n1;a;\n2;b;x\n")
    run = load_zone(scratch, "kept")
    assert run["status"] == "success", run["error"]
    assert table_columns(scratch, run["fqn"]) == ["id", "name", "_c2"]
    assert scratch.rows(f"SELECT id, name, _c2 FROM {run['fqn']} ORDER BY id") == [[1, "a", None], [2, "b", "x"]]


def test_a_value_past_the_first_lines_in_the_unnamed_last_column_is_refused_naming_file_and_line(scratch: Scratch):
    lines = 30_000  # past the part of the file detection reads (256 KB)
    scratch.landing("late", "a.csv", "id;name;\n" + "".join(f"{i};n{i};\n" for i in range(lines)) + f"{lines};n;z\n")
    run = load_zone(scratch, "late")
    assert run["status"] == "failed"
    assert (f"a.csv line {lines + 2:,} has a value ('z') in the last column, which the header leaves unnamed and "
            "the file's first lines leave empty") in run["error"], run["error"]
    assert not scratch.table_exists("bronze", "p")


def test_a_semicolon_file_whose_text_holds_commas_reads_as_its_columns(scratch: Scratch):
    scratch.landing("commas", "a.csv", "id;desc\n1;a, b, c\n")
    run = load_zone(scratch, "commas")
    assert run["status"] == "success", run["error"]
    assert table_columns(scratch, run["fqn"]) == ["id", "desc"]
    assert scratch.rows(f"SELECT id, desc FROM {run['fqn']}") == [[1, "a, b, c"]]


def test_a_file_with_the_header_of_one_whose_last_column_was_empty_keeps_its_own_values_there(tmp_path):
    """Files that start with the same header are sniffed once; the unnamed last column is each file's own."""
    from rat_tui.core.landing.dialect import detect
    from rat_tui.core.landing.zone_settings import ZoneReadSettings

    empty, filled = tmp_path / "a.csv", tmp_path / "b.csv"
    empty.write_text("id;name;\n1;a;\n")
    filled.write_text("id;name;\n2;b;x\n")
    assert (detect(empty, ZoneReadSettings()).names, detect(empty, ZoneReadSettings()).unnamed_last) == (
        ("id", "name"), True)
    assert (detect(filled, ZoneReadSettings()).names, detect(filled, ZoneReadSettings()).unnamed_last) == (
        ("id", "name", "_c2"), False)
