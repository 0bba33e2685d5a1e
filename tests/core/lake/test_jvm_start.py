"""Spark's JVM starts from a class-data archive made once per install (rat_tui/core/lake/class_sharing.py), and a
one-shot process starts it tuned for a short life (session.ONE_SHOT_JIT)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rat_tui.core.lake import class_sharing
from rat_tui.core.lake.class_sharing import archive_path, sharing_options
from rat_tui.core.lake.java import driver_class_path, find_java_home, iceberg_jar
from rat_tui.core.project.settings import load_settings


def _spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def test_the_session_jvm_starts_from_the_install_archive(lake):
    java_home, jars, class_path = find_java_home(), str(iceberg_jar()), driver_class_path()
    archive = archive_path(java_home, jars, class_path)
    if archive is None:
        pytest.skip(f"the JDK at {java_home} has no base CDS archive, so no archive is made on top of it")
    assert archive.is_file(), f"the suite makes {archive} before its first JVM (tests/conftest.py)"
    jvm = lake.spark.session()._jvm
    arguments = list(jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments())
    assert f"-XX:SharedArchiveFile={archive}" in arguments
    # -Xshare:on refuses to start when the archive cannot be mapped (another JDK, another class path):
    # this start maps it, and Spark's own classes come from it.
    loaded = subprocess.run(
        [str(java_home / "bin" / "java"), "-Xshare:on", f"-XX:SharedArchiveFile={archive}",
         "-Xlog:class+load=info", "-cp", f"{class_path}:{_spark_home() / 'conf'}/:{_spark_home() / 'jars'}/*",
         "org.apache.spark.deploy.SparkSubmit", "--version"],
        capture_output=True, text=True, timeout=120, env={**os.environ, "SPARK_HOME": str(_spark_home())})
    assert loaded.returncode == 0, loaded.stdout[-2000:] + loaded.stderr[-2000:]
    from_archive = [line for line in loaded.stdout.splitlines()
                    if "org.apache.spark" in line and "shared objects file (top)" in line]
    assert from_archive, "no Spark class was mapped from the archive"


def test_an_archive_is_named_after_its_java_and_jars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("RAT_TUI_CACHE", str(tmp_path / "cache"))
    java_home = tmp_path / "jdk"
    (java_home / "lib" / "server").mkdir(parents=True)
    assert archive_path(java_home, "a.jar", "") is None, "a JDK without a base archive gets none"
    (java_home / "lib" / "server" / "classes.jsa").write_bytes(b"base")
    jar = tmp_path / "extra.jar"
    jar.write_bytes(b"one")
    ours = tmp_path / "ours.jar"
    ours.write_bytes(b"ours")
    first = archive_path(java_home, str(jar), str(ours))
    assert first is not None and first.parent == tmp_path / "cache" / "jvm"
    assert archive_path(java_home, str(jar), str(ours)) == first
    assert archive_path(java_home, f"{jar},{tmp_path / 'other.jar'}", str(ours)) != first
    assert archive_path(java_home, str(jar), f"{tmp_path / 'users.jar'}:{ours}") != first, \
        "another class path makes another archive (a JVM maps one only on the class path it was made with)"
    ours.write_bytes(b"ours, rebuilt")
    assert archive_path(java_home, str(jar), str(ours)) != first, "a changed jar on the class path makes a new archive"
    ours.write_bytes(b"ours")
    jar.write_bytes(b"a rebuilt jar")
    assert archive_path(java_home, str(jar), str(ours)) != first, "a changed jar makes a new archive"
    (java_home / "release").write_text('JAVA_VERSION="17.0.99"')
    assert archive_path(java_home, "a.jar", "") != archive_path(tmp_path / "missing", "a.jar", "")
    assert sharing_options(first) == [], "an archive not made yet is not asked for"
    first.parent.mkdir(parents=True)
    first.write_bytes(b"made")
    assert sharing_options(first) == [f"-XX:SharedArchiveFile={first}", "-Xshare:auto"]


def test_a_maker_lock_whose_process_is_gone_is_taken_over(tmp_path: Path):
    archive = tmp_path / "spark-x.jsa"
    lock = archive.with_suffix(".lock")
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    lock.write_text(str(gone.pid))
    assert not class_sharing._maker_running(archive)
    with class_sharing._maker_lock(archive, wait=False) as held:
        assert held and lock.read_text() == str(os.getpid())
        assert class_sharing._maker_running(archive), "a live maker keeps its lock"
        with class_sharing._maker_lock(archive, wait=False) as second:
            assert not second, "one maker per archive"
    assert not lock.exists()


def test_class_sharing_can_be_turned_off_in_rat_yaml(tmp_path: Path):
    (tmp_path / "rat.yaml").write_text("spark:\n  class_sharing: false\n")
    settings, problems = load_settings(tmp_path)
    assert problems == [] and settings.spark_class_sharing is False
    (tmp_path / "rat.yaml").write_text("spark:\n  class_sharing: maybe\n")
    settings, problems = load_settings(tmp_path)
    assert settings.spark_class_sharing is True
    assert "rat.yaml:2" in problems[0].sentence() and "class_sharing" in problems[0].sentence()


def java_options(project: Path) -> dict[bool, list[str]]:
    """The driver's JVM options of a one-shot process (True) and of an engine (False)."""
    from rat_tui.core.compose import open_project

    java_home = find_java_home()
    options = {}
    for one_shot in (True, False):
        workbench = open_project(project, one_shot=one_shot)
        try:
            conf = workbench.spark._conf(project / ".rat" / "logs", java_home)
        finally:
            workbench.close()
        options[one_shot] = conf["spark.driver.extraJavaOptions"].split()
    return options


