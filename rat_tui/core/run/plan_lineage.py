"""A Python pipeline's column lineage, read from Spark's analyzed plan of the DataFrame it returns.

The plan is walked bottom-up through py4j: a leaf is a table a `ctx.ref()` read (an Iceberg relation)
or a landing zone's files (a file relation under the zone's folder); each node maps its output
attributes (by expression id) to the input columns they are made from, with the same edge kinds as
the SQL walk (lineage/sql_columns.py); filters, joins, groupings, sorts add indirect edges into every
output. A node this walk does not know, whose outputs are not its child's, makes those outputs
`unknown`, never silently absent."""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..lineage.model import DIRECT, INDIRECT, UNKNOWN, ColumnRef, Edge, Hop, PipelineLineage
from ..project.graph import zone_node
from ..project.model import Project

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

Deps = frozenset[tuple[ColumnRef, Hop]]
_UNKNOWN_SOURCE = ColumnRef("unknown", "*")
# Nodes whose output attributes are their child's (by expression id): rows change, values do not.
_PASS_THROUGH = {"SubqueryAlias", "Distinct", "Deduplicate", "GlobalLimit", "LocalLimit", "Repartition",
                 "RepartitionByExpression", "Sample", "View", "ResolvedHint", "Offset", "Tail", "WithWatermark"}


def _seq(seq: Any) -> list:
    return [seq.apply(i) for i in range(seq.size())]


def _kind(node: Any) -> str:
    return node.getClass().getSimpleName()


def _expr_id(attribute: Any) -> int:
    return attribute.exprId().id()


