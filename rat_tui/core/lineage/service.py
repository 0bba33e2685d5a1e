"""The project's column lineage: every pipeline's edges, computed in dependency order without Spark,
cached by what they depend on (the compiled query and its inputs' columns), so a save recomputes
the saved pipeline and only those downstream whose inputs' columns it changed."""
from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import Problem, RatError
from ..project.graph import ZONE_LAYER, GraphCache, ProjectGraph, pipeline_inputs, zone_node
from ..project.model import PipelineRef, Project
from ..project.pipeline_source import LoadedPipeline, load_pipeline
from ..store.state import RunRecord
from .chains import ANY_COLUMN, Branch, ColumnGraph, TracedColumn
from .compiled import compiled_sql
from .impact import Impact, changes_between, impacts
from .model import UNKNOWN, ColumnRef, Edge, PipelineLineage
from .run_store import LineageStore
from .schemas import Columns, SchemaReader

PYTHON_UNKNOWN = "a Python pipeline's column lineage comes from its run (Spark's plan); no run of this code recorded it"


@dataclass(frozen=True)
class ColumnTrace:
    """The answer to `lineage --column`: the asked column and the columns it reaches, one way."""
    column: ColumnRef
    direction: str  # up | down
    columns: tuple[TracedColumn, ...]
    note: str = ""  # why nothing is upstream, when it is more than that (ColumnLineage.no_longer_made)


@dataclass(frozen=True)
class ColumnTree:
    """A column's upstream and downstream as trees (the TUI's column lineage)."""
    column: ColumnRef
    upstream: tuple[Branch, ...]
    downstream: tuple[Branch, ...]
    note: str = ""  # why nothing is upstream, when it is more than that (ColumnLineage.no_longer_made)


