"""The corpus of broken inputs: each case writes a small broken project and names what must be reported.

A case is (id, files, expected path suffix, expected line or None, expected message fragment).
`files` maps paths (relative to the project) to text or bytes; `{P}` stands for a
pipeline folder `ns/pipelines/silver/p`.
"""
from __future__ import annotations

P = "ns/pipelines/silver/p"
OK_SQL = "SELECT 1 AS id\n"
RUN = "def run(spark, ctx):\n    return spark.range(1)\n"

# Project-level cases, found by `validate` (no Spark needed).
VALIDATE_CASES: list[tuple[str, dict, str, int | None, str]] = [
    ("namespace-uppercase", {"Ns/pipelines/silver/p/pipeline.sql": OK_SQL}, "Ns", None, "namespace name 'Ns' breaks the naming rule"),
    ("namespace-too-long", {"n" * 129 + "/pipelines/silver/p/pipeline.sql": OK_SQL}, "n" * 129, None, "129 characters long; the limit is 128"),
    ("pipeline-digit", {"ns/pipelines/silver/1p/pipeline.sql": OK_SQL}, "ns/pipelines/silver/1p", None, "pipeline name '1p' breaks"),
    ("pipeline-dot", {"ns/pipelines/silver/a.b/pipeline.sql": OK_SQL}, "ns/pipelines/silver/a.b", None, "pipeline name 'a.b' breaks"),
    ("layer-unknown", {"ns/pipelines/platinum/p/pipeline.sql": OK_SQL}, "ns/pipelines/platinum", None, "layer 'platinum' is not one of bronze, silver, gold"),
    ("zone-space", {"ns/landing/my zone/a.csv": "id\n1\n", f"{P}/pipeline.sql": OK_SQL}, "ns/landing/my zone", None, "landing zone name 'my zone' breaks"),
    ("both-sources", {f"{P}/pipeline.sql": OK_SQL, f"{P}/pipeline.py": RUN}, P, None, "both pipeline.sql and pipeline.py"),
    ("no-source", {f"{P}/config.yaml": "description: x\n"}, P, None, "neither pipeline.sql nor pipeline.py"),
    ("yaml-unclosed", {f"{P}/pipeline.sql": OK_SQL, f"{P}/config.yaml": "unique_key: [a, b\n"}, f"{P}/config.yaml", 2, "YAML syntax error"),
    ("yaml-tab", {f"{P}/pipeline.sql": OK_SQL, f"{P}/config.yaml": "description: x\n\tunique_key: a\n"}, f"{P}/config.yaml", 2, "YAML syntax error"),
    ("yaml-list", {f"{P}/pipeline.sql": OK_SQL, f"{P}/config.yaml": "- a\n- b\n"}, f"{P}/config.yaml", 1, "must be a mapping"),
    ("yaml-bool", {f"{P}/pipeline.sql": OK_SQL, f"{P}/config.yaml": "archive_landing_zones: maybe\n"}, f"{P}/config.yaml", 1, "must be true or false"),
    ("yaml-empty-key", {f"{P}/pipeline.sql": OK_SQL, f"{P}/config.yaml": "merge_strategy: incremental\nunique_key: []\n"}, f"{P}/config.yaml", 2, "unique_key is empty"),
    ("yaml-strategy", {f"{P}/pipeline.sql": OK_SQL, f"{P}/config.yaml": "merge_strategy: upsert\n"}, f"{P}/config.yaml", 1, "unknown merge_strategy 'upsert'"),
    ("yaml-dict-value", {f"{P}/pipeline.sql": OK_SQL, f"{P}/config.yaml": "watermark_column: {a: 1}\n"}, f"{P}/config.yaml", 1, "must be a single value"),
    ("annotation-strategy", {f"{P}/pipeline.sql": "-- @merge_strategy: merge\n" + OK_SQL}, f"{P}/pipeline.sql", 1, "unknown merge_strategy 'merge'"),
    ("annotation-flag", {f"{P}/pipeline.sql": "-- @archive_landing_zones: often\n" + OK_SQL}, f"{P}/pipeline.sql", 1, "must be true or false"),
    ("annotation-materialized", {f"{P}/pipeline.sql": "-- @materialized: sometimes\n" + OK_SQL}, f"{P}/pipeline.sql", 1, "materialized must be table or view"),
    ("incremental-no-key", {f"{P}/pipeline.sql": "-- @merge_strategy: incremental\n" + OK_SQL}, f"{P}/pipeline.sql", 1, "incremental needs a unique_key"),
    ("delete-insert-no-key", {f"{P}/pipeline.sql": "-- @merge_strategy: delete_insert\n" + OK_SQL}, f"{P}/pipeline.sql", 1, "delete_insert needs a unique_key"),
    ("scd2-no-key", {f"{P}/pipeline.sql": "\n-- @merge_strategy: scd2\n" + OK_SQL}, f"{P}/pipeline.sql", 2, "scd2 needs a unique_key"),
    ("snapshot-no-partition", {f"{P}/pipeline.sql": "-- @merge_strategy: snapshot\n" + OK_SQL}, f"{P}/pipeline.sql", 1, "snapshot needs a partition_column"),
    ("rat-yaml-syntax", {"rat.yaml": "spark: {master: local\n", f"{P}/pipeline.sql": OK_SQL}, "rat.yaml", 2, "YAML syntax error"),
    # PyYAML took these for dates and raised ValueError: an internal error with no file (new-user trial)
    ("config-impossible-date", {f"{P}/pipeline.sql": OK_SQL, f"{P}/config.yaml": "description: x\npartitions: {column: d, grain: day, start: 2024-13-01}\n"},
     f"{P}/config.yaml", 2, "'2024-13-01' is not a date that exists (month must be in 1..12)"),
    # a nested value's problem named its section's line (`freshness:`, `partitions:`), not its own (new-user trial)
    ("config-freshness-value-line", {f"{P}/pipeline.sql": OK_SQL, f"{P}/config.yaml": "# my policy\nfreshness:\n  warn_after: 6x\n"},
     f"{P}/config.yaml", 3, "freshness.warn_after '6x' has an unknown unit"),
    ("config-partitions-value-line", {f"{P}/pipeline.sql": OK_SQL,
                                      f"{P}/config.yaml": "description: x\npartitions:\n  column: d\n  grain: week\n  start: 2024-01-01\n"},
     f"{P}/config.yaml", 4, "partitions grain must be one of day, hour, month, not 'week'"),
    ("rat-yaml-freshness-value-line", {"rat.yaml": "freshness:\n  error_after: 1d\n  warn_after: 6x\n", f"{P}/pipeline.sql": OK_SQL},
     "rat.yaml", 3, "freshness.warn_after '6x'"),
    ("rat-yaml-impossible-date", {"rat.yaml": "freshness:\n  since: 2024-02-30\n", f"{P}/pipeline.sql": OK_SQL}, "rat.yaml", 2,
     "'2024-02-30' is not a date that exists"),
    # a remedy's `zones: {…}` pasted under a rat.yaml that has a `zones:` already: YAML kept the last one alone
    ("rat-yaml-key-twice", {"rat.yaml": "zones:\n  ns/z:\n    csv: {delimiter: ';'}\nspark:\n  master: local[1]\n"
                                        "zones: {ns/z: {schema: {id: int}}}\n", f"{P}/pipeline.sql": OK_SQL}, "rat.yaml", 6,
     "'zones' is given twice (lines 1 and 6): YAML keeps only the last, which drops the first; merge the two"),
    ("config-key-twice", {f"{P}/pipeline.sql": OK_SQL, f"{P}/config.yaml": "merge_strategy: full_refresh\n"
                                                                          "merge_strategy: append_only\n"},
     f"{P}/config.yaml", 2, "'merge_strategy' is given twice (lines 1 and 2)"),
    ("rat-yaml-master-type", {"rat.yaml": "spark:\n  master: 3\n", f"{P}/pipeline.sql": OK_SQL}, "rat.yaml", 2, "'spark.master' must be str"),
    ("rat-yaml-debounce-type", {"rat.yaml": "watch:\n  debounce_ms: fast\n", f"{P}/pipeline.sql": OK_SQL}, "rat.yaml", 2, "'watch.debounce_ms' must be int"),
    ("rat-yaml-list", {"rat.yaml": "- spark\n", f"{P}/pipeline.sql": OK_SQL}, "rat.yaml", 1, "rat.yaml must be a mapping"),
    ("rat-yaml-section-type", {"rat.yaml": "spark: 5\n", f"{P}/pipeline.sql": OK_SQL}, "rat.yaml", 1, "'spark' must be a mapping"),
    ("rat-yaml-bool-type", {"rat.yaml": "runs:\n  quality_timeout_seconds: true\n", f"{P}/pipeline.sql": OK_SQL}, "rat.yaml", 2, "must be int or float"),
    ("jinja-unclosed-if", {f"{P}/pipeline.sql": "SELECT 1\n{% if true %}\n"}, f"{P}/pipeline.sql", 2, "Jinja syntax error"),
    ("jinja-unknown-tag", {f"{P}/pipeline.sql": "SELECT 1\n{% frobnicate %}\n"}, f"{P}/pipeline.sql", 2, "Jinja syntax error"),
    ("jinja-unclosed-expr", {f"{P}/pipeline.sql": "SELECT {{ 1 AS id\n"}, f"{P}/pipeline.sql", 1, "Jinja syntax error"),
    ("ref-unknown", {f"{P}/pipeline.sql": "SELECT *\nFROM {{ ref('silver.nothing') }}\n"}, f"{P}/pipeline.sql", 2, "ref('silver.nothing') names no pipeline"),
    ("ref-bad-form", {f"{P}/pipeline.sql": "SELECT * FROM {{ ref('a.b.c.d') }}\n"}, f"{P}/pipeline.sql", 1, "is not layer.name or ns.layer.name"),
    ("zone-unknown", {f"{P}/pipeline.sql": "SELECT * FROM {{ landing_zone('nope') }}\n"}, f"{P}/pipeline.sql", 1, "landing_zone('nope') names no landing zone in ns"),
    ("ref-cycle", {f"{P}/pipeline.sql": "SELECT * FROM {{ ref('gold.q') }}\n", "ns/pipelines/gold/q/pipeline.sql": "SELECT * FROM {{ ref('silver.p') }}\n"},
     P, None, "cyclic ref: ns.gold.q -> ns.silver.p -> ns.gold.q"),
    ("ref-self", {f"{P}/pipeline.sql": "SELECT * FROM {{ ref('silver.p') }}\n"}, P, None, "cyclic ref: ns.silver.p -> ns.silver.p"),
    ("source-not-utf8", {f"{P}/pipeline.sql": b"SELECT 'caf\xe9'\n"}, f"{P}/pipeline.sql", 1, "not valid UTF-8"),
    ("config-not-utf8", {f"{P}/pipeline.sql": OK_SQL, f"{P}/config.yaml": b"description: caf\xe9\n"}, f"{P}/config.yaml", 1, "not valid UTF-8"),
    ("test-not-utf8", {f"{P}/pipeline.sql": OK_SQL, f"{P}/tests/quality/t.sql": b"\nSELECT '\xff'\n"}, f"{P}/tests/quality/t.sql", 2, "not valid UTF-8"),
    ("test-severity", {f"{P}/pipeline.sql": OK_SQL, f"{P}/tests/quality/t.sql": "-- @severity: fatal\nSELECT 1\n"}, f"{P}/tests/quality/t.sql", 1, "severity must be error or warn"),
    ("test-jinja", {f"{P}/pipeline.sql": OK_SQL, f"{P}/tests/quality/t.sql": "SELECT * FROM {{ this }\n"}, f"{P}/tests/quality/t.sql", 1, "Jinja syntax error"),
    ("sql-10mb-line", {f"{P}/pipeline.sql": "SELECT 1 AS id -- " + "x" * (10 * 1024 * 1024) + "\n"}, f"{P}/pipeline.sql", None, "10.0 MB; pipeline files are limited to 1 MB"),
    ("python-syntax", {f"{P}/pipeline.py": "def run(spark, ctx)\n    return 1\n"}, f"{P}/pipeline.py", 1, "Python syntax error"),
    ("python-no-run", {f"{P}/pipeline.py": "x = 1\n"}, f"{P}/pipeline.py", None, "must define run(spark, ctx)"),
]

