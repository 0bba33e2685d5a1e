"""Edges of every pipeline joined into one graph of columns, walked up to the landing zones' file
columns or down to the gold tables, each reached column with the kind of its whole path."""
from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from .model import ColumnRef, Edge, Hop, PipelineLineage

ANY_COLUMN = "*"  # the source of an `unknown` edge: some column of that table, which one is not known


@dataclass(frozen=True, order=True)
class TracedColumn:
    depth: int  # pipelines between the asked column and this one (1: read directly)
    column: ColumnRef
    kind: str   # direct | indirect | unknown: the whole path's, indirect if any step is
    via: str    # the step that makes it so (nearest the output), or the strongest direct step
    pipeline: str  # the pipeline on the path next to this column


@dataclass(frozen=True)
class Branch:
    """One edge of a column's lineage drawn as a tree: the column at its far end, the edge's own kind,
    and that column's edges on (a column met again on the same path is not followed twice)."""
    column: ColumnRef
    kind: str
    via: str
    children: tuple["Branch", ...] = ()


class ColumnGraph:
    def __init__(self, lineages: Iterable[PipelineLineage]):
        self._into: dict[ColumnRef, list[Edge]] = {}
        self._out_of: dict[ColumnRef, list[Edge]] = {}
        for lineage in lineages:
            for edge in lineage.edges:
                self._into.setdefault(edge.target, []).append(edge)
                self._out_of.setdefault(edge.source, []).append(edge)

    def upstream(self, column: ColumnRef, depth: int | None = None) -> list[TracedColumn]:
        return self._walk(column, depth, up=True)

    def downstream(self, column: ColumnRef, depth: int | None = None) -> list[TracedColumn]:
        return self._walk(column, depth, up=False)

    def _next(self, column: ColumnRef, up: bool) -> list[Edge]:
        if up:
            return self._into.get(column, [])
        return self._out_of.get(column, []) + self._out_of.get(ColumnRef(column.table, ANY_COLUMN), [])

    def _walk(self, start: ColumnRef, depth: int | None, up: bool) -> list[TracedColumn]:
        found: dict[tuple[ColumnRef, Hop], TracedColumn] = {}
        todo: deque[tuple[ColumnRef, Hop | None, int]] = deque([(start, None, 0)])
        while todo:
            column, hop, level = todo.popleft()
            if depth is not None and level >= depth:
                continue
            for edge in self._next(column, up):
                step = Hop(edge.kind, edge.via)
                path = step if hop is None else (hop.then(step) if up else step.then(hop))
                reached = edge.source if up else edge.target
                if (reached, path) in found or reached == start:
                    continue
                found[(reached, path)] = TracedColumn(level + 1, reached, path.kind, path.via, edge.target.table)
                if reached.column != ANY_COLUMN:
                    todo.append((reached, path, level + 1))
        return sorted(found.values())

    def tree(self, column: ColumnRef, up: bool, depth: int = 8, _path: frozenset[ColumnRef] = frozenset()
             ) -> tuple[Branch, ...]:
        """The column's edges one way, each with the edges of the column it reaches, `depth` levels deep."""
        if depth <= 0:
            return ()
        branches = {}
        for edge in self._next(column, up):
            reached = edge.source if up else edge.target
            if reached in _path or reached == column:
                continue
            children = () if reached.column == ANY_COLUMN else self.tree(reached, up, depth - 1, _path | {column})
            branches[(reached, edge.kind, edge.via)] = Branch(reached, edge.kind, edge.via, children)
        return tuple(branches[key] for key in sorted(branches))
