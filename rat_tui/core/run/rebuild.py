"""A full refresh that must change a column's type or the unique key: rebuilt beside main.

Iceberg's schema and properties belong to the whole table, not to a branch, so changing
them in place would show on `main` before the quality gate (a failed run left every row of a
retyped column NULL). Instead the run writes a staging table in the hidden `_rat_staging`
namespace of the same catalog, the quality tests read that, and only a passing run replaces
the table in one atomic commit (REPLACE TABLE … AS SELECT keeps the history and the refs).
A staging table whose run is gone is dropped at the next start.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..lake.history import STRATEGY_PROPERTY
from ..lake.metadata import RUN_ID_PROPERTY
from ..lake.table import IcebergTable
from ..project.model import PipelineRef, Project

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from pyspark.sql.types import StructType

STAGING_LAYER = "_rat_staging"  # `_`: never listed as a layer or a table of the project
_SEPARATOR = "__"


def staging_ref(ref: PipelineRef, run_id: str) -> PipelineRef:
    return PipelineRef(ref.namespace, STAGING_LAYER, f"{ref.layer}{_SEPARATOR}{ref.name}{_SEPARATOR}{run_id}")


def staged_run_id(stage: PipelineRef) -> str:
    return stage.name.rsplit(_SEPARATOR, 1)[-1]


def staging_tables(project: Project) -> list[PipelineRef]:
    """Staging tables on disk, of every namespace."""
    found = []
    for ns in project.scan().namespaces:
        folder = project.warehouse_dir(ns.name) / STAGING_LAYER
        for table_dir in sorted(folder.iterdir()) if folder.is_dir() else []:
            if (table_dir / "metadata").is_dir():
                found.append(PipelineRef(ns.name, STAGING_LAYER, table_dir.name))
    return found


def create_stage(spark: "SparkSession", ref: PipelineRef, run_id: str, branch: str, schema: "StructType",
                 properties: dict[str, str], partition_column: str | None) -> IcebergTable:
    """An empty staging table with the new schema and properties, and the run's branch on it."""
    stage = IcebergTable(spark, staging_ref(ref, run_id))
    stage.create_empty(schema, properties, partition_column)
    stage.create_branch(branch)
    return stage


def replace_from_stage(spark: "SparkSession", table: IcebergTable, stage: IcebergTable, branch: str, run_id: str,
                       strategy: str, properties: dict[str, str], partition_column: str | None) -> None:
    """Main becomes the staged rows, with their schema and properties, in one commit that carries the
    run id and strategy."""
    from pyspark.sql import functions as F

    writer = spark.table(stage.branch_ident(branch)).writeTo(table.ident).using("iceberg")
    writer = writer.option(f"snapshot-property.{RUN_ID_PROPERTY}", run_id).option(
        f"snapshot-property.{STRATEGY_PROPERTY}", strategy)
    if partition_column:
        writer = writer.partitionedBy(F.col(partition_column))
    for key, value in properties.items():
        writer = writer.tableProperty(key, value)
    writer.createOrReplace()
