"""The test tiers (tests/tiers.py): a child `rat_tui` is found in the helpers a test calls, a test gets
its tier without a mark, and a test outside the `spark` tier that starts Spark is refused in a sentence."""
from __future__ import annotations

from pathlib import Path

import pytest

from rat_tui.core.errors import RatError
from rat_tui.core.events import EventBus
from rat_tui.core.lake.session import SparkManager
from rat_tui.core.project.model import Project
from rat_tui.core.storage import Storage
from tests import helpers, killhelpers
from tests.tiers import forbid_spark, starts_children


def test_helpers_that_start_a_child_rat_tui_are_told_from_those_that_run_it_here():
    children = {f.__name__: starts_children(f) for f in (helpers.run_cli, helpers.run_script, killhelpers.kill_at,
                                                         killhelpers.PausedRun.__init__)}
    here = {f.__name__: starts_children(f) for f in (helpers.run_cli_here, helpers.run_script_here, helpers.script,
                                                     helpers.dead_pid)}
    assert children == {"run_cli": True, "run_script": True, "kill_at": True, "__init__": True}
    assert here == {"run_cli_here": False, "run_script_here": False, "script": False, "dead_pid": False}


def test_a_test_without_spark_or_children_is_marked_fast(request: pytest.FixtureRequest):
    assert [m.name for m in request.node.iter_markers() if m.name in ("fast", "spark", "process")] == ["fast"]


def test_starting_spark_outside_the_spark_tier_is_refused_in_a_sentence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    started: list[str] = []
    forbid_spark(monkeypatch, "tests/x.py::test_y", started)
    project = Project(tmp_path)
    with pytest.raises(RatError, match="the Spark session failed to start"):
        SparkManager(project, EventBus(), Storage(project)).session(timeout=120)
    assert started == ["tests/x.py::test_y starts Spark but is not in the `spark` tier: give it the `lake` (or "
                       "`scratch`) fixture, or mark it `@pytest.mark.spark` if it opens a Workbench of its own "
                       "(tests/tiers.py)"]
