"""A small project for column lineage, on disk and without Spark: a landing zone with one CSV file,
and SQL pipelines with a join, an aggregation, a filter, a `SELECT *`, a CTE and a window."""
from __future__ import annotations

from pathlib import Path

from rat_tui.core.lineage.model import ColumnRef, PipelineLineage
from rat_tui.core.lineage.schemas import SchemaReader
from rat_tui.core.lineage.service import ColumnLineage
from rat_tui.core.project.graph import GraphCache
from rat_tui.core.project.model import PipelineRef, Project

PIPELINES = {
    "bronze/raw_orders": "SELECT * FROM {{ landing_zone('orders') }}",
    "bronze/raw_customers": "SELECT id, name, city FROM {{ landing_zone('customers') }}",
    "silver/orders": """
WITH typed AS (
  SELECT CAST(order_id AS BIGINT) AS order_id, customer_id, CAST(amount AS DECIMAL(12, 2)) AS amount, status
  FROM {{ ref('bronze.raw_orders') }}
)
SELECT t.order_id, t.amount, c.name AS customer, t.status
FROM typed t JOIN {{ ref('bronze.raw_customers') }} c ON t.customer_id = c.id
""",
    "gold/daily_revenue": """
SELECT status, SUM(amount) AS total FROM {{ ref('silver.orders') }} GROUP BY status""",
    "gold/big_orders": """
SELECT order_id, customer FROM {{ ref('silver.orders') }} WHERE amount > 100""",
    "gold/ranked": """
SELECT order_id, ROW_NUMBER() OVER (PARTITION BY customer ORDER BY amount DESC) AS rank_in_customer,
       CASE WHEN status = 'paid' THEN amount ELSE 0 END AS paid_amount
FROM {{ ref('silver.orders') }}""",
}
ZONES = {
    "orders": "order_id,customer_id,amount,status\n1,10,120.5,paid\n",
    "customers": "id,name,city\n10,Ada,Paris\n",
}


def write_project(root: Path, pipelines: dict[str, str] = PIPELINES) -> Project:
    for zone, text in ZONES.items():
        folder = root / "shop" / "landing" / zone
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{zone}.csv").write_text(text)
    for name, sql in pipelines.items():
        folder = root / "shop" / "pipelines" / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / ("pipeline.py" if sql.startswith("def run") else "pipeline.sql")).write_text(sql)
    return Project(root)


def lineage_service(project: Project) -> ColumnLineage:
    return ColumnLineage(project, GraphCache(project), SchemaReader(project))


def edges_of(lineage: PipelineLineage, column: str) -> set[tuple[str, str, str]]:
    """(source table.column, kind, via) of each edge into `column`, with the namespace left out."""
    return {(e.source.name.removeprefix("shop."), e.kind, e.via) for e in lineage.edges_into(column)}


def col(text: str) -> ColumnRef:
    return ColumnRef.parse(f"shop.{text}")


def write_table_schema(project: Project, fqn: str, columns: dict[str, str]) -> None:
    """An Iceberg table with these columns and no snapshot, written by PyIceberg (no JVM): as a run leaves it
    for what lineage reads of it (the schema)."""
    from pyiceberg.partitioning import UNPARTITIONED_PARTITION_SPEC
    from pyiceberg.schema import Schema
    from pyiceberg.table.metadata import new_table_metadata
    from pyiceberg.table.sorting import UNSORTED_SORT_ORDER
    from pyiceberg.types import NestedField, StringType, DoubleType, LongType

    types = {"string": StringType(), "double": DoubleType(), "long": LongType()}
    schema = Schema(*[NestedField(i + 1, name, types[kind], required=False)
                      for i, (name, kind) in enumerate(columns.items())])
    table_dir = project.table_dir(PipelineRef.parse(fqn))
    metadata = new_table_metadata(schema, UNPARTITIONED_PARTITION_SPEC, UNSORTED_SORT_ORDER, str(table_dir), {})
    (table_dir / "metadata").mkdir(parents=True, exist_ok=True)
    (table_dir / "metadata" / "v1.metadata.json").write_text(metadata.model_dump_json())
    (table_dir / "metadata" / "version-hint.text").write_text("1")
