"""Writing small pipelines and landing files into a namespace of the shared test lake."""
from __future__ import annotations

import itertools
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

from devkit.sample import pristine_sample
from rat_tui.core.compose import Workbench
from rat_tui.core.errors import RatError

_counter = itertools.count(1)


@dataclass
class Scratch:
    wb: Workbench
    ns: str

    @classmethod
    def create(cls, wb: Workbench, test_name: str) -> "Scratch":
        slug = re.sub(r"[^a-z0-9_]", "_", test_name.lower())[:40].strip("_")
        ns = f"t{next(_counter)}_{slug}"
        (wb.project.root / ns / "pipelines").mkdir(parents=True)
        return cls(wb, ns)

    @property
    def root(self) -> Path:
        return self.wb.project.root / self.ns

    def pipeline(self, layer: str, name: str, sql: str, tests: dict[str, str] | None = None,
                 filename: str = "pipeline.sql", config: str | None = None) -> str:
        base = self.root / "pipelines" / layer / name
        base.mkdir(parents=True, exist_ok=True)
        (base / filename).write_text(textwrap.dedent(sql).lstrip())
        if config is not None:
            (base / "config.yaml").write_text(textwrap.dedent(config))
        for test_name, test_sql in (tests or {}).items():
            (base / "tests" / "quality").mkdir(parents=True, exist_ok=True)
            (base / "tests" / "quality" / f"{test_name}.sql").write_text(textwrap.dedent(test_sql).lstrip())
        return f"{self.ns}.{layer}.{name}"

    def landing(self, zone: str, relpath: str, content: str) -> Path:
        path = self.root / "landing" / zone / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(content).lstrip())
        return path

    def run(self, fqn: str, **kwargs) -> dict:
        """A run's record, whether it succeeded or not."""
        return self.wb.runs.submit(fqn, **kwargs).wait().as_dict()

    def rows(self, sql: str) -> list[list]:
        return self.wb.console.query(sql).as_dict()["rows"]

    def refs(self, fqn: str) -> dict[str, int]:
        return self.wb.tables.snapshots(fqn).refs

    def table_exists(self, layer: str, name: str) -> bool:
        return (self.root / "warehouse" / layer / name / "metadata").is_dir()


MERGE_BATCHES = [
    "(1, 'a'), (2, 'b'), (3, 'c')",
    "(2, 'B'), (4, 'd')",  # key 2 updated, key 4 new
    "(3, 'C'), (5, 'e'), (6, 'f')",  # key 3 updated, keys 5 and 6 new
]


def merge_batches(scratch: Scratch, batches: list[str] = MERGE_BATCHES) -> tuple[str, list[str]]:
    """An incremental pipeline (key `id`) run once per batch of VALUES: (its name, the run ids). Each
    merge after the first leaves two snapshots on main, the delete of the batch's keys and the append."""
    run_ids = []
    for batch in batches:
        fqn = scratch.pipeline("silver", "customers", f"""
            -- @merge_strategy: incremental
            -- @unique_key: id
            SELECT * FROM VALUES {batch} AS v(id, name)""")
        run = scratch.run(fqn)
        assert run["status"] == "success", run["error"]
        run_ids.append(run["run_id"])
    return fqn, run_ids


def copy_sample_namespace(scratch: Scratch) -> None:
    """The sample's ecommerce pipelines and landing files, inside the scratch namespace."""
    import shutil

    source = pristine_sample() / "ecommerce"
    shutil.copytree(source / "pipelines", scratch.root / "pipelines", dirs_exist_ok=True)
    shutil.copytree(source / "landing", scratch.root / "landing", dirs_exist_ok=True)


def disk_state(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folder` (size, mtime), so a test can prove a refusal wrote nothing."""
    return {p.relative_to(folder).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def findings(scratch: Scratch, fix: bool = False) -> list[dict]:
    """What the consistency check finds (and with `fix`, fixes) in the scratch namespace."""
    try:
        return [f.as_dict() for f in scratch.wb.upkeep.doctor(fix=fix, namespace=scratch.ns).findings]
    except RatError as exc:
        return [f.as_dict() for f in exc.result.findings]


BRONZE = "-- @merge_strategy: full_refresh\nSELECT * FROM {{ landing_zone('raw_%s') }}"
PAYMENTS_PY = '''
def run(spark, ctx):
    return ctx.ref("bronze.payments").selectExpr("id", "order_id", "CAST(amount AS DOUBLE) AS amount")
'''


def jaffle(scratch: Scratch, failing_gate: bool = False) -> dict[str, str]:
    """A jaffle_shop-shaped project (zones → bronze → silver → gold); its pipelines' names by kind."""
    scratch.landing("raw_customers", "c.csv", "id,name\n1,Ann\n2,Bo\n3,Cy\n")
    scratch.landing("raw_orders", "o.csv", "id,customer_id,status\n10,1,placed\n11,1,shipped\n12,2,placed\n")
    scratch.landing("raw_payments", "p.csv", "id,order_id,amount\n100,10,5.0\n101,11,7.5\n102,12,1.0\n")
    names = {kind: scratch.pipeline("bronze", kind, BRONZE % kind) for kind in ("customers", "orders", "payments")}
    names["stg_customers"] = scratch.pipeline("silver", "stg_customers", "SELECT id AS customer_id, name FROM {{ ref('bronze.customers') }}")
    names["stg_orders"] = scratch.pipeline(
        "silver", "stg_orders", "SELECT id AS order_id, customer_id, status FROM {{ ref('bronze.orders') }}",
        tests={"no_orphans": "SELECT * FROM {{ this }} WHERE customer_id " + ("> 0" if failing_gate else "IS NULL")})
    names["stg_payments"] = scratch.pipeline("silver", "stg_payments", PAYMENTS_PY, filename="pipeline.py")
    names["gold_customers"] = scratch.pipeline("gold", "customers", """
        SELECT c.customer_id, c.name, COUNT(o.order_id) AS orders, COALESCE(SUM(p.amount), 0) AS spent
        FROM {{ ref('silver.stg_customers') }} c
        LEFT JOIN {{ ref('silver.stg_orders') }} o ON o.customer_id = c.customer_id
        LEFT JOIN {{ ref('silver.stg_payments') }} p ON p.order_id = o.order_id
        GROUP BY c.customer_id, c.name""")
    names["gold_orders"] = scratch.pipeline("gold", "orders", """
        SELECT o.order_id, o.status, SUM(p.amount) AS amount FROM {{ ref('silver.stg_orders') }} o
        JOIN {{ ref('silver.stg_payments') }} p ON p.order_id = o.order_id GROUP BY o.order_id, o.status""")
    return names