class _PlanWalk:
    def __init__(self, project: Project, namespace: str, tables: Iterable[str]):
        self.project, self.namespace, self.tables = project, namespace, list(tables)
        self.row_deps: set[tuple[ColumnRef, Hop]] = set()  # indirect inputs of every output

    # -- leaves -------------------------------------------------------------------------
    def _leaf_table(self, node: Any, kind: str) -> str | None:
        if kind == "DataSourceV2Relation":
            name = str(node.table().name())  # Iceberg's: the catalog (our namespace), layer, name
            return next((t for t in self.tables if name == t or name.startswith(f"{t}.")), name)
        if kind == "LogicalRelation":
            for path in _seq(node.relation().location().rootPaths()):
                text = str(path.toString()).removeprefix("file:")
                zone = self._zone_of(Path(text))
                if zone:
                    return zone
        return None

    def _zone_of(self, path: Path) -> str | None:
        landing = self.project.root / self.namespace / "landing"
        try:
            return zone_node(self.namespace, path.resolve().relative_to(landing.resolve()).parts[0])
        except (ValueError, IndexError):
            return None

    # -- plan nodes ---------------------------------------------------------------------
    def deps(self, node: Any) -> dict[int, Deps]:
        """Output expression id -> the input columns it is made from."""
        kind = _kind(node)
        children = [self.deps(child) for child in _seq(node.children())]
        known: dict[int, Deps] = {k: v for child in children for k, v in child.items()}
        if not children:
            table = self._leaf_table(node, kind)
            outputs = _seq(node.output())
            if table is None:  # rows made in place (VALUES, range): no input column
                return {_expr_id(a): frozenset() for a in outputs}
            return {_expr_id(a): frozenset({(ColumnRef(table, str(a.name())), Hop(DIRECT, "identity"))})
                    for a in outputs}
        if kind == "Filter":
            self.row_deps |= self._walk(node.condition(), known, Hop(INDIRECT, "filter"))
            return known
        if kind == "Sort":
            for order in _seq(node.order()):
                self.row_deps |= self._walk(order, known, Hop(INDIRECT, "sort"))
            return known
        if kind == "Join":
            condition = node.condition()
            if condition.isDefined():
                self.row_deps |= self._walk(condition.get(), known, Hop(INDIRECT, "join"))
            return known
        if kind == "Project":
            return {_expr_id(e): self._expression(e, known) for e in _seq(node.projectList())}
        if kind == "Aggregate":
            for expression in _seq(node.groupingExpressions()):
                self.row_deps |= self._walk(expression, known, Hop(INDIRECT, "group by"))
            return {_expr_id(e): self._expression(e, known) for e in _seq(node.aggregateExpressions())}
        if kind == "Window":  # its window expressions carry their own partition and order (see _walk)
            return {**known, **{_expr_id(e): self._expression(e, known) for e in _seq(node.windowExpressions())}}
        if kind == "Union":
            first = _seq(node.children().apply(0).output())
            merged: dict[int, Deps] = {}
            for position, attribute in enumerate(first):
                merged[_expr_id(attribute)] = frozenset().union(*(
                    child.get(_expr_id(_seq(c.output())[position]), frozenset())
                    for child, c in zip(children, _seq(node.children()))))
            return merged
        outputs = {_expr_id(a) for a in _seq(node.output())}
        if kind in _PASS_THROUGH or outputs <= set(known):
            return known
        unknown = frozenset({(_UNKNOWN_SOURCE, Hop(UNKNOWN, kind))})  # a node this walk does not read
        return {**known, **{i: unknown for i in outputs - set(known)}}

    # -- expressions ----------------------------------------------------------------------
    def _expression(self, expression: Any, known: dict[int, Deps]) -> Deps:
        """A projection's inputs: its attributes directly, those in a window's partition or order and in
        a condition indirectly."""
        inner = expression.child() if _kind(expression) == "Alias" else expression
        if self._typed_as_read(expression, inner):
            inner = self._first_column(inner)  # its checks are the reader's, not conditions of the pipeline's
        if _kind(inner) == "AttributeReference":
            via = "identity"
        else:
            via = "aggregation" if self._has(inner, ("AggregateExpression",)) else "transformation"
        return frozenset(self._walk(inner, known, Hop(DIRECT, via)))

    def _typed_as_read(self, expression: Any, inner: Any) -> bool:
        """A landing reader's typing of a column it read as text (landing/numbers.converted: the text cast,
        or the read fails), kept under its own name: the column as the file holds it, not a transformation."""
        if _kind(expression) != "Alias" or not self._has(inner, ("RaiseError",)):
            return False
        return self._names(inner) == {str(expression.name())}

    def _names(self, expression: Any) -> set[str]:
        if _kind(expression) == "AttributeReference":
            return {str(expression.name())}
        return {name for child in _seq(expression.children()) for name in self._names(child)}

    def _first_column(self, expression: Any) -> Any:
        """The first column an expression reads (None: it reads none)."""
        if _kind(expression) == "AttributeReference":
            return expression
        return next((found for child in _seq(expression.children()) if (found := self._first_column(child))), None)

    def _has(self, expression: Any, kinds: tuple[str, ...]) -> bool:
        return _kind(expression) in kinds or any(self._has(c, kinds) for c in _seq(expression.children()))

    def _walk(self, expression: Any, known: dict[int, Deps], hop: Hop) -> set[tuple[ColumnRef, Hop]]:
        kind = _kind(expression)
        if kind == "AttributeReference":
            return {(ref, hop.then(inner)) for ref, inner in known.get(_expr_id(expression), frozenset())}
        if kind == "WindowExpression":
            spec = expression.windowSpec()
            found = self._walk(expression.windowFunction(), known, hop)
            for part in _seq(spec.partitionSpec()) + _seq(spec.orderSpec()):
                found |= self._walk(part, known, Hop(INDIRECT, "window"))
            return found
        if kind == "If":
            return (self._walk(expression.predicate(), known, Hop(INDIRECT, "condition"))
                    | self._walk(expression.trueValue(), known, hop) | self._walk(expression.falseValue(), known, hop))
        if kind == "CaseWhen":
            found: set[tuple[ColumnRef, Hop]] = set()
            for branch in _seq(expression.branches()):
                found |= self._walk(branch._1(), known, Hop(INDIRECT, "condition")) | self._walk(branch._2(), known, hop)
            if expression.elseValue().isDefined():
                found |= self._walk(expression.elseValue().get(), known, hop)
            return found
        return {dep for child in _seq(expression.children()) for dep in self._walk(child, known, hop)}


def dataframe_lineage(df: "DataFrame", project: Project, target: str, tables: Iterable[str]) -> PipelineLineage:
    """The lineage of the DataFrame a Python pipeline returned; each column unknown, with the cause,
    when the plan cannot be read."""
    walk = _PlanWalk(project, target.split(".")[0], tables)
    try:
        plan = df._jdf.queryExecution().analyzed()
        deps = walk.deps(plan)
        outputs = [(str(a.name()), _expr_id(a)) for a in _seq(plan.output())]
    except Exception as exc:  # py4j's errors, a plan node without the expected fields
        columns = tuple(df.columns)
        edges = tuple(Edge(_UNKNOWN_SOURCE, ColumnRef(target, c), UNKNOWN, "unknown") for c in columns)
        return PipelineLineage(target, columns, edges, f"Spark's plan could not be read: {type(exc).__name__}: {str(exc).splitlines()[0]}")
    edges = {Edge(ref, ColumnRef(target, name), hop.kind, hop.via)
             for name, expr_id in outputs for ref, hop in deps.get(expr_id, frozenset()) | walk.row_deps}
    return PipelineLineage(target, tuple(name for name, _ in outputs), tuple(sorted(edges)))
