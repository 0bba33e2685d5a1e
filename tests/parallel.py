"""The whole suite runs on pytest-xdist workers (pyproject's addopts: `-n auto --dist loadgroup`):

- how many: `WORKERS` when pytest is given no paths (the whole suite, any `-m`), none for a file or a
  test, where starting workers and their JVMs costs more than it saves; `-n N` or
  `PYTEST_XDIST_AUTO_NUM_WORKERS` decides otherwise. Much of a test's time is waiting (a child's JVM
  starting, a watcher's debounce, a pilot's pause), so more workers than cores pays.
- in what order: the longest first, so no long test starts last and ends the run alone: `process`
  tests, then `spark`, then `fast`, and within a tier by the time each took in the last run that timed
  it (pytest's cache), else in file order.
- together: the tests that share a module- or class-scoped fixture form one xdist group (one worker,
  one setup of the fixture).
- apart: each worker has a temporary folder of its own (tests that look for what a run left in the
  temporary folder see only their own worker's).
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

WORKERS = 3
TIER_ORDER = ("process", "spark", "fast")
DURATIONS_KEY = "rat-tui/durations"
# A whole run's times, in seconds (`python -m tests.parallel` writes the cache's into it): for the order only
COMMITTED_DURATIONS = Path(__file__).with_name("durations.json")


def worker_count(config: pytest.Config) -> int | None:
    """For `-n auto`: None defers to xdist (which reads PYTEST_XDIST_AUTO_NUM_WORKERS)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return WORKERS if config.args_source == pytest.Config.ArgsSource.TESTPATHS else 0


def recorded_durations(config: pytest.Config) -> dict[str, float]:
    """The times this checkout's last runs took, over those committed in COMMITTED_DURATIONS (a fresh clone,
    as CI runs, has no cache: in file order a 110 s test could start last). Every worker reads the same
    files, so all sort alike, as xdist requires of their collections."""
    cache = getattr(config, "cache", None)  # none under `-p no:cacheprovider`
    committed = json.loads(COMMITTED_DURATIONS.read_text()) if COMMITTED_DURATIONS.is_file() else {}
    return {**committed, **(cache.get(DURATIONS_KEY, {}) if cache else {})}


def order_longest_first(items: list[pytest.Item], took: dict[str, float]) -> None:
    def key(item: pytest.Item) -> tuple[int, float]:
        tier = next(i for i, name in enumerate(TIER_ORDER) if item.get_closest_marker(name))
        return tier, -took.get(item.nodeid, 0.0)

    items.sort(key=key)


def group_shared_fixtures(items: list[pytest.Item]) -> None:
    for item in items:
        defs = item._fixtureinfo.name2fixturedefs.values()
        if any(d.scope in ("module", "class") for fixturedefs in defs for d in fixturedefs):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


class Durations:
    """Records each test's time (setup, call and teardown) where the reports arrive (xdist's controller,
    or the one process), and keeps it in pytest's cache for the next run's order."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.took: dict[str, float] = {}

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        nodeid = report.nodeid
        if nodeid.rfind("@") > nodeid.rfind("]"):  # xdist's group suffix (loadgroup), as xdist reads it
            nodeid = nodeid.rsplit("@", 1)[0]
        self.took[nodeid] = self.took.get(nodeid, 0.0) + report.duration

    @pytest.hookimpl
    def pytest_sessionfinish(self) -> None:
        cache = getattr(self.config, "cache", None)
        if cache is not None and self.took:
            cache.set(DURATIONS_KEY, {**cache.get(DURATIONS_KEY, {}), **self.took})


def own_temporary_folder() -> str | None:
    """On an xdist worker: a temporary folder of its own for everything that asks `tempfile` (and, through
    TMPDIR, its children). The folder it made, to remove at the end."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        return None
    folder = tempfile.mkdtemp(prefix=f"rat-tests-{worker}-")
    # As /tmp: other users go through it (the JDBC tests' PostgreSQL runs as `postgres`; an attach test as `nobody`).
    os.chmod(folder, 0o1777)
    os.environ["TMPDIR"] = folder
    tempfile.tempdir = folder
    return folder


def remove_temporary_folder(folder: str | None) -> None:
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":  # `python -m tests.parallel`: the last whole run's times, for fresh clones' order
    cached = Path(__file__).resolve().parent.parent / ".pytest_cache" / "v" / DURATIONS_KEY
    took = json.loads(cached.read_text())
    COMMITTED_DURATIONS.write_text(json.dumps({k: round(v, 1) for k, v in sorted(took.items())}, indent=0) + "\n")
