"""Column lineage of 300 generated SQL pipelines (a zone, 60 bronze, 120 silver joins, 120 gold
aggregations and windows), from scratch and after one save, without Spark. Targets: ≤ 5 s, ≤ 200 ms.

    python bench/column_lineage.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import scratch_project, timed, write_pipeline  # noqa: E402

from rat_tui.core.lineage.schemas import SchemaReader  # noqa: E402
from rat_tui.core.lineage.service import ColumnLineage  # noqa: E402
from rat_tui.core.project.graph import GraphCache  # noqa: E402
from rat_tui.core.project.model import PipelineRef, Project  # noqa: E402


def silver_sql(i: int, factor: int) -> str:
    return f"""
        WITH a AS (SELECT * FROM {{{{ ref('bronze.b{i % 60}') }}}} WHERE amount > 0)
        SELECT a.id, a.customer, a.amount * {factor} AS amount, b.status
        FROM a JOIN {{{{ ref('bronze.b{(i + 1) % 60}') }}}} b ON a.id = b.id"""


def project(root: Path) -> None:
    zone = root / "bench" / "landing" / "orders"
    zone.mkdir(parents=True)
    (zone / "orders.csv").write_text("id,customer,amount,status,day\n1,ada,10.5,paid,2024-01-01\n")
    for i in range(60):
        write_pipeline(root, "bronze", f"b{i}", "SELECT *, CAST(amount AS DOUBLE) AS amount_d "
                                                "FROM {{ landing_zone('orders') }}")
    for i in range(120):
        write_pipeline(root, "silver", f"s{i}", silver_sql(i, 1))
    for i in range(120):
        write_pipeline(root, "gold", f"g{i}", f"""
            SELECT customer, status, SUM(amount) AS total,
                   ROW_NUMBER() OVER (PARTITION BY status ORDER BY SUM(amount) DESC) AS rank_in_status
            FROM {{{{ ref('silver.s{i}') }}}} GROUP BY customer, status""")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    root = scratch_project("lineage")
    project(root)
    try:
        scratch, saves, rescans = [], [], []
        for _ in range(args.repeat):
            proj = Project(root)
            service = ColumnLineage(proj, GraphCache(proj), SchemaReader(proj))
            seconds, found = timed(service.pipelines)
            assert len(found) == 300 and not [n for n, lin in found.items() if lin.problem], "a pipeline is unknown"
            scratch.append(seconds)
            for factor in (2, 3):  # a save that changes a silver query: it and its gold reader recompute
                write_pipeline(root, "silver", "s7", silver_sql(7, factor))
                saves.append(timed(lambda: service.saved([PipelineRef("bench", "silver", "s7")]))[0])
            write_pipeline(root, "silver", "s7", silver_sql(7, 4))  # the same, found by a whole re-read
            rescans.append(timed(service.pipelines)[0])
        edges = sum(len(lin.edges) for lin in found.values())
        print(f"300 pipelines, {edges} column edges")
        print(f"from scratch: first (cold template cache) {scratch[0]:.2f} s, median {statistics.median(scratch):.2f} s (runs: {', '.join(f'{s:.2f}' for s in scratch)})"
              f"  target ≤ 5 s")
        print(f"after one save: median {statistics.median(saves) * 1000:.0f} ms "
              f"(runs: {', '.join(f'{s * 1000:.0f}' for s in saves)})  target ≤ 200 ms")
        print(f"after one save, found by re-reading the project: median {statistics.median(rescans) * 1000:.0f} ms")
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
