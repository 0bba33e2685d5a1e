"""Column lineage as values: a column of a table, an edge between two columns, one pipeline's edges.

Edge kinds follow OpenLineage's column-lineage facet: `direct` when the output value is made from the
input (identity, transformation, aggregation), `indirect` when the input only decides which rows or
which branch (join, filter, group by, sort, window, condition), `unknown` when it could not be found.
"""
from __future__ import annotations

from dataclasses import dataclass

DIRECT, INDIRECT, UNKNOWN = "direct", "indirect", "unknown"
# The direct subtypes by strength: a chain through an aggregation is an aggregation.
DIRECT_VIAS = ("identity", "transformation", "aggregation")


@dataclass(frozen=True, order=True)
class ColumnRef:
    table: str   # ns.layer.name, or ns.landing.zone for a landing zone's file columns
    column: str

    @property
    def name(self) -> str:
        return f"{self.table}.{self.column}"

    @classmethod
    def parse(cls, text: str) -> "ColumnRef":
        """`ns.layer.name.column`: the last dot ends the table (a column name has no dot)."""
        table, _, column = text.rpartition(".")
        if table.count(".") != 2 or not column or not all(table.split(".")):
            raise ValueError(f"'{text}' is not a column of the form namespace.layer.name.column")
        return cls(table, column)


@dataclass(frozen=True, order=True)
class Hop:
    """How an output depends on an input, possibly through several steps of one query."""
    kind: str  # direct | indirect | unknown
    via: str   # identity | transformation | aggregation | join | filter | group by | sort | window | condition

    def then(self, inner: "Hop") -> "Hop":
        """This hop (nearer the output) after `inner` (nearer the input): an indirect step makes the
        whole indirect, named by the step nearest the output; direct steps keep the strongest subtype."""
        if self.kind == UNKNOWN or inner.kind == UNKNOWN:
            return self if self.kind == UNKNOWN else inner
        if self.kind == INDIRECT:
            return self
        if inner.kind == INDIRECT:
            return inner
        return Hop(DIRECT, max(self.via, inner.via, key=DIRECT_VIAS.index))


@dataclass(frozen=True, order=True)
class Edge:
    source: ColumnRef
    target: ColumnRef
    kind: str
    via: str


@dataclass(frozen=True)
class PipelineLineage:
    """One pipeline's output columns and the edges into them; `problem` says why a column is unknown."""
    pipeline: str
    columns: tuple[str, ...]
    edges: tuple[Edge, ...]
    problem: str | None = None

    def edges_into(self, column: str) -> tuple[Edge, ...]:
        return tuple(e for e in self.edges if e.target.column == column)
