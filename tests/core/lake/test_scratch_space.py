"""A local Spark's scratch files live under the install's cache folder, a folder per process, and a process
gone leaves none behind for long: each JVM killed left 45 MB (its copy of the Iceberg jar) in /tmp."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rat_tui.core.lake.class_sharing import cache_root
from rat_tui.core.lake.scratch_space import process_scratch


def test_the_folders_of_processes_gone_are_removed_and_running_ones_kept(tmp_path: Path):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = tmp_path / "tmp" / gone.stdout.strip()
    (dead / "spark-1" / "userFiles-1").mkdir(parents=True)
    (dead / "spark-1" / "userFiles-1" / "iceberg.jar").write_bytes(b"x" * 1024)
    running = tmp_path / "tmp" / str(os.getppid())  # this test's parent: running
    running.mkdir()
    other = tmp_path / "tmp" / "notes"  # not a process's: left alone
    other.mkdir()
    mine = process_scratch(tmp_path / "tmp")
    assert mine == tmp_path / "tmp" / str(os.getpid()) and mine.is_dir()
    assert not dead.exists() and running.is_dir() and other.is_dir()


@pytest.mark.spark
def test_the_shared_session_keeps_its_scratch_in_its_process_folder_outside_the_project(lake):
    spark = lake.spark.session()
    scratch = cache_root() / "tmp" / str(os.getpid())
    assert spark.conf.get("spark.local.dir") == str(scratch)
    files = spark.sparkContext._jvm.org.apache.spark.SparkFiles.getRootDirectory()
    assert Path(files).is_relative_to(scratch), files  # the jar's copy for the executor too
    assert spark.sparkContext._jvm.java.lang.System.getProperty("java.io.tmpdir") == str(scratch)
