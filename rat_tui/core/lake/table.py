"""Iceberg table operations: create, branch, fast-forward, roll back, drop. Through Spark SQL, or
through the Java API where SQL would only add a round trip (branches, fast-forward, refs)."""
from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..project.model import PipelineRef
from .jvm_names import activate, java_class, static_method
from .metadata import RUN_ID_PROPERTY

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession
    from pyspark.sql.types import StructType

log = logging.getLogger(__name__)


def quote(*parts: str) -> str:
    return ".".join(f"`{part.replace('`', '``')}`" for part in parts)


def sql_string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


RUN_BRANCH_PREFIX = "run_"


def run_branch(run_id: str) -> str:
    """The branch a run writes to."""
    return f"{RUN_BRANCH_PREFIX}{run_id}"


def leftover_run_branches(ref_names, live_run_ids: set[str]) -> list[str]:
    """Run branches among a table's refs whose run is no longer queued or running."""
    return [name for name in ref_names
            if name.startswith(RUN_BRANCH_PREFIX) and name.removeprefix(RUN_BRANCH_PREFIX) not in live_run_ids]


class IcebergTable:
    """One pipeline's table, named `{namespace}.{layer}.{name}` (catalog = namespace)."""

    def __init__(self, spark: "SparkSession", ref: PipelineRef):
        self.spark = spark
        self.ref = ref
        self.ident = quote(ref.namespace, ref.layer, ref.name)
        self._session_active = False  # made the thread's active session by the first _iceberg()

    def branch_ident(self, branch: str) -> str:
        """Writes go through `t.branch_<name>`: spark.wap.branch is silently ignored without WAP enabled."""
        return f"{self.ident}.{quote('branch_' + branch)}"

    def exists(self) -> bool:
        return bool(self.spark.catalog.tableExists(self.ident))

    def create_empty(self, schema: "StructType", properties: dict[str, str],
                     partition_column: "str | Column | None") -> None:
        self.create_with(self.spark.createDataFrame([], schema), properties, partition_column)

    def create_with(self, rows: "DataFrame", properties: dict[str, str], partition_column: "str | Column | None",
                    namespace_made: bool = False) -> None:
        """The table made from `rows`: their schema, and their rows as its first snapshot, in one commit;
        partitioned by a column's values, or by a transform of one (`days(order_date)`). `namespace_made`:
        the caller made the layer's namespace (a Spark statement fewer)."""
        from pyspark.sql import functions as F

        if not namespace_made:
            self.spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {quote(self.ref.namespace, self.ref.layer)}")
        writer = rows.writeTo(self.ident).using("iceberg")
        if partition_column is not None:
            writer = writer.partitionedBy(F.col(partition_column) if isinstance(partition_column, str)
                                          else partition_column)
        for key, value in properties.items():
            writer = writer.tableProperty(key, value)
        writer.create()

    def _iceberg(self):  # -> org.apache.iceberg.Table (py4j)
        """The table through Iceberg's Java API, freshly loaded (the catalog caches nothing): a run
        reads refs and snapshots six times, and the `.refs` / `.snapshots` metadata tables cost a
        Spark query each (measured 236 ms against 47 ms this way, on a busy machine). One JVM round trip:
        Iceberg's own helper parses the name and finds the catalog there (looking the catalog and the
        identifier up from here took eight, and a load after them two)."""
        if not self._session_active:
            # The catalog manager reads the catalogs' settings from the thread's active session, which
            # may be another run's (or one made before this namespace was registered).
            activate(self.spark)
            self._session_active = True
        return static_method(self.spark, "org.apache.iceberg.spark.Spark3Util.loadIcebergTable")(
            self.spark._jsparkSession, self.ident)

    def loaded(self):  # -> org.apache.iceberg.Table | None
        """The Java table (Iceberg's own API: its refs, snapshots and schemas, as a run and lake/diff.py
        read them), or None when there is none: one catalog load answers both questions a run starts
        with (does it exist, where is main) instead of two."""
        from pyspark.errors import AnalysisException

        try:
            return self._iceberg()
        except AnalysisException as exc:
            if exc.getErrorClass() not in ("TABLE_OR_VIEW_NOT_FOUND", "SCHEMA_NOT_FOUND"):
                raise
            return None

    def refs(self) -> dict[str, int]:
        return {name: ref.snapshotId() for name, ref in self._iceberg().refs().items()}

    def head(self, name: str, table=None) -> int | None:
        """The snapshot one branch points at. Looked up by name: walking the whole refs map through
        py4j costs a JVM round trip per entry (28 ms against 10 ms for the load itself)."""
        ref = (table if table is not None else self._iceberg()).refs().get(name)
        return None if ref is None else ref.snapshotId()

    def head_summary(self, branch: str) -> tuple[int | None, int, str | None]:
        """(snapshot, rows added, run id) of a branch's head, from one load of the table."""
        table = self._iceberg()
        head = self.head(branch, table)
        snapshot = None if head is None else table.snapshot(head)
        if snapshot is None:
            return head, 0, None
        summary = snapshot.summary()
        return head, int(summary.get("added-records") or 0), summary.get(RUN_ID_PROPERTY)

    def holds_no_rows(self, branch: str = "main", table=None) -> bool:
        """Whether a reader of the branch sees no row (its head's summary: no data is read), from one load of
        the table (or from `table`, just loaded)."""
        table = table if table is not None else self._iceberg()
        head = self.head(branch, table)
        snapshot = None if head is None else table.snapshot(head)
        return snapshot is None or int(snapshot.summary().get("total-records") or 0) == 0

    def schema_and_property(self, key: str | None, table=None) -> tuple["StructType", int, str | None]:
        """main's schema as Spark sees it, its id, and one table property (None for no key), from one load of the
        table (`spark.table().schema` and `SHOW TBLPROPERTIES` were two Spark analyses: 90 ms a run), or from
        `table`, a Java table loaded earlier that nothing has committed to since."""
        table = table if table is not None else self._iceberg()
        return self.spark_schema(table), table.schema().schemaId(), None if key is None else table.properties().get(key)

    def spark_schema(self, table=None) -> "StructType":
        """main's schema as Spark sees it, from one load of the table (or from `table`, just loaded)."""
        import json

        from pyspark.sql.types import StructType

        table = table if table is not None else self._iceberg()
        spark_schema = static_method(self.spark, "org.apache.iceberg.spark.SparkSchemaUtil.convert")(table.schema())
        return StructType.fromJson(json.loads(spark_schema.json()))

    def main_and_schema(self, table=None) -> tuple[int | None, int]:
        """main's snapshot and the current schema id, from one load (or from `table`, just loaded)."""
        table = table if table is not None else self._iceberg()
        return self.head("main", table), table.schema().schemaId()

    def added_range(self, branch: str, column: str) -> tuple[int, int, int, int] | None:
        """(rows, NULLs, lowest, highest) of an integer column over the files the branch's head
        added, from the manifests' column metrics: no data is read. None when a file lacks them
        (metrics off for the column, or no non-NULL value in a file) or nothing was added."""
        table = self._iceberg()
        ref = table.refs().get(branch)
        field = table.schema().findField(column)
        if ref is None or field is None:
            return None
        convert = self.spark.sparkContext._jvm.org.apache.iceberg.types.Conversions.fromByteBuffer
        rows = nulls = 0
        low = high = None
        files = table.snapshot(ref.snapshotId()).addedDataFiles(table.io()).iterator()
        while files.hasNext():
            file = files.next()
            counts, lower, upper = file.nullValueCounts(), file.lowerBounds(), file.upperBounds()
            if counts is None or lower is None or upper is None or lower.get(field.fieldId()) is None \
                    or upper.get(field.fieldId()) is None or counts.get(field.fieldId()) is None:
                return None
            rows, nulls = rows + file.recordCount(), nulls + counts.get(field.fieldId())
            first, last = convert(field.type(), lower.get(field.fieldId())), convert(field.type(), upper.get(field.fieldId()))
            low, high = first if low is None else min(low, first), last if high is None else max(high, last)
        return None if low is None else (rows, nulls, low, high)

    # Branches are made, dropped and fast-forwarded through the Java API: the SQL statements are
    # parsed, analysed and planned by Spark before the same commit (measured 65 ms against 40 ms
    # for a branch, 90 ms against 25 ms for the fast-forward, on a busy machine).
    def create_branch(self, branch: str, at_snapshot: int | None = None, table=None) -> None:
        """A branch at main's head, or at `at_snapshot` (what main was when a run began); kept if it exists.
        `table`: the Java table loaded earlier, if nothing has committed to it since (one load less)."""
        table = table if table is not None else self._iceberg()
        if table.refs().get(branch) is not None:
            return
        manage = table.manageSnapshots()
        (manage.createBranch(branch) if at_snapshot is None else manage.createBranch(branch, int(at_snapshot))).commit()

    def drop_branch(self, branch: str) -> None:
        table = self._iceberg()
        if table.refs().get(branch) is not None:
            table.manageSnapshots().removeBranch(branch).commit()

    def _procedure(self, name: str, **arguments: str) -> None:
        """CALL a procedure on this table; arguments are SQL literals (procedures take no expressions)."""
        # The procedure parses this string as an identifier again: `my-pipe` needs its quotes inside.
        named = [f"table => {sql_string(quote(self.ref.layer, self.ref.name))}"]
        named += [f"{key} => {value}" for key, value in arguments.items()]
        self.spark.sql(f"CALL {quote(self.ref.namespace)}.system.{name}({', '.join(named)})")

    def fast_forward(self, branch: str, properties: Mapping[str, str | None] | None = None, drop_branch: bool = False,
                     table=None) -> int:
        """Moves main to the branch (what the `fast_forward` procedure does, without the SQL round
        trip); returns main's new snapshot. `properties` the table must have (a value, or None for none),
        and with `drop_branch` the branch's removal, go in the same commit (a separate drop was one more
        commit and two more loads a run). `table`: the Java table just loaded by the caller (Iceberg
        refreshes it before committing)."""
        table = table if table is not None else self._iceberg()
        # main ends where the branch is: known now, where asking after the commit reloaded the metadata
        moved_to = self.head(branch, table)

        def moved(manage):
            manage = manage.fastForwardBranch("main", branch)
            return manage.removeBranch(branch) if drop_branch else manage

        now = table.properties() if properties else None
        changes = {key: value for key, value in (properties or {}).items() if now.get(key) != value}
        if changes:
            transaction = table.newTransaction()
            moved(transaction.manageSnapshots()).commit()
            update = transaction.updateProperties()
            for key, value in changes.items():
                update = update.remove(key) if value is None else update.set(key, value)
            update.commit()
            transaction.commitTransaction()
        else:
            moved(table.manageSnapshots()).commit()
        return moved_to

    def set_current(self, snapshot_id: int) -> None:
        """Main at `snapshot_id`; with the schema that snapshot was written with when a column's type differs
        from the table's now. A rebuild that changed a type kept the column's field id (REPLACE TABLE), so main
        back on a snapshot of the old type read its files with the new one and failed (`IntVector cannot be
        cast …`), after a green rollback. One commit either way."""
        table = self._iceberg()
        ops = table.operations()
        base = ops.current()
        snapshot = base.snapshot(int(snapshot_id))
        schema_id = snapshot.schemaId() if snapshot is not None else None
        if schema_id is None or not _types_differ(base.schema(), base.schemasById().get(schema_id)):
            self._procedure("set_current_snapshot", snapshot_id=str(int(snapshot_id)))
            return
        metadata = java_class(self.spark, "org.apache.iceberg.TableMetadata")
        ops.commit(base, metadata.buildFrom(base).setCurrentSchema(int(schema_id))
                   .setBranchSnapshot(int(snapshot_id), "main").build())

    def expire_snapshots(self, snapshot_ids: list[int]) -> None:
        # An epoch cut-off so Iceberg expires exactly these ids and not its own 5-day default.
        self._procedure("expire_snapshots", older_than="TIMESTAMP '1970-01-01 00:00:00'",
                        snapshot_ids=f"array({', '.join(str(int(i)) for i in snapshot_ids)})")

    def rewrite_data_files(self, target_file_size: int) -> None:
        self._procedure("rewrite_data_files", options=(
            f"map('target-file-size-bytes', '{int(target_file_size)}', 'min-input-files', '2')"))

    def drop(self) -> None:
        self.spark.sql(f"DROP TABLE IF EXISTS {self.ident} PURGE")

    def schema(self) -> "StructType":
        return self.spark.table(self.ident).schema


def _types_differ(current, older) -> bool:  # two org.apache.iceberg.Schema (py4j)
    """Whether a column both schemas hold (by field id) has another type in each."""
    for field in current.columns():
        then = older.findField(field.fieldId())
        if then is not None and then.type().toString() != field.type().toString():
            return True
    return False
