"""Shared fixtures: a private copy of the sample project per test, one JVM per test session (the `lake`
fixture's; a `spark` test that opens a Workbench of its own gets a session of its own on it), and the
test tiers (tests/tiers.py): `fast`, `spark`, `process`, marked from what each test uses."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from devkit.sample import copy_sample, pristine_sample
from tests import parallel
from tests.tiers import forbid_spark, mark_tiers, share_the_lake_jvm

# The committed sample, never the working tree (which running the sample changes).
SAMPLE = pristine_sample()
pytest_plugins = ["pytester"]  # tests/test_parallel.py
_TEMPORARY = pytest.StashKey[str | None]()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_TEMPORARY] = parallel.own_temporary_folder()
    # Every JVM of the suite (the lake's, each child's) lives short on small data: C1 alone spends a quarter
    # less CPU, on a machine the suite keeps busy (rat_tui/core/lake/session.py: QUICK_JIT). Set before any starts.
    os.environ.setdefault("RAT_TUI_JIT", "quick")
    if not hasattr(config, "workerinput"):  # the reports arrive at xdist's controller (or the one process)
        config.pluginmanager.register(parallel.Durations(config), "rat-tui-durations")


def pytest_unconfigure(config: pytest.Config) -> None:
    parallel.remove_temporary_folder(config.stash.get(_TEMPORARY, None))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    return parallel.worker_count(config)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mark_tiers(items)
    parallel.group_shared_fixtures(items)
    parallel.order_longest_first(items, parallel.recorded_durations(config))


@pytest.fixture(autouse=True)
def _tier(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """A `spark` test gets the `lake` JVM before anything of its own starts Spark (a Workbench it opens
    gets a session of its own on that JVM, whatever ran before); any other test fails if it starts Spark."""
    if request.node.get_closest_marker("spark"):
        share_the_lake_jvm(monkeypatch, request.getfixturevalue("lake").spark.session())
        yield
        return
    started: list[str] = []
    forbid_spark(monkeypatch, request.node.nodeid, started)
    yield
    if started:  # also when the attempt was in a thread that swallowed the error
        pytest.fail(started[0], pytrace=False)


@pytest.fixture(scope="session", autouse=True)
def _class_archive(request: pytest.FixtureRequest) -> None:
    """Spark's class-data archive is made before the session's first JVM, as an install makes it once:
    every JVM of the suite (the lake's, each child's) then starts from it (rat_tui/core/lake/class_sharing.py)."""
    if all(item.get_closest_marker("fast") for item in request.session.items):
        return
    from rat_tui.core.lake.class_sharing import ensure_bundled_archive

    ensure_bundled_archive()


@pytest.fixture
def sample_copy(tmp_path: Path) -> Path:
    return copy_sample(tmp_path / "project")


@pytest.fixture(scope="session")
def lake(tmp_path_factory: pytest.TempPathFactory):
    """One Workbench (and so one Spark session) for the whole test session.

    Spark caches a catalog once loaded, so all Spark tests share this project folder and
    each test writes its own namespace (see `tests.lakehelpers.Scratch`).
    """
    from rat_tui.core.compose import open_project

    root = copy_sample(tmp_path_factory.mktemp("lake") / "project")
    workbench = open_project(root)
    workbench.spark.session(timeout=180)
    yield workbench
    workbench.close()


@pytest.fixture
def scratch(lake, request: pytest.FixtureRequest):
    """A fresh namespace in the shared lake, named after the test."""
    from tests.lakehelpers import Scratch

    return Scratch.create(lake, request.node.name)


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory):
    """A real S3 server (SeaweedFS) for the whole test session; each test makes its own bucket."""
    from devkit.s3server import SeaweedServer

    server = SeaweedServer(tmp_path_factory.mktemp("seaweed"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def s3_env(s3_server, monkeypatch: pytest.MonkeyPatch):
    """The server's credentials in the AWS environment variables, as a user would set them."""
    from devkit.s3server import ACCESS_KEY, SECRET_KEY

    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
    return s3_server


@pytest.fixture
def pushed(s3_env, tmp_path: Path):
    """The sample project pushed to a fresh bucket from folder `a`: (Workbench, bucket name)."""
    from rat_tui.core.compose import open_project
    from tests.s3helpers import bucket_project, new_bucket

    bucket = new_bucket(s3_env)
    wb = open_project(bucket_project(tmp_path / "a", s3_env, bucket, SAMPLE))
    wb.bucket.push()
    return wb, bucket