SANDBOX = [
    ("import os", "import of 'os'"), ("import sys", "import of 'sys'"), ("import subprocess", "import of 'subprocess'"),
    ("import socket", "import of 'socket'"), ("import shutil", "import of 'shutil'"), ("import pathlib", "import of 'pathlib'"),
    ("import importlib", "import of 'importlib'"), ("import ctypes", "import of 'ctypes'"), ("import pickle", "import of 'pickle'"),
    ("import multiprocessing", "import of 'multiprocessing'"), ("import threading", "import of 'threading'"),
    ("from os import path", "import from 'os'"), ("eval('1')", "call of eval()"), ("exec('1')", "call of exec()"),
    ("compile('1', 'x', 'eval')", "call of compile()"), ("open('x')", "call of open()"), ("__import__('os')", "call of __import__()"),
    ("getattr(run, '__code__')", "getattr() on '__code__'"), ("setattr(run, '__name__', 'x')", "setattr() on '__name__'"),
    ("x = ().__class__", "access to '__class__'"), ("x = run.__globals__", "access to '__globals__'"),
    ("x = object.__subclasses__", "access to '__subclasses__'"), ("x = __builtins__", "use of '__builtins__'"),
    # The modules behind os and subprocess, the app's state database, PySpark's handles on the JVM.
    ("import posix", "import of 'posix'"), ("from posix import system", "import from 'posix'"),
    ("import _posixsubprocess", "import of '_posixsubprocess'"), ("import sqlite3", "import of 'sqlite3'"),
    ("import py4j.java_gateway", "import of 'py4j.java_gateway'"), ("x = run._jvm", "access to '_jvm'"),
    ("x = getattr(run, '_jsparkSession')", "getattr() on '_jsparkSession'"),
]
VALIDATE_CASES += [
    (f"sandbox-{i}", {f"{P}/pipeline.py": f"{code}\n{RUN}"}, f"{P}/pipeline.py", 1, f"{what} is not allowed")
    for i, (code, what) in enumerate(SANDBOX)
]

