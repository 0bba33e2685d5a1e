"""A run's schema change, recorded on the table until the run publishes or the change is put back.

Iceberg's schema belongs to the whole table, not to a branch: a column a run adds (or a type
it widens) shows on `main` the moment it is made, before the run's quality gate. So the change
is committed together with a table property naming the run and the schema it replaced. The
commit that publishes the run removes the property (see `IcebergTable.fast_forward`); a run
that ends without publishing gets its schema put back in one commit that removes it too. Each
is a single metadata commit, so a SIGKILL at any moment leaves the change with its record, or
neither: whoever starts next can always tell whose change the table holds.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .jvm_names import static_method

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from pyspark.sql.types import DataType

PREFIX = "rat.schema-change."


def record_key(run_id: str) -> str:
    """The table property recording a run's change."""
    return PREFIX + run_id


@dataclass(frozen=True)
class SchemaChange:
    run_id: str
    before: int  # the schema id the run replaced
    after: int  # the schema id it made
    at_ms: int  # just before the commit: no snapshot older than this was written for the change

    @property
    def key(self) -> str:
        return record_key(self.run_id)

    def value(self) -> str:
        return json.dumps({"before": self.before, "after": self.after, "at_ms": self.at_ms})


def pending_changes(spark: "SparkSession", table) -> list[SchemaChange]:
    """The changes a (py4j) org.apache.iceberg.Table records, newest first. Three JVM round trips when
    there is none (every run asks): walking the whole properties map costs a round trip per entry."""
    recorded = static_method(spark, "org.apache.iceberg.util.PropertyUtil.propertiesWithPrefix")(
        table.properties(), PREFIX)
    if recorded.isEmpty():
        return []
    found = []
    for run_id, value in recorded.items():
        try:
            data = json.loads(value)
            found.append(SchemaChange(run_id, int(data["before"]), int(data["after"]), int(data["at_ms"])))
        except (ValueError, KeyError, TypeError):  # not ours to read: never acted on
            continue
    return sorted(found, key=lambda change: change.at_ms, reverse=True)


def commit_change(spark: "SparkSession", table, run_id: str, added: list[tuple[str, "DataType"]],
                  widened: list[tuple[str, "DataType"]],
                  fields_added: list[tuple[tuple[str, ...], "DataType"]] = ()) -> SchemaChange:
    """Adds and widens columns, and adds fields inside struct columns (`(("meta", "extra"), type)`), and records
    the change, in one commit (on the freshly loaded `table`)."""
    jvm = spark.sparkContext._jvm

    def iceberg_type(kind: "DataType"):
        return jvm.org.apache.iceberg.spark.SparkSchemaUtil.convert(jvm.org.apache.spark.sql.types.DataType.fromJson(kind.json()))

    update = table.updateSchema()
    for name, kind in added:
        update.addColumn(None, name, iceberg_type(kind))  # no parent: a name with a dot stays one column
    for name, kind in widened:
        update.updateColumn(name, iceberg_type(kind))
    for path, kind in fields_added:
        update.addColumn(".".join(path[:-1]), path[-1], iceberg_type(kind))
    schema = update.apply()
    ops = table.operations()
    base = ops.current()
    metadata = jvm.org.apache.iceberg.TableMetadata
    last_column = max(base.lastColumnId(), schema.highestFieldId())
    # Built twice: the schema's id (a new one, or an identical older schema's) is known only once built,
    # and the property that names it must be in the same commit.
    after = metadata.buildFrom(base).setCurrentSchema(schema, last_column).build().currentSchemaId()
    change = SchemaChange(run_id, base.currentSchemaId(), after, int(time.time() * 1000))
    properties = jvm.java.util.HashMap()
    properties.put(change.key, change.value())
    ops.commit(base, metadata.buildFrom(base).setCurrentSchema(schema, last_column).setProperties(properties).build())
    return change


def put_back(spark: "SparkSession", table, change: SchemaChange) -> None:
    """main's schema becomes the one the change replaced, and the record goes, in one commit. Raises
    (CommitFailedException) if anything else committed since `table` was loaded."""
    jvm = spark.sparkContext._jvm
    ops = table.operations()
    base = ops.current()
    keys = jvm.java.util.HashSet()
    keys.add(change.key)
    ops.commit(base, jvm.org.apache.iceberg.TableMetadata.buildFrom(base).setCurrentSchema(change.before)
               .removeProperties(keys).build())


def forget(table, change: SchemaChange) -> None:
    """Drop the record and keep the change (it is main's now, or can no longer be told apart)."""
    table.updateProperties().remove(change.key).commit()


def refs_using(table, change: SchemaChange) -> set[str]:
    """Branches and tags holding a snapshot written with the change's schema since it was made."""
    using = set()
    for name, ref in table.refs().items():
        snapshot = table.snapshot(ref.snapshotId())
        while snapshot is not None and snapshot.timestampMillis() >= change.at_ms:
            if snapshot.schemaId() == change.after:
                using.add(name)
                break
            parent = snapshot.parentId()
            snapshot = table.snapshot(parent) if parent is not None else None
    return using


def has_schema(table, schema_id: int) -> bool:
    return table.schemas().get(schema_id) is not None
