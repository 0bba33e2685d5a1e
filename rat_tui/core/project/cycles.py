"""Cycles in a graph of names: each edge a depth-first walk (in sorted order) finds closing a cycle."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeVar

T = TypeVar("T")


def closing_edges(edges: Mapping[T, Iterable[T]]) -> list[tuple[T, list[T]]]:
    """(the node whose edge closes a cycle, the cycle as a path that starts and ends at the same node)."""
    found: list[tuple[T, list[T]]] = []
    state: dict[T, int] = {}  # 1 = on the current path, 2 = done

    def visit(node: T, path: list[T]) -> None:
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):  # type: ignore[type-var]
            if state.get(nxt) == 1:
                found.append((node, path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt]))
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for start in sorted(edges):  # type: ignore[type-var]
        if start not in state:
            visit(start, [start])
    return found
