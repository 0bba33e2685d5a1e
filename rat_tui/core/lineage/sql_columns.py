"""The column lineage of one compiled SQL query, with sqlglot (Spark dialect) and no JVM.

The query is qualified against its inputs' schemas (so `SELECT *` expands and every column names its
source), then each scope (CTE, subquery, union branch) is walked: a projection's own columns are
direct edges, except those in a window's PARTITION BY / ORDER BY or in a CASE/IF condition; the
scope's joins, filters, groupings and sorts are indirect edges into every column it outputs. An
output read through a CTE or subquery takes on that scope's edges, composed hop by hop.
sqlglot.lineage gives the direct edges only, hence the walk.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import Scope, build_scope

from .model import DIRECT, INDIRECT, ColumnRef, Edge, Hop, PipelineLineage

# Clauses of a SELECT that decide rows, not values: each makes indirect edges into every output.
_SCOPE_CLAUSES = (("where", "filter"), ("having", "filter"), ("qualify", "filter"), ("group", "group by"),
                  ("order", "sort"))
Dep = tuple[ColumnRef, Hop]
Schemas = Mapping[str, Mapping[str, str]]  # ns.layer.name -> {column: type}


class LineageError(Exception):
    """The query cannot be parsed or qualified; the sentence says why."""


def query_lineage(sql: str, target: str, schemas: Schemas) -> PipelineLineage:
    """Every output column of `sql` with its input columns, for the table `target`."""
    root = _qualified_scope(sql, schemas)
    walk = _Walk()
    columns = walk.outputs(root)
    edges = sorted({Edge(source, ColumnRef(target, column), hop.kind, hop.via)
                    for column in columns for source, hop in walk.output_deps(root, column)})
    return PipelineLineage(target, tuple(columns), tuple(edges))


def _qualified_scope(sql: str, schemas: Schemas) -> Scope:
    nested: dict = {}
    for table, columns in schemas.items():
        catalog, db, name = table.split(".")
        nested.setdefault(catalog, {}).setdefault(db, {})[name] = {c: "string" for c in columns}
    try:
        statements = [s for s in sqlglot.parse(sql, dialect="spark") if s is not None]
        if len(statements) != 1 or not isinstance(statements[0], exp.Query):
            raise LineageError("the pipeline is not one query")
        expression = qualify(statements[0], schema=nested, dialect="spark", quote_identifiers=False,
                             validate_qualify_columns=True, identify=False)
    except SqlglotError as exc:
        raise LineageError(str(exc).splitlines()[0]) from None
    root = build_scope(expression)
    if root is None:
        raise LineageError("the query has no scope sqlglot can follow")
    return root


def _table_name(table: exp.Table) -> str:
    return ".".join(part for part in (table.catalog, table.db, table.name) if part)


def _roles(expression: exp.Expression) -> Iterator[tuple[exp.Column, Hop]]:
    """Each column of a projection and how it reaches the value: directly, or as a window's partition
    or order, or as a condition that picks a branch."""
    via = "identity" if isinstance(expression, exp.Column) else (
        "aggregation" if expression.find(exp.AggFunc) else "transformation")
    for column in expression.find_all(exp.Column):
        yield column, _role(column, expression) or Hop(DIRECT, via)


def _role(column: exp.Expression, top: exp.Expression) -> Hop | None:
    node = column
    while node is not top and node.parent is not None:
        parent, key = node.parent, node.arg_key
        if isinstance(parent, exp.Window) and key in ("partition_by", "order"):
            return Hop(INDIRECT, "window")
        if isinstance(parent, (exp.If, exp.Case)) and key == "this":
            return Hop(INDIRECT, "condition")
        if isinstance(parent, exp.Filter) and key == "expression":
            return Hop(INDIRECT, "filter")
        node = parent
    return None


class _Walk:
    """Memoised per scope: a query with CTEs read several times is walked once."""

    def __init__(self) -> None:
        self._columns: dict[tuple[int, str], frozenset[Dep]] = {}
        self._scope_wide: dict[int, frozenset[Dep]] = {}

    def outputs(self, scope: Scope) -> list[str]:
        if isinstance(scope.expression, exp.SetOperation):
            return self.outputs(scope.set_operation_scopes[0])
        return [p.alias_or_name for p in scope.expression.selects]

    def output_deps(self, scope: Scope, name: str) -> frozenset[Dep]:
        """The column's own inputs and every input that decides the scope's rows."""
        return self.column_deps(scope, name) | self.scope_wide(scope)

    def column_deps(self, scope: Scope, name: str) -> frozenset[Dep]:
        """The inputs of the column's expression, followed through CTEs, subqueries and unions."""
        key = (id(scope), name)
        if key not in self._columns:
            self._columns[key] = frozenset(self._column_deps(scope, name))
        return self._columns[key]

    def _column_deps(self, scope: Scope, name: str) -> set[Dep]:
        if isinstance(scope.expression, exp.SetOperation):
            left, right = scope.set_operation_scopes
            names = self.outputs(left)
            if name not in names:
                return set()
            return set(self.column_deps(left, name)) | set(self.column_deps(right, self.outputs(right)[names.index(name)]))
        return self._projection_deps(scope, name)

    def _projection(self, scope: Scope, name: str) -> exp.Expression | None:
        for projection in scope.expression.selects:
            if projection.alias_or_name == name:
                return projection.this if isinstance(projection, exp.Alias) else projection
        return None

    def _projection_deps(self, scope: Scope, name: str) -> set[Dep]:
        projection = self._projection(scope, name)
        if projection is None:
            return set()
        deps: set[Dep] = set()
        for column, hop in _roles(projection):
            deps |= self._resolve(scope, column, hop)
        return deps

    def _resolve(self, scope: Scope, column: exp.Column, hop: Hop) -> set[Dep]:
        """What `column` of this scope comes from, as seen through `hop`."""
        source = scope.sources.get(column.table)
        if isinstance(source, exp.Table):
            return {(ColumnRef(_table_name(source), column.name), hop)}
        if isinstance(source, Scope):
            # the scope's own row filters reach here through scope_wide, once, under their own names
            return {(ref, hop.then(inner)) for ref, inner in self.column_deps(source, column.name)}
        if not column.table and self._projection(scope, column.name) is not None:  # ORDER BY an output alias
            return {(ref, hop.then(inner)) for ref, inner in self._projection_deps(scope, column.name)}
        return set()

    def scope_wide(self, scope: Scope) -> frozenset[Dep]:
        key = id(scope)
        if key not in self._scope_wide:
            self._scope_wide[key] = frozenset(self._scope_wide_deps(scope))
        return self._scope_wide[key]

    def _scope_wide_deps(self, scope: Scope) -> set[Dep]:
        if isinstance(scope.expression, exp.SetOperation):
            return {dep for branch in scope.set_operation_scopes for dep in self.scope_wide(branch)}
        select = scope.expression
        deps: set[Dep] = set()
        clauses = [(join.args.get("on"), "join") for join in select.args.get("joins") or ()]
        clauses += [(select.args.get(key), via) for key, via in _SCOPE_CLAUSES]
        for clause, via in clauses:
            if clause is None:
                continue
            for column in clause.find_all(exp.Column):
                deps |= self._resolve(scope, column, Hop(INDIRECT, via))
        for source in scope.sources.values():  # rows a CTE or subquery drops are dropped here too
            if isinstance(source, Scope):
                deps |= self.scope_wide(source)
        for subquery in scope.subquery_scopes:  # `WHERE x IN (SELECT …)`: the subquery's columns filter
            for name in self.outputs(subquery):
                deps |= {(ref, Hop(INDIRECT, "filter")) for ref, _ in self.output_deps(subquery, name)}
        return deps

