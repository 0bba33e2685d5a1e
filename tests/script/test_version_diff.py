"""`version-diff NS.LAYER.NAME VERSION`: a published version against the working copy, file by file."""
from __future__ import annotations

from pathlib import Path

from tests.helpers import run_script_here

FQN = "ecommerce.gold.monthly_orders"
SOURCE = "ecommerce/pipelines/gold/monthly_orders/pipeline.sql"


def test_version_diff_lists_the_files_that_differ(sample_copy: Path):
    original = (sample_copy / SOURCE).read_text()
    script = (f"publish {FQN} -m first\n"
              f"version-diff {FQN} 1\n"
              f"write {SOURCE} <<EOF\n{original}-- a working-copy edit\nEOF\n"
              f"version-diff {FQN} 1\n"
              f"version-diff {FQN} 7\n")
    status, results, stderr = run_script_here(sample_copy, script, "--keep-going")
    assert status == 1, (results, stderr)
    assert results[1] == {"line": 2, "cmd": "version-diff", "ok": True, "files": []}
    [changed] = results[3]["files"]
    assert changed["path"] == "pipeline.sql"
    assert changed["diff"].startswith("--- v1/pipeline.sql\n+++ working/pipeline.sql\n")
    assert "+-- a working-copy edit\n" in changed["diff"]
    assert results[4]["ok"] is False
    assert results[4]["error"] == f"{FQN} has no published version 7 (kept versions: 1)"