# Hostile SQL, run as a pipeline next to a table it must not touch: {victim} is that table,
# {ns} the namespace. (id, pipeline SQL, the exact sentence after "<path>:<line>: " or None, line)
WRITES = "must be one read-only query; {kind} statements are not allowed (writing tables is the product's job)"
HOSTILE_SQL: list[tuple[str, str, str, int | None]] = [
    ("insert-other-table", "INSERT INTO {victim} SELECT 2 AS id", "a pipeline " + WRITES.format(kind="INSERT"), None),
    ("cte-insert", "WITH x AS (SELECT 55 AS id)\nINSERT INTO {victim} SELECT * FROM x", "a pipeline " + WRITES.format(kind="INSERT"), None),
    ("drop-other-table", "DROP TABLE {victim}", "a pipeline " + WRITES.format(kind="DROP TABLE"), None),
    ("delete-other-table", "DELETE FROM {victim}", "a pipeline " + WRITES.format(kind="DELETE"), None),
    ("merge-other-table", "MERGE INTO {victim} t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE",
     "a pipeline " + WRITES.format(kind="MERGE"), None),
    ("call-procedure", "CALL {ns}.system.rollback_to_snapshot('bronze.victim', 1)", "a pipeline " + WRITES.format(kind="CALL"), None),
    ("set-conf", "SET spark.sql.ansi.enabled = false", "a pipeline " + WRITES.format(kind="SET"), None),
    ("create-view", "CREATE TEMPORARY VIEW v AS SELECT 1 AS id", "a pipeline " + WRITES.format(kind="CREATE VIEW"), None),
    ("java-method", "SELECT 1 AS id,\n  java_method('java.lang.System', 'getProperty', 'user.home') AS home",
     "a pipeline may not call java_method() (it calls Java methods)", 2),
    ("reflect-in-subquery", "SELECT 1 AS id\nWHERE 1 IN (SELECT 1 FROM range(1) WHERE reflect('java.util.UUID', 'randomUUID') IS NOT NULL)",
     "a pipeline may not call reflect() (it calls Java methods)", 2),
    ("transform-using", "SELECT TRANSFORM(id) USING 'cat' AS (a) FROM range(1)",
     "a pipeline may not use TRANSFORM … USING (it runs a program)", 1),
]

