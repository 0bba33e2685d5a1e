"""Python pipelines: `run(spark, ctx)`, result conversion, and the AST guard."""
from __future__ import annotations

import pytest

from rat_tui.core.project.python_guard import python_problems
from tests.lakehelpers import Scratch, copy_sample_namespace

GOOD = "def run(spark, ctx):\n    return spark.range(3)\n"


@pytest.mark.parametrize("snippet, construct, line", [
    ("import os", "import of 'os'", 1),
    ("import sys", "import of 'sys'", 1),
    ("import subprocess", "import of 'subprocess'", 1),
    ("import socket", "import of 'socket'", 1),
    ("import shutil", "import of 'shutil'", 1),
    ("from pathlib import Path", "import from 'pathlib'", 1),
    ("import importlib.util", "import of 'importlib.util'", 1),
    ("import ctypes", "import of 'ctypes'", 1),
    ("import pickle", "import of 'pickle'", 1),
    ("import multiprocessing", "import of 'multiprocessing'", 1),
    ("from threading import Thread", "import from 'threading'", 1),
    ("x = 1\neval('1')", "call of eval()", 2),
    ("exec('x = 1')", "call of exec()", 1),
    ("compile('1', 'f', 'eval')", "call of compile()", 1),
    ("open('/etc/passwd')", "call of open()", 1),
    ("__import__('os')", "call of __import__()", 1),
    ("getattr(run, '__globals__')", "getattr() on '__globals__'", 1),
    ("setattr(run, '__doc__', 'x')", "setattr() on '__doc__'", 1),
    ("y = ().__class__", "access to '__class__'", 1),
    ("y = run.__globals__", "access to '__globals__'", 1),
    ("y = object.__subclasses__()", "access to '__subclasses__'", 1),
    ("y = __builtins__", "use of '__builtins__'", 1),
])
def test_each_forbidden_construct_is_rejected_with_line(snippet: str, construct: str, line: int):
    problems = python_problems(snippet + "\n" + GOOD, "ns/pipelines/bronze/p/pipeline.py")
    assert [(p.path, p.line, p.message) for p in problems] == [
        ("ns/pipelines/bronze/p/pipeline.py", line, f"{construct} is not allowed in a Python pipeline")]


def test_missing_run_and_syntax_errors():
    assert python_problems("x = 1\n", "p.py")[0].message == "a Python pipeline must define run(spark, ctx)"
    problem = python_problems("def run(spark, ctx):\n    return (\n", "p.py")[0]
    assert problem.message.startswith("Python syntax error") and problem.line == 2


def test_allowed_imports_pass():
    assert python_problems("import math\nfrom pyspark.sql import functions as F\n" + GOOD, "p.py") == []


@pytest.mark.spark
def test_sample_python_pipeline_runs(scratch: Scratch):
    copy_sample_namespace(scratch)
    run = scratch.run(f"{scratch.ns}.bronze.raw_events")
    assert run["status"] == "success", run["error"]
    assert run["rows_written"] == 200
    assert scratch.rows(f"SELECT COUNT(DISTINCT event_type), MIN(page) LIKE '/p/%' FROM {scratch.ns}.bronze.raw_events") == [[4, True]]


@pytest.mark.spark
@pytest.mark.parametrize("body, expected", [
    ("    import pandas as pd\n    return pd.DataFrame({'id': [1, 2]})\n", [[1], [2]]),
    ("    import pyarrow as pa\n    return pa.table({'id': [3]})\n", [[3]]),
])
def test_pandas_and_arrow_results_are_converted(scratch: Scratch, body: str, expected: list):
    fqn = scratch.pipeline("bronze", "conv", "def run(spark, ctx):\n" + body, filename="pipeline.py")
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert scratch.rows(f"SELECT id FROM {fqn} ORDER BY id") == expected


@pytest.mark.spark
def test_guard_and_runtime_errors_fail_the_run_with_file_and_line(scratch: Scratch):
    fqn = scratch.pipeline("bronze", "bad", "import os\ndef run(spark, ctx):\n    return spark.range(1)\n", filename="pipeline.py")
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert f"{scratch.ns}/pipelines/bronze/bad/pipeline.py:1: import of 'os' is not allowed" in run["error"]
    scratch.pipeline("bronze", "bad", "def run(spark, ctx):\n    x = 1\n    return 1 / 0\n", filename="pipeline.py")
    run = scratch.run(fqn)
    assert "pipeline.py:3: ZeroDivisionError in run()" in run["error"]
    scratch.pipeline("bronze", "bad", "def run(spark, ctx):\n    return 42\n", filename="pipeline.py")
    assert "returned int" in scratch.run(fqn)["error"]
