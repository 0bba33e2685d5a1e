"""What a change of a table's columns breaks downstream: each pipeline and column that reads a
dropped, renamed or retyped column, found on the column graph, as one sentence per change:
"dropping `amount` breaks `gold.daily_revenue.total` (direct) and the filter of `gold.big_orders` (indirect)"."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .chains import ColumnGraph, TracedColumn
from .model import DIRECT, INDIRECT, UNKNOWN, ColumnRef
from .schemas import decimal_of


@dataclass(frozen=True)
class ColumnChange:
    column: str
    change: str  # dropped | renamed | retyped
    detail: str = ""  # the new name, or `old → new` type

    @property
    def verb(self) -> str:
        return {"dropped": "dropping", "renamed": "renaming", "retyped": "retyping"}[self.change]


@dataclass(frozen=True)
class Impact:
    table: str
    change: ColumnChange
    readers: tuple[TracedColumn, ...]  # the columns of the pipelines that read the changed column

    def sentence(self) -> str:
        namespace = self.table.split(".")[0]

        def short(table: str) -> str:
            return table.removeprefix(f"{namespace}.")

        parts = [f"`{short(r.column.table)}.{r.column.column}` ({r.kind})" for r in self.readers if r.kind == DIRECT]
        indirect = dict.fromkeys((r.via, r.column.table) for r in self.readers if r.kind == INDIRECT)
        parts += [f"the {via} of `{short(table)}` (indirect)" for via, table in indirect]
        unknown = dict.fromkeys(r.column.table for r in self.readers if r.kind == UNKNOWN)
        parts += [f"perhaps `{short(table)}` (unknown)" for table in unknown]
        detail = f" ({self.change.detail})" if self.change.detail else ""
        listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        return f"{self.change.verb} `{self.change.column}`{detail} breaks {listed}"


def changes_between(old: Mapping[str, str], new: Mapping[str, str]) -> list[ColumnChange]:
    """Dropped and retyped columns; a dropped column with one added column of the same type is a rename.
    A type is compared only where both sides know it (a query's columns have no types without Spark)."""
    dropped = [c for c in old if c not in new]
    added = [c for c in new if c not in old]
    found = []
    for column in dropped:
        same_type = [a for a in added if old[column] and old[column] == new[a]]
        if len(dropped) == 1 and len(same_type) == 1 or len(dropped) == len(added) == 1:
            found.append(ColumnChange(column, "renamed", f"now `{(same_type or added)[0]}`"))
        else:
            found.append(ColumnChange(column, "dropped"))
    found += [ColumnChange(c, "retyped", f"{old[c]} → {new[c]}") for c in old
              if c in new and old[c] and new[c] and old[c] != new[c] and not _same_values(old[c], new[c])]
    return found


_WIDER = {"int": "long", "float": "double"}  # Iceberg's promotions, by its type names


def _same_values(old: str, new: str) -> bool:
    """A promotion either way (int and long, float and double, decimals of one scale): every value of the one
    is a value of the other, so a run writes it into the table's column and readers see no change."""
    if _WIDER.get(old) == new or _WIDER.get(new) == old:
        return True
    a, b = decimal_of(old), decimal_of(new)
    return a is not None and b is not None and a[1] == b[1]


def impacts(graph: ColumnGraph, table: str, changes: list[ColumnChange]) -> list[Impact]:
    """The changes that some downstream column reads, each with its readers."""
    found = []
    for change in changes:
        readers = tuple(graph.downstream(ColumnRef(table, change.column), depth=1))
        if readers:
            found.append(Impact(table, change, readers))
    return found