# Landing files neither `upload` nor a run may take, the same sentence on both paths:
# (id, file name, content, what is said after the file's name)
BAD_LANDING_FILES: list[tuple[str, str, bytes, str]] = [
    ("colon-in-name", "a:b.csv", b"id\n1\n", "has ':' in its name, which Spark cannot read; rename the file"),
    ("parquet-named-csv", "p.csv", b"PAR1\x15\x04\x15\x10\x15\x14L\x15\x02\x15\x00\x12\x00\x00\x08\x1c\x01\x00\x00\x00PAR1",
     "is a Parquet file with a .csv extension; rename it to .parquet"),
    # (a JSON array is read since issue 26: its elements are the rows)
    ("json-pretty-object", "b.json", b'{\n  "id": 1\n}\n',
     "is neither JSON Lines nor a JSON array (line 1 is not one JSON object); write one object per line, "
     "or one array of objects"),
]
# Landing files that hold no data: `upload` refuses them, a run reads the zone's other files and leaves them
# (an empty export, or one still being copied in) for a later run. (id, file name, content, why)
EMPTY_LANDING_FILES: list[tuple[str, str, bytes, str]] = [
    ("empty-csv", "empty.csv", b"", "is empty (0 bytes)"),
    # an export with neither header nor rows: read, it made a table of no column but _source_file
    ("blank-lines-csv", "blank.csv", b"\xef\xbb\xbf\r\n\r\n \n", "holds only blank lines (no header, no rows)"),
]
# Names the OS allows that runs must read as they are (spaces, accents, %, Hadoop glob characters).
ODD_LANDING_NAMES = ["my file.csv", "café #2.csv", "a%20b.csv", "a[1].csv", "q?.csv", "{x}.csv", "star*.csv",
                     "back\\slash.csv", "a+b.csv"]

# Results a table cannot hold as they are: (id, pipeline SQL, exact sentence after "<path>: ")
BAD_RESULTS: list[tuple[str, str, str]] = [
    ("duplicate-columns", "SELECT 1 AS a, 2 AS a", "the result has two columns named 'a'; give each column its own name"),
    ("duplicate-columns-case", "SELECT 1 AS id, 2 AS ID", "the result has two columns named 'ID'; give each column its own name"),
    ("null-typed-column", "SELECT 1 AS id, NULL AS note",
     "column 'note' has no type (it is NULL in every row); cast it, e.g. CAST(NULL AS STRING) AS note"),
    ("internal-column", "SELECT 1 AS id, 2 AS __rat_order",
     "column '__rat_order' has a name reserved for the product's own columns (__rat_…); rename it"),
    ("unique-key-with-dot", "-- @merge_strategy: incremental\n-- @unique_key: a.b\nSELECT 1 AS `a.b`",
     "unique_key 'a.b' has a dot in its name, which Spark reads as a field of a struct; rename the column"),
]
