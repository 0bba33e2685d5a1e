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


@pytest.mark.parametrize("path, sentence", [
    ("ns/pipelines/silver/BadName", "ns/pipelines/silver/BadName: pipeline name 'BadName' breaks the naming rule"),
    ("ns/pipelines/platinum/p", "ns/pipelines/platinum/p: layer 'platinum' is not one of bronze, silver, gold"),
], ids=["pipeline-name", "layer"])
def test_a_preview_refuses_a_name_validate_refuses(tmp_path: Path, path: str, sentence: str):
    """Found by a new user: `validate` called BadName and a platinum layer errors, and `run` built them anyway
    (BadName and badname as two tables)."""
    (tmp_path / path).mkdir(parents=True)
    (tmp_path / path / "pipeline.sql").write_text("SELECT 1 AS id")
    wb = open_project(tmp_path)
    try:
        with pytest.raises(RatError) as raised:
            wb.console.preview(path.replace("/pipelines/", ".").replace("/", "."))
        assert raised.value.sentence().startswith(sentence)
        assert wb.spark.state.value == "stopped"  # refused before any Spark work
    finally:
        wb.close()
