"""When Spark's JVM dies under a pipeline (out of memory, or killed), the run says why in one sentence and
the next command of the same process gets a new JVM, instead of "Connection refused" for ever after."""
from __future__ import annotations

import signal
from pathlib import Path

import pytest

from rat_tui.core.lake.jvm_exit import exit_sentence
from tests.helpers import run_script

# Collects ~10 GB of strings into one row: more than any heap the test gives the driver
GREEDY = "SELECT size(l) AS n FROM (SELECT collect_list(repeat('x', 100000)) AS l FROM range(100000))"


@pytest.mark.spark
def test_a_run_that_exhausts_the_driver_says_so_and_the_next_commands_get_a_new_spark(tmp_path: Path):
    (tmp_path / "rat.yaml").write_text("spark:\n  master: local[1]\n  driver_memory: 512m\n")
    for name, sql in (("greedy", GREEDY), ("small", "SELECT 1 AS id")):
        folder = tmp_path / "demo" / "pipelines" / "bronze" / name
        folder.mkdir(parents=True)
        (folder / "pipeline.sql").write_text(sql + "\n")
    status, lines, _ = run_script(tmp_path, "run demo.bronze.greedy\nrun demo.bronze.small\n"
                                            "query SELECT id FROM demo.bronze.small\ndoctor\n", "--keep-going")
    assert status == 1
    greedy, small, query, doctor = lines
    error = greedy["run"]["error"]
    # Where the OutOfMemoryError lands decides whether Spark exits the JVM (a task's thread) or lives on (the
    # driver's own thread): which one happens varies from run to run; both say so, and what to change.
    assert error.startswith(("Spark stopped during this work: it ran out of memory (OutOfMemoryError: Java heap space)",
                             "Spark ran out of memory during this work (OutOfMemoryError: Java heap space) and "
                             "recovered")), error
    assert "spark.driver_memory in rat.yaml (now 512m)" in error
    assert small["run"]["status"] == "success", small
    assert query["rows"] == [[1]]
    assert doctor["findings"] == []  # the dead run's branch and state were cleaned like any crashed run's


def test_a_killed_jvm_names_the_signal_and_an_earlier_jvm_s_memory_error_is_no_cause(tmp_path: Path):
    log = tmp_path / "spark.log"
    log.write_text("26/11/26 07:30:50 ERROR Executor: java.lang.OutOfMemoryError: Java heap space\n")
    since = log.stat().st_size
    killed = exit_sentence(-signal.SIGKILL, log, since, None)
    assert killed.startswith("Spark stopped during this work: it was killed (SIGKILL)")
    assert "spark.driver_memory in rat.yaml (unset: Spark's default of 1g)" in killed and "memory (" not in killed
    assert "it exited with code 3" in exit_sentence(3, log, since, "2g")
    assert "OutOfMemoryError: Java heap space" in exit_sentence(52, log, 0, "2g")  # this JVM's own log lines


def test_a_jvm_on_its_way_out_after_an_out_of_memory_error_counts_as_dead(tmp_path: Path):
    """Spark exits the JVM on a task's OutOfMemoryError only after its shutdown hooks: the failed call
    returns first, and the run must still say the JVM died (and the next command get a new one)."""
    import subprocess
    import sys

    from rat_tui.core.lake.jvm_exit import LaunchedJvm

    dying = LaunchedJvm(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1); raise SystemExit(52)"]),
                        tmp_path / "spark.log", 0)
    assert dying.exit_code() is None
    assert not dying.died_of(RuntimeError("[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'"))
    assert dying.died_of(RuntimeError("query failed: Java heap space")), "it exits a second later"
    assert dying.exit_code() == 52
    unreadable = LaunchedJvm(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1); raise SystemExit(52)"]),
                             tmp_path / "spark.log", 0)
    assert unreadable.died_of(_UnreadableJavaError()), "its text could not be had: the JVM is on its way out"
    # The shutdown hook that follows a task's OutOfMemoryError cancels the running job: what the failed call
    # then says names no memory at all (CI, 2026-11-27: the run said "internal error (… Job 1 cancelled …)").
    cancelled = LaunchedJvm(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1); raise SystemExit(52)"]),
                            tmp_path / "spark.log", 0)
    assert cancelled.died_of(RuntimeError("An error occurred while calling o176.overwrite.\n: org.apache.spark."
                                          "SparkException: Job 1 cancelled because SparkContext was shut down"))
    alive = LaunchedJvm(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]), tmp_path / "x", 0)
    try:
        assert not alive.died_of(ValueError("no such column"))
    finally:
        alive.process.kill()


class _UnreadableJavaError(Exception):
    """A Py4JJavaError whose JVM is going: its str() asks the JVM for the stack trace, which fails."""
    errmsg = "An error occurred while calling o199.overwrite.\n"

    def __str__(self) -> str:
        raise ConnectionRefusedError(111, "Connection refused")


def test_a_java_error_whose_jvm_is_gone_still_has_a_text():
    """A Java exception's str() asks its JVM for the stack trace: with the JVM gone, that raised, and the
    run's error handler with it, so the run ended with no error at all."""
    from rat_tui.core.lake.jvm_exit import exception_text

    assert exception_text(_UnreadableJavaError()) == "An error occurred while calling o199.overwrite.\n"
    assert exception_text(ValueError("plain")) == "plain"
