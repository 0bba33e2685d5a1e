"""`rat-tui init DIR`: a new project that runs as written (a namespace, a landing zone with a small file,
a bronze pipeline with a quality test and a unit test, a commented rat.yaml, a .gitignore for the state)."""
from __future__ import annotations

from pathlib import Path

from ..errors import RatError

NAMESPACE, ZONE, PIPELINE = "shop", "orders", "shop.bronze.orders"

RAT_YAML = """\
# Project settings. Every key is optional; docs/rat-yaml.md lists them all.
spark:
  master: local[2]          # Spark on this machine with two cores; any Spark master URL works
  driver_memory: 1g
  conf:
    spark.sql.shuffle.partitions: 4   # small tables want few partitions
watch:
  debounce_ms: 300          # in the TUI, a save re-runs its pipeline this long after the last write
# runs:
#   unit_tests_before_build: true     # a build runs the unit tests first and builds nothing if one fails
# retention:
#   snapshot_max_age_days: 7          # `purge` expires table snapshots older than this
"""

GITIGNORE = """\
# What rat-tui writes into a project as you use it: app state, tables, landing samples, typed
# copies, archived landing files and console exports. The files you write stay listed.
/.rat/
/*/warehouse/
_samples/
_typed/
_processed/
.sample_sources.json
/exports/
"""

ORDERS_CSV = """\
order_id,customer,amount,order_date
1,Ada,19.90,2024-01-02
2,Grace,5.00,2024-01-03
3,Alan,42.50,2024-01-03
4,Ada,7.25,2024-01-05
"""

PIPELINE_SQL = """\
-- @merge_strategy: append_only
-- @description: Orders as they landed, typed; _source_file names the file each row came from
SELECT
  CAST(order_id AS INT) AS order_id,
  customer,
  CAST(amount AS DECIMAL(10, 2)) AS amount,
  CAST(order_date AS DATE) AS order_date,
  _source_file
FROM {{ landing_zone('orders') }}
"""

QUALITY_SQL = """\
-- @severity: error
-- @description: no order has a negative amount (the rows this returns fail the run)
SELECT * FROM {{ this }} WHERE amount < 0
"""

UNIT_YAML = """\
# A landing file's values arrive as text; the pipeline types them.
given:
  - input: landing_zone('orders')
    rows:
      - {order_id: '1', customer: Ada, amount: '19.90', order_date: '2024-01-02'}
      - {order_id: '2', customer: Grace, amount: '5.00', order_date: '2024-01-03'}
expect:
  output:
    - {order_id: 1, customer: Ada, amount: 19.90, order_date: '2024-01-02'}
    - {order_id: 2, customer: Grace, amount: 5.00, order_date: '2024-01-03'}
"""

_PIPELINE_DIR = f"{NAMESPACE}/pipelines/bronze/orders"
FILES = {
    "rat.yaml": RAT_YAML,
    ".gitignore": GITIGNORE,
    f"{NAMESPACE}/landing/{ZONE}/orders_2024_01.csv": ORDERS_CSV,
    f"{_PIPELINE_DIR}/pipeline.sql": PIPELINE_SQL,
    f"{_PIPELINE_DIR}/tests/quality/amount_not_negative.sql": QUALITY_SQL,
    f"{_PIPELINE_DIR}/tests/unit/types_the_rows.yaml": UNIT_YAML,
}


def is_empty_folder(root: Path) -> bool:
    """A folder with nothing of its own yet (hidden entries such as .git or .rat aside)."""
    return root.is_dir() and not any(not entry.name.startswith(".") for entry in root.iterdir())


def scaffold(root: Path) -> list[Path]:
    """Write the new project's files into `root` (made if missing); refuses a folder that holds a project
    or any of these files, so nothing of the user's is overwritten."""
    if (root / "rat.yaml").exists():
        raise RatError(f"{root} already holds a project (it has a rat.yaml); nothing was written")
    taken = [relpath for relpath in FILES if (root / relpath).exists()]
    if taken:
        raise RatError(f"{root / taken[0]} exists; init writes only into a folder without these files, "
                       f"so nothing was written")
    written = []
    for relpath, text in FILES.items():
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
