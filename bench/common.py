"""Shared set-up for benchmarks: a throw-away project and a warm Workbench."""
from __future__ import annotations

import shutil
import tempfile
import textwrap
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from rat_tui.core.compose import Workbench, open_project


def scratch_project(name: str) -> Path:
    root = Path(tempfile.mkdtemp(prefix=f"rat-bench-{name}-")) / "project"
    (root / "bench" / "pipelines").mkdir(parents=True)
    return root


def write_pipeline(root: Path, layer: str, name: str, sql: str) -> str:
    base = root / "bench" / "pipelines" / layer / name
    base.mkdir(parents=True, exist_ok=True)
    (base / "pipeline.sql").write_text(textwrap.dedent(sql).lstrip())
    return f"bench.{layer}.{name}"


@contextmanager
def warm_workbench(root: Path) -> Iterator[Workbench]:
    wb = open_project(root)
    began = time.monotonic()
    wb.spark.session(timeout=300)
    print(f"cold Spark session start: {time.monotonic() - began:.2f} s")
    try:
        yield wb
    finally:
        wb.close()
        shutil.rmtree(root.parent, ignore_errors=True)


def rss_mb() -> float:
    """This process's resident memory now (ru_maxrss is only the peak)."""
    import os

    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def timed(fn) -> tuple[float, object]:
    began = time.monotonic()
    result = fn()
    return time.monotonic() - began, result


def cpu_clock(spark):
    """A function giving the CPU seconds used so far by Spark's JVM and this process together: on a machine
    shared with other work, CPU time moves far less with the load than wall time does."""
    import os

    pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
    tick = os.sysconf("SC_CLK_TCK")

    def used() -> float:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        mine = os.times()
        return (int(fields[11]) + int(fields[12])) / tick + mine.user + mine.system

    return used
