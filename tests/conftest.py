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


@pytest.fixture(scope="session")
def lake(tmp_path_factory: pytest.TempPathFactory):
    """One Workbench (and so one Spark session) for the whole test session.

    Spark caches a catalog once loaded, so all Spark tests share this project folder and
    each test writes its own namespace (see `tests.lakehelpers.Scratch`).
    """
    from rat_tui.core.workbench import Workbench

    root = tmp_path_factory.mktemp("lake") / "project"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".rat", "warehouse", "__pycache__"))
    workbench = Workbench(root)
    workbench.spark.session(timeout=180)
    yield workbench
    workbench.close()


@pytest.fixture
def scratch(lake, request: pytest.FixtureRequest):
    """A fresh namespace in the shared lake, named after the test."""
    from tests.lakehelpers import Scratch

    return Scratch.create(lake, request.node.name)