def test_a_one_shot_process_tunes_the_jit_for_a_short_life_and_an_engine_does_not(sample_copy: Path, monkeypatch):
    from rat_tui.core.lake.session import ONE_SHOT_JIT

    monkeypatch.delenv("RAT_TUI_JIT", raising=False)  # the suite's own JVMs run with it (conftest)
    options = java_options(sample_copy)
    assert set(ONE_SHOT_JIT) <= set(options[True])
    assert not set(ONE_SHOT_JIT) & set(options[False])
    assert all(o.startswith(("-Dlog4j2.configurationFile=", "-XX:SharedArchiveFile", "-Xshare", "-Djava.io.tmpdir="))
               for o in options[False]), options[False]


@pytest.mark.spark
def test_the_suites_jvm_runs_c1_alone_with_tiered_compilations_code_cache(lake):
    """C1 alone shrinks the code cache to 48 MB; Spark's generated code filled it and the code sweeper became
    the busiest thread of a worker's JVM. The suite sets RAT_TUI_JIT=quick, so its own JVM shows the setting."""
    jvm = lake.spark.session().sparkContext._jvm
    bean = jvm.java.lang.management.ManagementFactory.getPlatformMXBean(
        jvm.java.lang.Class.forName("com.sun.management.HotSpotDiagnosticMXBean"))
    assert bean.getVMOption("TieredStopAtLevel").getValue() == "1"
    assert int(bean.getVMOption("ReservedCodeCacheSize").getValue()) == 240 * 1024 * 1024


def test_rat_tui_jit_quick_gives_every_process_c1_alone(sample_copy: Path, monkeypatch):
    """A CI machine (this suite among them) sets RAT_TUI_JIT=quick: many short sessions on small data, where C2
    compiling was three quarters of the JVMs' CPU."""
    from rat_tui.core.lake.session import ONE_SHOT_JIT, QUICK_JIT

    monkeypatch.setenv("RAT_TUI_JIT", "Quick")
    for kind, options in java_options(sample_copy).items():
        assert set(QUICK_JIT) <= set(options) and not set(ONE_SHOT_JIT) & set(options), (kind, options)
