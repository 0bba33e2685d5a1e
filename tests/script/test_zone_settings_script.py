"""`zone-settings` refuses what the TUI's dialog refuses, with the same sentence, and writes nothing."""
from __future__ import annotations

from pathlib import Path

import pytest

from rat_tui.core.compose import open_project
from tests.helpers import script


@pytest.mark.parametrize("days", ["0", "-3", "inf"])
def test_a_refused_retention_is_one_sentence_and_rat_yaml_is_untouched(sample_copy: Path, days: str):
    before = (sample_copy / "rat.yaml").read_text()
    status, results = script(open_project(sample_copy), f"zone-settings ecommerce orders --processed-max-age-days {days}\n")
    assert status == 1 and results[0]["ok"] is False
    assert results[0]["error"] == "processed_max_age_days must be a positive number of days"
    assert (sample_copy / "rat.yaml").read_text() == before


def test_a_positive_retention_is_saved(sample_copy: Path):
    status, results = script(open_project(sample_copy), "zone-settings ecommerce orders --processed-max-age-days 2.5\n")
    assert status == 0 and results[0]["settings"]["processed_max_age_days"] == 2.5
