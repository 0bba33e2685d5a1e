"""The rows two snapshots of one table do not share, read from the files that differ only.

Data files never change once written, so two snapshots share every row of the data files both
list, except the positions a delete file of one side removes. What the older snapshot had alone
is: the live rows of data files the newer one no longer lists, and the rows of shared files at
positions only the newer one deletes. What the newer one has alone: the live rows of data files
only it lists. Comparing just those two sets by key gives the same answer as comparing the
whole tables, at a cost that follows the change (a 1% merge reads its new files, its delete
files and the rows they delete, not the table).

Iceberg reads the chosen files itself (staged scan tasks, the way its compaction reads), so
schema evolution and delete files are applied as for any read. When that is not possible
(equality deletes, deletion vectors, a delete file taken away as a rollback or a rewrite does)
`changed_sides` returns None and the caller compares whole snapshots.
"""
from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


@dataclass(frozen=True)
class _Planned:
    task: object  # org.apache.iceberg.FileScanTask
    deletes: frozenset[str]


def _plan(table, snapshot_id: int) -> dict[str, _Planned] | None:
    """Data file → its scan task at a snapshot; None when a delete is of a kind read here can't apply."""
    found: dict[str, _Planned] = {}
    tasks = table.newScan().useSnapshot(int(snapshot_id)).planFiles()
    try:
        iterator = tasks.iterator()
        while iterator.hasNext():
            task = iterator.next()
            deletes = []
            for delete in task.deletes():
                if str(delete.content()) != "POSITION_DELETES" or str(delete.format()) != "PARQUET":
                    return None  # equality deletes, or deletion vectors in Puffin files
                deletes.append(str(delete.location()))
            found[str(task.file().location())] = _Planned(task, frozenset(deletes))
    finally:
        tasks.close()
    return found


@dataclass
class ChangedSides:
    old_only: "DataFrame"
    new_only: "DataFrame"
    files_read: int  # data files read, of both snapshots together


@contextlib.contextmanager
def changed_sides(spark: "SparkSession", table, ident: str, old_id: int, new_id: int,
                  columns: list[str]) -> Iterator[ChangedSides | None]:
    """The rows only `old_id` has and those only `new_id` has (`columns` of them), valid inside the
    block (the staged tasks are released after it); None when the files cannot tell (see above)."""
    old, new = _plan(table, old_id), _plan(table, new_id)
    if old is None or new is None:
        yield None
        return
    removed = [path for path in old if path not in new]
    added = [path for path in new if path not in old]
    shared_changed = [path for path in old if path in new and old[path].deletes != new[path].deletes]
    if any(not old[path].deletes <= new[path].deletes for path in shared_changed):
        yield None  # a delete file went away: a rollback, or deletes rewritten
        return
    manager = spark.sparkContext._jvm.org.apache.iceberg.spark.ScanTaskSetManager.get()
    staged: list[str] = []

    def read(tasks: list, *extra: str) -> "DataFrame":
        from pyspark.sql import functions as F

        if not tasks:
            return spark.table(ident).select(*columns, F.lit("").alias("_file"), F.lit(0).cast("long").alias("_pos")).limit(0)
        set_id = f"rat-diff-{secrets.token_hex(6)}"
        listed = spark.sparkContext._jvm.java.util.ArrayList()
        for task in tasks:
            listed.add(task)
        manager.stageTasks(table, set_id, listed)
        staged.append(set_id)
        return spark.read.format("iceberg").option("scan-task-set-id", set_id).load(ident).select(
            *columns, "_file", "_pos", *extra)

    try:
        gone = read([old[path].task for path in removed])
        new_deletes = sorted({d for path in shared_changed for d in new[path].deletes - old[path].deletes})
        if new_deletes:
            # The schema given, so Spark reads no footers to infer it (a job of its own).
            positions = spark.read.schema("file_path STRING, pos BIGINT").parquet(*new_deletes).selectExpr(
                "file_path AS _file", "pos AS _pos")
            # Read with the newer side's deletes, Iceberg marks deleted rows (`_deleted`) from its
            # position bitmaps; matching just those against the new delete files is a small join,
            # where matching every row of the shared files by (_file, _pos) hashed each path string.
            deleted = read([new[path].task for path in shared_changed], "_deleted").where("_deleted").join(
                positions.hint("broadcast"), ["_file", "_pos"], "left_semi")
            gone = gone.unionByName(deleted.select(*columns, "_file", "_pos"))
        arrived = read([new[path].task for path in added])
        yield ChangedSides(gone.select(*columns), arrived.select(*columns),
                           len(removed) + len(shared_changed) + len(added))
    finally:
        for set_id in staged:
            manager.removeTasks(table, set_id)
