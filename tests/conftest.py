"""Shared fixtures: a private copy of the sample project per test, one Spark session per test session."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "sample_project"


@pytest.fixture
def sample_copy(tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(SAMPLE, target, ignore=shutil.ignore_patterns(".rat", "warehouse", "__pycache__"))
    return target
