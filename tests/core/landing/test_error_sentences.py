"""DuckDB's errors about a landing file are whole sentences (issue 28 item 5): its messages put a headline
first and the cause on the lines after it, which a cut at the first line lost."""
from __future__ import annotations

from pathlib import Path

import pytest

from rat_tui.core.errors import RatError
from rat_tui.core.landing.preview import read_head
from rat_tui.core.landing.uploads import check_file
from rat_tui.core.landing.zone_settings import read_settings
from rat_tui.core.project.settings import Settings

RAGGED = "a,b,c\n1,2,3\n4,5,6,7,8\n9,10,11\n"  # a row with five values under a three-column header


def _sentence(call) -> str:
    with pytest.raises(RatError) as caught:
        call()
    return caught.value.sentence()


def _assert_one_line_without_boilerplate(sentence: str) -> None:
    assert "\n" not in sentence and "  " not in sentence
    # DuckDB's own knobs and the pointer into our SQL are not the user's business; nor is the temporary copy
    for noise in ("Possible fixes", "strict_mode", "LINE 1:", "^^^", "rat-sniff-", "rat-head-"):
        assert noise not in sentence


def test_an_unsniffable_file_says_why_detection_failed(tmp_path: Path):
    """A quote left open under a pinned quote: DuckDB's headline is 'Error when sniffing file …', the cause
    (no dialect found, and which candidates it tried) is on the lines after it."""
    path = tmp_path / "open_quote.csv"
    path.write_text('a,b\n1,"x\n')
    settings = read_settings(Settings(zones={"shop/z": {"csv": {"delimiter": ",", "quote": '"'}}}), "shop", "z")
    sentence = _sentence(lambda: check_file(path, None, settings))
    assert sentence.startswith("cannot detect how open_quote.csv is written (")
    assert 'Error when sniffing file "open_quote.csv". It was not possible to automatically detect the CSV ' \
           "parsing dialect." in sentence
    assert "Delimiter Candidates: ','" in sentence
    assert "zones: {shop/z: {csv: {delimiter: ..., header: ...}}}" in sentence
    _assert_one_line_without_boilerplate(sentence)


def test_a_preview_that_duckdb_cannot_read_says_why(tmp_path: Path):
    path = tmp_path / "ragged.csv"
    path.write_text(RAGGED)
    sentence = _sentence(lambda: read_head(path, 5))
    assert sentence.startswith('cannot read ragged.csv: Invalid Input Error: Error when sniffing file "ragged.csv".')
    assert "It was not possible to automatically detect the CSV parsing dialect" in sentence
    _assert_one_line_without_boilerplate(sentence)


def test_a_json_lines_file_with_a_bad_line_is_named_with_the_line_a_run_names(tmp_path: Path):
    """Found by a new user: upload said DuckDB's `at byte 16 in line 4` where the run said line 3 (the bad one)."""
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": 1, "v": "a"}\n{"id": 2, "v": "b"}\n{"id": 3, "v": }\n{"id": 4, "v": "d"}\n')
    assert _sentence(lambda: read_head(path, 5)) == (
        "bad.jsonl line 3 is not one JSON object (expecting value: '{\"id\": 3, \"v\": }'); fix the file")
