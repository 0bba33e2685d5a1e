"""Warming the JVM on the paths a run takes, once the session has started: the first run after
opening paid for Spark's and Iceberg's first use of each path (8.6 s for 300 rows, 3.6 s for the
next pipeline's first MERGE; 0.8 s once warm).

The work runs on a scratch table in a catalog of its own, registered only on the warm-up's own
session and kept in a temp folder outside the project, so nothing of it shows in the tree, the
tables, the state or a purge; the folder is removed at the end. It runs in a job group of its own
and stops at the next step (its running jobs cancelled) as soon as a run, preview or query enters
the session: nobody waits for it.
"""
from __future__ import annotations

import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ..events import WarmUpProgress
from ..lake.diff import table_diff
from ..lake.session import SparkManager, catalog_conf
from ..lake.table import IcebergTable, quote, run_branch
from ..landing.zone_reader import ZoneReader
from ..landing.zone_settings import ZoneReadSettings
from ..project.model import PipelineRef

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)

WARM_UP_GROUP = "rat-warm-up"
WARM_UP_CATALOG = "rat_warm_up"  # set on the warm-up's own session only: it never shadows a project namespace
_CSV = "id,amount,status,updated_at\n1,2.5,placed,2024-01-01 10:00:00\n2,3.5,shipped,2024-01-02 11:00:00\n"
# A merging table's settings, as a run makes them (run/strategies.table_properties).
_PROPERTIES = {"format-version": "2", "write.merge.mode": "merge-on-read", "write.update.mode": "merge-on-read",
               "write.delete.mode": "merge-on-read"}


def start_warm_up(spark: SparkManager) -> threading.Thread:
    """Warm the session in a daemon thread (it waits for the session to start)."""
    thread = threading.Thread(target=warm_up, args=(spark,), name="spark-warm-up", daemon=True)
    thread.start()
    return thread


def warm_up(spark: SparkManager) -> bool:
    """Run the warm-up steps until done or told to stop; True when every step ran."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)  # this thread only (Linux)
    except (AttributeError, OSError):
        pass
    done, total, finished = 0, 0, False
    folder = Path(tempfile.mkdtemp(prefix="rat-warm-up-"))
    try:
        with spark.idle_work(WARM_UP_GROUP) as (session, stop):
            for key, value in catalog_conf(WARM_UP_CATALOG, folder.as_uri(), "hadoop", {}).items():
                session.conf.set(key, value)
            steps = list(_steps(session, folder))  # the zone read (schema sampled) runs here
            total = len(steps)
            for step in steps:
                if stop.is_set():
                    break
                spark.events.publish(WarmUpProgress(done, total, "warming"))
                step()
                done += 1
            else:
                finished = True
    except Exception as exc:  # a failed start, a cancel or a stop: the warm-up is only a favour
        log.debug("warm-up stopped after %d steps: %s", done, exc)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        spark.events.publish(WarmUpProgress(done, total, "done" if finished else "stopped"))
    log.info("warm-up ran %d steps%s", done, "" if finished else " and stopped")
    return finished


def _steps(spark: "SparkSession", folder: Path) -> Iterator[Callable[[], object]]:
    """What a run does, in its order: read a landing CSV (schema inferred) and check its keys, create
    the table, write on a run branch, MERGE, its diff, quality queries, fast-forward main, drop the branch;
    then what the console does (rows to Arrow)."""
    from pyspark.sql import functions as F

    csv = folder / "orders.csv"
    csv.write_text(_CSV)
    table = IcebergTable(spark, PipelineRef(WARM_UP_CATALOG, "warm", "orders"))
    branch = run_branch("warm_up")
    target = table.branch_ident(branch)
    # Casts as a silver pipeline writes them; the run's own checks (NULL keys, unique keys) follow.
    # The run's own zone reader: dialect detection, the sampled schema and the FAILFAST read.
    raw, _ = ZoneReader(spark, folder, "warm-up", [csv], lambda path: "file:" + str(path), ZoneReadSettings()).read()
    frame = raw.selectExpr(
        "CAST(id AS BIGINT) AS id", "CAST(amount AS DECIMAL(12, 2)) AS amount", "LOWER(TRIM(status)) AS status",
        "CAST(updated_at AS TIMESTAMP) AS updated_at", "CAST(updated_at AS DATE) AS day")
    yield frame.count
    yield lambda: frame.filter(F.col("id").isNull()).count()
    yield lambda: frame.select("id").distinct().count()
    yield lambda: table.create_empty(frame.schema, _PROPERTIES, None)
    yield lambda: table.schema_and_property("rat.unique-key")
    yield lambda: table.create_branch(branch, table.head("main"))
    yield lambda: frame.orderBy("updated_at").writeTo(target).overwrite(F.lit(True))
    yield lambda: frame.createOrReplaceTempView("rat_warm_up_source")
    before: list[int] = []
    yield lambda: before.append(table.head(branch))
    yield lambda: spark.sql(f"MERGE INTO {target} t USING rat_warm_up_source s ON t.id = s.id "
                            "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    # A reviewed or gated run's diff of its branch against main (changed files, delete files).
    yield lambda: table_diff(table, before[0], table.head(branch), ["id"])
    # Quality tests: a filter, and a GROUP BY ... HAVING (a shuffle).
    yield lambda: spark.sql(f"SELECT * FROM {target} WHERE id IS NULL").count()
    yield lambda: spark.sql(f"SELECT id, count(*) FROM {target} GROUP BY id HAVING count(*) > 1").count()
    yield lambda: table.head_summary(branch)
    yield lambda: table.added_range(branch, "id")
    yield lambda: table.fast_forward(branch)
    yield lambda: table.drop_branch(branch)
    yield lambda: spark.table(table.ident).limit(11)._collect_as_arrow()
    yield lambda: spark.sql(f"DROP TABLE IF EXISTS {quote(WARM_UP_CATALOG, 'warm', 'orders')} PURGE")
