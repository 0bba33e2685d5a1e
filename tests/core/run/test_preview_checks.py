"""A preview refuses what a run refuses before Spark: one loading path (run/loading.py) for both."""
from __future__ import annotations

from pathlib import Path

import pytest

from rat_tui.core.compose import open_project
from rat_tui.core.errors import RatError

BASE = "ns/pipelines/silver/p"


@pytest.mark.parametrize("files, sentence", [
    ({"pipeline.sql": "SELECT 1 AS id", "tests/quality/t.sql": "SELECT * FROM {{ this }\n"},
     f"{BASE}/tests/quality/t.sql:1: Jinja syntax error"),
    ({"pipeline.sql": "SELECT 1\n{% if %}"}, f"{BASE}/pipeline.sql:2: Jinja syntax error"),
], ids=["quality-test", "source"])
def test_a_preview_checks_the_templates_a_run_checks(tmp_path: Path, files: dict[str, str], sentence: str):
    for name, text in files.items():
        path = tmp_path / BASE / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    wb = open_project(tmp_path)
    try:
        with pytest.raises(RatError) as raised:
            wb.console.preview("ns.silver.p")
        assert raised.value.sentence().startswith(sentence), raised.value.sentence()
        assert wb.spark.state.value == "stopped"  # refused before any Spark work
    finally:
        wb.close()
