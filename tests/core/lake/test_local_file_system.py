"""Spark's local files are written through our Hadoop file system (java/rattui/hadoop/NioLocalFileSystem.java),
which sets permissions with a system call where Hadoop's starts a `chmod` process per file."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from py4j.protocol import Py4JJavaError

from devkit.hadoop_jar import built_from, source_digest
from rat_tui.core.lake.java import LOCAL_FILE_SYSTEM, hadoop_jar


def test_the_committed_jar_is_built_from_the_sources_in_java():
    assert built_from(hadoop_jar()) == source_digest(), \
        "java/ changed since the jar was built: rebuild it with `python -m devkit.hadoop_jar`"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.spark
def test_local_files_get_hadoops_permissions_without_a_chmod_process(lake, tmp_path: Path):
    spark = lake.spark.session()
    jvm = spark._jvm
    fs = jvm.org.apache.hadoop.fs.FileSystem.getLocal(spark._jsc.hadoopConfiguration())
    assert fs.getClass().getName() == LOCAL_FILE_SYSTEM
    written = tmp_path / "made" / "by" / "hadoop.txt"
    out = fs.create(jvm.org.apache.hadoop.fs.Path(str(written)))
    out.write(bytearray(b"rows"))
    out.close()
    assert written.read_bytes() == b"rows"
    # Hadoop's defaults under its umask 022, as its chmod gave them
    assert _mode(written) == 0o644 and _mode(written.parent) == 0o755 and _mode(written.parent.parent) == 0o755
    fs.setPermission(jvm.org.apache.hadoop.fs.Path(str(written)), jvm.org.apache.hadoop.fs.permission.FsPermission(
        "640"))
    assert _mode(written) == 0o640
    # Hadoop's chmod process fails with its exit code; the system call names the missing file
    with pytest.raises(Py4JJavaError) as missing:
        fs.setPermission(jvm.org.apache.hadoop.fs.Path(str(tmp_path / "missing")),
                         jvm.org.apache.hadoop.fs.permission.FsPermission("600"))
    assert missing.value.java_exception.getClass().getName() == "java.nio.file.NoSuchFileException"
    # a sticky bit is beyond java.nio: Hadoop's own way sets it
    fs.setPermission(jvm.org.apache.hadoop.fs.Path(str(written.parent)),
                     jvm.org.apache.hadoop.fs.permission.FsPermission("1755"))
    assert written.parent.stat().st_mode & stat.S_ISVTX and _mode(written.parent) == 0o1755


def conf_of(project: Path) -> dict[str, str]:
    from rat_tui.core.compose import open_project
    from rat_tui.core.lake.java import find_java_home

    workbench = open_project(project)
    try:
        return workbench.spark._conf(project / ".rat" / "logs", find_java_home())
    finally:
        workbench.close()


def test_a_local_session_writes_through_our_file_system_and_a_cluster_keeps_hadoops(sample_copy: Path):
    conf = conf_of(sample_copy)
    assert conf["spark.hadoop.fs.file.impl"] == LOCAL_FILE_SYSTEM
    assert conf["spark.driver.extraClassPath"] == str(hadoop_jar())
    rat_yaml = sample_copy / "rat.yaml"
    original = rat_yaml.read_text()
    users = str(sample_copy / "users.jar")
    rat_yaml.write_text(original.replace("  conf:\n", f"  conf:\n    spark.driver.extraClassPath: {users}\n", 1))
    conf = conf_of(sample_copy)
    assert conf["spark.driver.extraClassPath"] == f"{users}{os.pathsep}{hadoop_jar()}", "the user's entries are kept"
    rat_yaml.write_text(original.replace("  conf:\n", "  conf:\n    spark.hadoop.fs.file.impl: my.FileSystem\n", 1))
    assert conf_of(sample_copy)["spark.hadoop.fs.file.impl"] == "my.FileSystem", "the user's own file system wins"
    # a cluster's executors run in JVMs without our jar
    rat_yaml.write_text(original.replace("master: local[2]", "master: spark://127.0.0.1:7077", 1))
    conf = conf_of(sample_copy)
    assert "spark.hadoop.fs.file.impl" not in conf and conf["spark.driver.extraClassPath"] == str(hadoop_jar())
