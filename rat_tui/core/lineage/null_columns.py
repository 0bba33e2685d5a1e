"""Who reads a column a run leaves NULL. A run whose query no longer makes a column keeps it in the table,
filled with NULL (run/schema_evolution.py); a downstream query that reads it then builds on NULLs and
stays green: a renamed `country` once made a gold table group every row under NULL, 1 row instead of 4.
So the run that leaves the column says what reads it, and a run that reads such a column says so too.

Both answers come from the column lineage (sqlglot, no Spark), and are asked only when a run leaves a
column NULL or reads a table whose last run did: a plain run pays one state query per input table."""
from __future__ import annotations

from collections.abc import Mapping

from ..notes import RunNote
from ..project.pipeline_source import LoadedPipeline
from ..store.state import RunRecord, StateDB
from .chains import ANY_COLUMN
from .service import ColumnLineage


class NullColumns:
    def __init__(self, lineage: ColumnLineage, state: StateDB):
        self.lineage, self.state = lineage, state

    def breaks(self, table: str, dropped: Mapping[str, str], added: Mapping[str, str]) -> dict[str, str]:
        """For each dropped column some downstream column reads: the sentence naming them (a dropped column
        with one added of its type is a rename)."""
        return {impact.change.column: impact.sentence()
                for impact in self.lineage.run_impacts(table, dict(dropped), dict(added))}

    def reads(self, pipeline: LoadedPipeline, inputs: Mapping[str, int | None]) -> list[RunNote]:
        """A warning for each column the run reads that its input's last run left NULL. `inputs`: the tables
        the run read, with the snapshot it read."""
        left: dict[tuple[str, str], RunRecord] = {}
        for table, snapshot in sorted(inputs.items()):
            run = self._run_that_wrote(table, snapshot)
            for note in run.notes if run is not None else ():
                if note.kind == "null_column" and note.column:
                    left[(table, note.column)] = run
        if not left:
            return []
        lineage = self.lineage.one(pipeline)
        read = {(e.source.table, e.source.column) for e in lineage.edges}
        notes = []
        for (table, column), run in left.items():
            through = (table, column) in read or (table, ANY_COLUMN) in read and column in lineage.columns
            if through:
                notes.append(RunNote(
                    "null_input", f"reads {table}.{column}, which the last run of {table} ({run.run_id}) no longer "
                    f"makes: it is NULL in the rows that run wrote; change this query, or make {column} again there",
                    column=column))
        return notes

    def _run_that_wrote(self, table: str, snapshot: int | None) -> RunRecord | None:
        """The run whose write the read saw: the one that made `snapshot`, else the table's last success (a run
        with nothing new wrote nothing: it stands on the snapshot before it)."""
        done = [r for r in self.state.runs(table, limit=5)
                if r.status == "success" and not any(n.kind == "nothing_new" for n in r.notes)]
        return next((r for r in done if snapshot is not None and r.snapshot_id == snapshot), done[0] if done else None)
