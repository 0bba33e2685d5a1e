"""The suite's xdist set-up (tests/parallel.py): how many workers, the order they take the tests in,
the tests kept on one worker, and each worker's own temporary folder."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest

from tests import parallel

# The inner sessions leave out the snapshot plugins: they keep their report's folder in the environment.
ALONE = ("-p", "no:textual-snapshot", "-p", "no:syrupy", "-p", "no:xdist")
REPO = Path(__file__).resolve().parent.parent

SOURCE = """
import pytest

@pytest.fixture(scope="module")
def shared():
    return 1

def test_quick(): pass
def test_slow(): pass
def test_child(): pass
def test_slower_child(): pass
def test_on_the_shared_fixture(shared): pass
"""


def test_the_whole_suite_gets_workers_and_a_file_or_a_test_none(pytester: pytest.Pytester, monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    pytester.makeini("[pytest]\ntestpaths = .\n")
    pytester.makepyfile(test_a="def test_one(): pass\n")
    assert parallel.worker_count(pytester.parseconfig()) == parallel.WORKERS
    assert parallel.worker_count(pytester.parseconfig("test_a.py")) == 0
    assert parallel.worker_count(pytester.parseconfig("-m", "fast")) == parallel.WORKERS
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "5")  # xdist's own setting wins
    assert parallel.worker_count(pytester.parseconfig()) is None


TIERS = {"test_quick": "fast", "test_slow": "fast", "test_child": "process", "test_slower_child": "process",
         "test_on_the_shared_fixture": "spark"}


def collected(pytester: pytest.Pytester) -> list[pytest.Item]:
    """SOURCE's tests in file order, each marked with its tier."""
    items = pytester.inline_genitems(pytester.makepyfile(SOURCE), *ALONE)[0]
    for item in items:
        item.add_marker(TIERS[item.name])
    return items


def test_process_tests_first_then_spark_then_fast_and_the_slowest_first_within_a_tier(pytester: pytest.Pytester):
    items = collected(pytester)
    took = {item.nodeid: seconds for item in items
            for name, seconds in (("test_slow", 3.0), ("test_child", 10.0), ("test_slower_child", 40.0))
            if item.name == name}
    parallel.order_longest_first(items, took)
    assert [item.name for item in items] == ["test_slower_child", "test_child", "test_on_the_shared_fixture",
                                             "test_slow", "test_quick"]


def test_without_recorded_times_the_tiers_keep_file_order(pytester: pytest.Pytester):
    items = collected(pytester)
    parallel.order_longest_first(items, {})
    assert [item.name for item in items] == ["test_child", "test_slower_child", "test_on_the_shared_fixture",
                                             "test_quick", "test_slow"]


def test_the_tests_of_a_module_scoped_fixture_form_one_group(pytester: pytest.Pytester):
    items = collected(pytester)
    parallel.group_shared_fixtures(items)
    grouped = {item.name: [m.args for m in item.iter_markers("xdist_group")] for item in items}
    assert grouped["test_on_the_shared_fixture"] == [(items[0].nodeid.split("::")[0],)]
    assert grouped["test_quick"] == grouped["test_child"] == []


def test_the_durations_of_a_run_are_kept_for_the_next_runs_order(pytester: pytest.Pytester, monkeypatch):
    pytester.makeconftest("""
from tests import parallel

def pytest_configure(config):
    config.pluginmanager.register(parallel.Durations(config), "durations")
""")
    pytester.makepyfile(test_a="import time\ndef test_one(): time.sleep(0.2)\ndef test_two(): pass\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    pytester.runpytest_subprocess(*ALONE).assert_outcomes(passed=2)
    took = json.loads((pytester.path / ".pytest_cache/v" / parallel.DURATIONS_KEY).read_text())
    assert set(took) == {"test_a.py::test_one", "test_a.py::test_two"}
    assert took["test_a.py::test_one"] >= 0.2 > took["test_a.py::test_two"]


def test_a_worker_has_a_temporary_folder_of_its_own_that_others_may_enter(monkeypatch):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw7")
    monkeypatch.setattr(tempfile, "tempdir", None)
    monkeypatch.setenv("TMPDIR", tempfile.gettempdir())
    folder = parallel.own_temporary_folder()
    try:
        assert tempfile.gettempdir() == os.environ["TMPDIR"] == folder
        assert os.path.basename(folder).startswith("rat-tests-gw7-")
        assert os.stat(folder).st_mode & 0o7777 == 0o1777  # as /tmp: the `postgres` user's server writes there
    finally:
        parallel.remove_temporary_folder(folder)
    assert not os.path.exists(folder)


def test_a_fresh_clone_orders_by_the_committed_times_and_a_checkouts_own_runs_win(pytester: pytest.Pytester,
                                                                                 monkeypatch):
    """CI runs a fresh clone: without pytest's cache the tiers kept file order, so a 110 s test could start
    last and end the run alone."""
    committed = pytester.path / "durations.json"
    committed.write_text(json.dumps({"test_a.py::test_one": 1.0, "test_a.py::test_two": 9.0}))
    monkeypatch.setattr(parallel, "COMMITTED_DURATIONS", committed)
    pytester.makepyfile(test_a="def test_one(): pass\ndef test_two(): pass\n")
    assert parallel.recorded_durations(pytester.parseconfig("-p", "no:cacheprovider")) == {
        "test_a.py::test_one": 1.0, "test_a.py::test_two": 9.0}
    config = pytester.parseconfigure(*ALONE)
    config.cache.set(parallel.DURATIONS_KEY, {"test_a.py::test_one": 20.0})
    assert parallel.recorded_durations(config) == {"test_a.py::test_one": 20.0, "test_a.py::test_two": 9.0}
    assert json.loads((REPO / "tests" / "durations.json").read_text())  # the suite's own is committed
