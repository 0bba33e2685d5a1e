"""Samples and previews decode like runs (issue 35, item 7): in a cp1252 zone the preview of a zone that
holds nothing new read its UTF-8 samples as cp1252 (`CafÃ© NoÃ«l`), `U` wrote that into preview.yaml, and
the preview read the samples of every file ever archived, so a row sent again appeared twice."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark


def _upload(scratch: Scratch, tmp_path: Path, name: str, text: str) -> None:
    source = tmp_path / name
    source.write_bytes(text.encode("cp1252"))
    scratch.wb.landing.upload(scratch.ns, "cafe", [str(source)])


def test_a_cp1252_zones_preview_reads_its_latest_samples_as_its_files_read(scratch: Scratch, tmp_path: Path):
    (scratch.root / "landing" / "cafe").mkdir(parents=True)
    scratch.wb.landing.set_zone_settings(scratch.ns, "cafe", csv={"encoding": "cp1252"})
    fqn = scratch.pipeline("bronze", "cafe", "-- @merge_strategy: append_only\n-- @archive_landing_zones: true\n"
                           "SELECT id, name FROM {{ landing_zone('cafe') }}")
    _upload(scratch, tmp_path, "batch1.csv", "id;name\n1;Café Noël\n")
    assert scratch.run(fqn)["status"] == "success"
    preview = scratch.wb.console.preview(fqn).as_dict()
    assert preview["rows"] == [[1, "Café Noël"]]
    assert preview["note"] == f"{scratch.ns}/landing/cafe holds nothing new: read its _samples/"
    # A later export sends row 1 again: the preview reads the latest batch's sample, not every batch's
    _upload(scratch, tmp_path, "batch2.csv", "id;name\n1;Café Noël\n2;Zoë Brontë\n")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id, name FROM {fqn} ORDER BY id, name") == [
        [1, "Café Noël"], [1, "Café Noël"], [2, "Zoë Brontë"]]
    assert scratch.wb.console.preview(fqn).as_dict()["rows"] == [[1, "Café Noël"], [2, "Zoë Brontë"]]
    # U: the unit test written from the preview holds the names as sent
    written = scratch.wb.unit_tests.unit_fixture(fqn).as_dict()
    text = (scratch.wb.project.root / written["path"]).read_text(encoding="utf-8")
    assert "Zoë Brontë" in text and "Ã" not in text
    # The zone panel's preview of a sample reads it as its file
    assert scratch.wb.landing.sample(scratch.ns, "cafe", "_samples/batch2_sample.csv").as_dict()["rows"] == [
        [1, "Café Noël"], [2, "Zoë Brontë"]]
