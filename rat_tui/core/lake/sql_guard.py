"""One read-only query, decided by Spark's own parser: the one check every entry point of user SQL calls.

Pipelines, quality tests, previews and `query` (and the SQL console to come) take exactly one
query. Writing (INSERT, MERGE, DELETE, DDL, CALL, SET …) is the product's own job, on a run's
branch, behind the quality gate. A keyword regex is fooled by `WITH x AS (…) INSERT …`, so the
statement is parsed and every node of the plan is looked at (CTE bodies and subqueries too).
The few Java escapes a query offers (`reflect`, `java_method`, `TRANSFORM … USING 'cmd'`) are
refused as well; direct file queries are switched off on the session (spark.sql.runSQLOnFiles).
"""
from __future__ import annotations

import json
import re
import threading
from typing import TYPE_CHECKING, Any

from ..errors import RatError
from .jvm_names import activate

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Functions that call arbitrary Java methods from SQL.
FORBIDDEN_FUNCTIONS = frozenset({"reflect", "java_method", "try_reflect"})
# Query nodes that still do something besides reading (run a shell command per row).
FORBIDDEN_NODES = {"ScriptTransformation": "TRANSFORM … USING"}
# Read-only inspection statements `query` (and only `query`) also takes.
INSPECTION = frozenset({
    "ShowTables", "ShowTablesExtended", "ShowNamespaces", "ShowColumns", "ShowTableProperties", "ShowCreateTable",
    "ShowViews", "ShowFunctions", "ShowPartitions", "DescribeRelation", "DescribeColumn", "DescribeNamespace",
    "DescribeFunction", "DescribeQueryCommand", "ExplainCommand",
})
# Friendly names of the statements users try most; others are named from Spark's class name.
KINDS = {
    "InsertIntoStatement": "INSERT", "DeleteFromTable": "DELETE", "UpdateTable": "UPDATE", "MergeIntoTable": "MERGE",
    "DropTable": "DROP TABLE", "CallStatement": "CALL", "SetCommand": "SET", "ResetCommand": "RESET",
    "CreateTable": "CREATE TABLE", "CreateTableAsSelect": "CREATE TABLE", "ReplaceTableAsSelect": "REPLACE TABLE",
    "CreateViewCommand": "CREATE VIEW", "CreateView": "CREATE VIEW", "SetCatalogAndNamespace": "USE",
    "TruncateTable": "TRUNCATE", "CacheTableAsSelect": "CACHE TABLE", "CacheTable": "CACHE TABLE",
    "OverwriteByExpression": "INSERT OVERWRITE", "AppendData": "INSERT",
}

_PLAN = "org.apache.spark.sql.catalyst.plans.logical."
_kinds_cache: dict[str, bool] = {}
_cache_lock = threading.Lock()


def _statement_name(class_name: str) -> str:
    short = class_name.rsplit(".", 1)[-1]
    if short in KINDS:
        return KINDS[short]
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", short.removesuffix("Command").removesuffix("Statement"))
    return words.upper()


def _writes(spark: "SparkSession", class_name: str) -> bool:
    """Whether a plan node class is a statement (Spark's Command / ParsedStatement), not a query."""
    with _cache_lock:
        if class_name in _kinds_cache:
            return _kinds_cache[class_name]
    jvm = spark.sparkContext._jvm
    # Iceberg's statements (CALL …) come from a jar added at start: the context loader sees them.
    loader = jvm.Thread.currentThread().getContextClassLoader()
    try:
        cls = jvm.Class.forName(class_name, False, loader)
    except Exception:  # a plan node nobody can load is no query we know
        return True
    statement = any(jvm.Class.forName(_PLAN + base, False, loader).isAssignableFrom(cls)
                    for base in ("Command", "ParsedStatement"))
    with _cache_lock:
        _kinds_cache[class_name] = statement
    return statement


def _nodes(tree: Any):
    """Every node of Spark's JSON plan (plans, expressions, CTE bodies, subquery plans)."""
    if isinstance(tree, dict):
        if "class" in tree:
            yield tree
        for value in tree.values():
            yield from _nodes(value)
    elif isinstance(tree, list):
        for item in tree:
            yield from _nodes(item)


def _line_of(sql: str, pattern: str) -> int | None:
    match = re.search(pattern, sql, re.I)
    return sql.count("\n", 0, match.start()) + 1 if match else None


def check_read_only(spark: "SparkSession", sql: str, what: str, relpath: str | None = None,
                    inspection: bool = False):  # -> the parsed plan (py4j), or None when Spark cannot parse it
    """Raise a RatError unless `sql` is one read-only query. `what` names the thing ("a pipeline").

    A statement Spark cannot parse is left to spark.sql, whose error names the line. The plan checked is
    returned: a DataFrame made from it does not parse the text a second time (build.run_sql). It is parsed
    under `spark` as the thread's active session, as spark.sql parses: a cast takes ANSI from it.
    """
    activate(spark)
    try:
        plan = spark._jsparkSession.sessionState().sqlParser().parsePlan(sql)
    except Exception:
        return None
    nodes = list(_nodes(json.loads(plan.toJSON())))
    if inspection and plan.getClass().getName().rsplit(".", 1)[-1] in INSPECTION:
        nodes = nodes[1:]
    for node in nodes:
        name = node["class"]
        short = name.rsplit(".", 1)[-1]
        if short in FORBIDDEN_NODES:
            raise RatError(f"{what} may not use {FORBIDDEN_NODES[short]} (it runs a program)", relpath,
                           _line_of(sql, r"\btransform\s*\("))
        if short == "UnresolvedFunction":
            function = str(node.get("nameParts", "")).strip("[]").split(",")[-1].strip().strip("`").lower()
            if function in FORBIDDEN_FUNCTIONS:
                raise RatError(f"{what} may not call {function}() (it calls Java methods)", relpath,
                               _line_of(sql, rf"\b{function}`?\s*\("))
        elif name.startswith("org.apache.spark") and not short.startswith("Unresolved") and "plans.logical" in name \
                or name.endswith("Command"):
            if _writes(spark, name):
                kind = _statement_name(name)
                raise RatError(f"{what} must be one read-only query; {kind} statements are not allowed "
                               "(writing tables is the product's job)", relpath)
    return plan