class ColumnLineage:
    def __init__(self, project: Project, graphs: GraphCache, schemas: SchemaReader, store: LineageStore | None = None):
        self.project, self.graphs, self.schemas, self.store = project, graphs, schemas, store
        self._graph: ProjectGraph | None = None
        self._loaded: dict[str, LoadedPipeline | None] = {}
        self._signatures: dict[str, tuple | None] = {}  # the files each loaded pipeline was read from
        self._pass: dict[str, Columns | None] = {}  # input columns read in this pass: once per table
        self._results: dict[str, tuple[tuple, PipelineLineage]] = {}
        self._lock = threading.RLock()

    # -- computing -------------------------------------------------------------------
    def pipelines(self) -> dict[str, PipelineLineage]:
        """Every pipeline's lineage, re-reading the project's files."""
        with self._lock:
            self._graph = self.graphs.graph()
            names = self._graph.pipelines()
            for name in names:
                signature = self.graphs.signature(PipelineRef.parse(name))
                if name not in self._loaded or signature is None or self._signatures.get(name) != signature:
                    self._loaded[name], self._signatures[name] = self._load(name), signature
            self._loaded = {name: self._loaded[name] for name in names}
            return self._compute(self._graph.order(names, leave_out_cycles=True))  # validate names a cycle

    def saved(self, refs: Iterable[PipelineRef]) -> dict[str, PipelineLineage]:
        """After a save of these pipelines (their files only): recompute them and what reads them."""
        with self._lock:
            if self._graph is None or any(ref.fqn not in self._graph.nodes for ref in refs):
                return self.pipelines()  # a new pipeline: its inputs are not in the graph yet
            for ref in refs:
                self._loaded[ref.fqn], self._signatures[ref.fqn] = self._load(ref.fqn), None
            touched = {ref.fqn for ref in refs}
            for ref in refs:
                touched |= self._graph.downstream_of(ref.fqn)
            return self._compute(self._graph.order(touched, leave_out_cycles=True))

    def one(self, pipeline: LoadedPipeline) -> PipelineLineage:
        """One pipeline's lineage from its own files and its inputs' columns on disk, without reading the
        rest of the project (a run asks this at its start)."""
        tables, zones = pipeline_inputs(pipeline)
        names = sorted(tables - {pipeline.ref.fqn}) + sorted(zone_node(pipeline.ref.namespace, z) for z in zones)
        with self._lock:
            self._pass = {}
            return self._lineage(pipeline.ref.fqn, pipeline, {name: self._columns(name) for name in names})

    def _load(self, name: str) -> LoadedPipeline | None:
        ref = PipelineRef.parse(name)
        return load_pipeline(ref, self.project.read_pipeline_files(ref))[0]

    def _compute(self, order: list[str]) -> dict[str, PipelineLineage]:
        """In dependency order; a pipeline whose query and inputs' columns are as before keeps its result."""
        self._pass = {}
        for name in order:
            pipeline = self._loaded.get(name)
            inputs = {table: self._columns(table) for table in sorted(self._graph.upstream.get(name, ()))}
            key = (pipeline.source if pipeline else None, pipeline.kind if pipeline else None,
                   tuple((t, tuple(c or ())) for t, c in inputs.items()))
            cached = self._results.get(name)
            # a Python pipeline's lineage may have come from a run since (Spark's plan): always asked for
            if cached is None or cached[0] != key or (pipeline is not None and pipeline.kind == "py"):
                self._results[name] = (key, self._lineage(name, pipeline, inputs))
        return {name: result for name, (_, result) in self._results.items() if name in self._graph.nodes}

    def _columns(self, table: str) -> Columns | None:
        """An input's columns: the table's on disk, else what its pipeline's query makes."""
        if table not in self._pass:
            self._pass[table] = self._read_columns(table)
        return self._pass[table]

    def _read_columns(self, table: str) -> Columns | None:
        namespace, layer, name = table.split(".")
        if layer == ZONE_LAYER:
            return self.schemas.zone(namespace, name)
        found = self.schemas.table(PipelineRef(namespace, layer, name))
        if found is None and table in self._results:
            found = {column: "" for column in self._results[table][1].columns}
        return found

    def _lineage(self, name: str, pipeline: LoadedPipeline | None, inputs: dict[str, Columns | None]) -> PipelineLineage:
        if pipeline is None:
            return self._unknown(name, inputs, "the pipeline cannot be loaded (see validate)")
        if pipeline.kind == "py":
            stored = self.store.latest(name, pipeline.source) if self.store else None
            return stored or self._unknown(name, inputs, PYTHON_UNKNOWN)
        missing = sorted(table for table, columns in inputs.items() if columns is None)
        if missing:
            return self._unknown(name, inputs, f"no columns known yet for {', '.join(missing)} (run it first)")
        from .sql_columns import LineageError, query_lineage  # sqlglot: 0.4 s of an app's start, not needed for it

        try:
            return query_lineage(compiled_sql(pipeline), name, {t: c for t, c in inputs.items() if c})
        except (RatError, LineageError) as exc:
            return self._unknown(name, inputs, f"{pipeline.source_relpath}: {getattr(exc, 'message', exc)}")

    def _unknown(self, name: str, inputs: dict[str, Columns | None], why: str) -> PipelineLineage:
        """Each column of the table (as far as known) marked unknown, reading some column of each input; with no
        table yet (a Python pipeline never run), some column of it: never left out of what an input reaches."""
        columns = tuple(self.schemas.table(PipelineRef.parse(name)) or ())
        edges = tuple(Edge(ColumnRef(table, ANY_COLUMN), ColumnRef(name, column), UNKNOWN, "unknown")
                      for column in columns or (ANY_COLUMN,) for table in sorted(inputs))
        return PipelineLineage(name, columns, edges, why)

    # -- reading -----------------------------------------------------------------------
    def graph(self) -> ColumnGraph:
        return ColumnGraph(self.pipelines().values())

    def trace(self, column: ColumnRef, up: bool, depth: int | None = None) -> ColumnTrace:
        graph = self.graph()
        if column.column not in self._table_columns(column.table):
            raise RatError(f"no column {column.name}: {self._why_unknown(column)}")
        found = graph.upstream(column, depth) if up else graph.downstream(column, depth)
        return ColumnTrace(column, "up" if up else "down", tuple(found), self.no_longer_made(column) if up else "")

    def column_tree(self, column: ColumnRef) -> ColumnTree:
        graph = self.graph()
        if column.column not in self._table_columns(column.table):
            raise RatError(f"no column {column.name}: {self._why_unknown(column)}")
        return ColumnTree(column, graph.tree(column, up=True), graph.tree(column, up=False), self.no_longer_made(column))

    def no_longer_made(self, column: ColumnRef) -> str:
        """A column of the table that its pipeline's query no longer makes (a run kept it, NULL in the rows it
        wrote): said where the column's upstream is empty, which read as a column made from nothing."""
        result = self._results.get(column.table)
        lineage = result[1] if result is not None else None
        if lineage is None or lineage.problem or not lineage.columns:
            return ""
        if column.column.lower() in {name.lower() for name in lineage.columns}:
            return ""
        return (f"the query of {column.table} no longer makes {column.column}: the table keeps the column, NULL in "
                "the rows written since")

    def _table_columns(self, table: str) -> set[str]:
        if self._graph is None or table not in self._graph.nodes:
            return set()
        columns = set(self._columns(table) or ())
        if table in self._results:
            columns |= set(self._results[table][1].columns)
        return columns

    def _why_unknown(self, column: ColumnRef) -> str:
        if self._graph is None or column.table not in self._graph.nodes:
            return f"{column.table} is neither a pipeline nor a landing zone of this project"
        known = sorted(self._table_columns(column.table))
        return f"{column.table} has columns {', '.join(known)}" if known else f"{column.table} has no known columns yet"

    # -- impact ------------------------------------------------------------------------
    def working_copy_problems(self, only: PipelineRef | None = None) -> list[Problem]:
        """`validate`: each pipeline whose query no longer makes a column of its table that a downstream
        pipeline reads, or casts it to another type than the table's; a warning, or an error under
        `@breaks_downstream: fail`."""
        lineages = self.pipelines()
        graph = ColumnGraph(lineages.values())
        problems = []
        for name, lineage in lineages.items():
            pipeline = self._loaded.get(name)
            if pipeline is None or lineage.problem or (only is not None and only.fqn != name):
                continue
            table = self.schemas.table(pipeline.ref)
            if table is None:
                continue
            managed = (pipeline.config.scd_valid_from, pipeline.config.scd_valid_to)  # the scd2 strategy adds them
            old = {c: t for c, t in table.items() if c not in managed}
            severity = "error" if pipeline.config.breaks_downstream == "fail" else "warning"
            new = {c: "" for c in lineage.columns} | self._cast_types(pipeline)
            for impact in impacts(graph, name, changes_between(old, new)):
                problems.append(Problem(pipeline.source_relpath, impact.sentence(), None, severity))
        return problems

    def partition_column_problems(self, only: PipelineRef | None = None) -> list[Problem]:
        """`validate`: each partitioned pipeline whose query does not make its `partitions.column`, known without
        Spark from the query's column lineage (a run would fail on it)."""
        problems = []
        for name, lineage in self.pipelines().items():
            pipeline = self._loaded.get(name)
            partitions = pipeline.config.partitions if pipeline is not None else None
            if partitions is None or lineage.problem or not lineage.columns or (only is not None and only.fqn != name):
                continue
            assert pipeline is not None
            why = partitions.missing_column(pipeline.source_relpath.rsplit("/", 1)[-1], list(lineage.columns))
            if why:
                problems.append(Problem(partitions.column_path, why, partitions.column_line))
        return problems

    @staticmethod
    def _cast_types(pipeline: LoadedPipeline) -> dict[str, str]:
        """The types the query states with a CAST (the others need Spark to know)."""
        if pipeline.kind != "sql":
            return {}
        from .cast_types import cast_types  # sqlglot, as in _lineage

        try:
            return cast_types(compiled_sql(pipeline))
        except RatError:
            return {}

    def run_impacts(self, table: str, old: Columns, new: Columns) -> list[Impact]:
        """A held run's change of its table's columns (from main's to what the run made), against the
        lineage of the pipelines that read it."""
        return impacts(self.graph(), table, changes_between(old, new))

    def held_run_impacts(self, record: RunRecord) -> list[Impact]:
        """What a run awaiting review would break: main's columns when it began against its branch's, less
        the columns its query no longer makes (a run keeps those in the table, filled with NULL)."""
        ref = PipelineRef.parse(record.pipeline)
        try:
            old = self.schemas.table_at(ref, record.review.get("base_snapshot"))
            new = self.schemas.table_at(ref, branch=record.review["branch"])
        except (RatError, KeyError):  # the table or its branch is gone: approve and reject say so
            return []
        made = self.store.for_run(record.run_id) if self.store else None
        if made is not None and not made.problem:
            pipeline = self._loaded.get(ref.fqn) or self._load(ref.fqn)
            managed = (pipeline.config.scd_valid_from, pipeline.config.scd_valid_to) if pipeline else ()
            new = {c: t for c, t in new.items() if c in made.columns or c in managed}
        return self.run_impacts(ref.fqn, old, new)
