"""Loading a landing CSV into bronze (dropped into the zone, or uploaded and so read through its
typed Parquet twin), and merging a 1% delta (keys spread over the table, or among the newest 5%):
the product beside bare Spark and beside DuckDB → Arrow → PyIceberg (the reference platform's
in-memory way), with ratios.

    python bench/ingest.py --rows 5000000 --repeat 3     # also --rows 20000000

All three write Iceberg tables on this machine. The product runs through the Workbench on a warm
session (as the TUI and `--script` do); bare Spark reads the same file with a known schema on the
same session; the DuckDB way runs in a child process so its peak memory is its own. Others share
this 2-core machine, so every figure is divided by the mean of the bare loads run just before and
just after it, and the median of those ratios over the rounds is printed.
"""
from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import rss_mb, timed  # noqa: E402

from rat_tui.core.compose import open_project  # noqa: E402

SCHEMA = "order_id BIGINT, customer_id BIGINT, total_amount DOUBLE, status STRING, updated_at TIMESTAMP"
COLUMNS = "order_id, customer_id, total_amount, status, updated_at"


def write_csv(path: Path, rows: int, start: int = 0, step: int = 1) -> None:
    import duckdb

    duckdb.sql(f"""COPY (SELECT {start} + i * {step} AS order_id, (i * 7919) % 100000 AS customer_id,
                   round(((i * 31) % 100000) / 100.0, 2) AS total_amount,
                   ['placed', 'shipped', 'delivered', 'returned'][1 + (i % 4)] AS status,
                   TIMESTAMP '2024-01-01' + to_seconds(i % 8000000) AS updated_at
                   FROM range({rows}) t(i)) TO '{path}' (HEADER, DELIMITER ',')""")


def pipeline(root: Path, name: str, header: str, zone: str = "orders") -> str:
    base = root / "bench" / "pipelines" / "bronze" / name
    base.mkdir(parents=True, exist_ok=True)
    (base / "pipeline.sql").write_text(textwrap.dedent(header).lstrip() + f"SELECT {COLUMNS} FROM {{{{ landing_zone('{zone}') }}}}\n")
    return f"bench.bronze.{name}"


DUCKDB_PEER = r'''
import json, resource, sys, time
import duckdb
from pyiceberg.catalog.sql import SqlCatalog
csv, delta, warehouse = sys.argv[1:4]
catalog = SqlCatalog("bench", uri=f"sqlite:///{warehouse}/catalog.db", warehouse=f"file://{warehouse}")
catalog.create_namespace("bronze")
began = time.monotonic()
data = duckdb.sql(f"SELECT * FROM read_csv('{csv}')").fetch_arrow_table()
table = catalog.create_table("bronze.orders", schema=data.schema)
table.append(data)
load = time.monotonic() - began
began = time.monotonic()
table.upsert(duckdb.sql(f"SELECT * FROM read_csv('{delta}')").fetch_arrow_table(), join_cols=["order_id"])
merge = time.monotonic() - began
print(json.dumps({"load": load, "merge": merge, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
'''


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=1, help="rounds; medians are printed")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="rat-ingest-"))
    root = work / "project"
    zone = root / "bench" / "landing" / "orders"
    zone.mkdir(parents=True)
    data, delta = work / "orders.csv", work / "delta.csv"
    write_csv(data, args.rows)
    write_csv(delta, args.rows // 100, start=13, step=97)  # 1% of the keys, spread over the table
    recent = work / "recent.csv"  # 1% of the keys, all among the newest 5% (data files hold key ranges)
    write_csv(recent, args.rows // 100, start=args.rows - args.rows // 20, step=5)
    print(f"{args.rows:,} rows, {data.stat().st_size / 1e6:.0f} MB CSV, {args.repeat} round(s)")
    full = pipeline(root, "full", "-- @merge_strategy: full_refresh\n")
    incr = pipeline(root, "incr", "-- @merge_strategy: incremental\n-- @unique_key: order_id\n")
    typed = pipeline(root, "typed", "-- @merge_strategy: full_refresh\n", zone="uploaded")
    typed_incr = pipeline(root, "typed_incr", "-- @merge_strategy: incremental\n-- @unique_key: order_id\n",
                          zone="uploaded")
    seconds: dict[str, list[float]] = {}
    ratios: dict[str, list[float]] = {}  # each against the bare loads just before and just after it
    phases: dict[str, list[dict]] = {}
    memory: dict[str, list[float]] = {}  # the Python process's RSS after each step (the JVM is separate)
    wb = open_project(root)
    try:
        spark = wb.spark.session(timeout=300)
        print(f"Python RSS once the session is ready: {rss_mb():.0f} MB")
        wb.spark.ensure_catalog("bench")
        shutil.copy(data, zone / "orders.csv")
        wb.runs.run(full)  # warm: the first query and table creation are not what a user waits for daily

        def bare_load() -> None:
            spark.read.schema(SCHEMA).options(header=True).csv(str(data)).writeTo(
                "bench.bronze.bare").using("iceberg").createOrReplace()

        def bare_merge() -> None:
            spark.read.schema(SCHEMA).options(header=True).csv(str(delta)).createOrReplaceTempView("delta")
            spark.sql("MERGE INTO bench.bronze.bare t USING delta s ON t.order_id = s.order_id "
                      "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")

        def bare() -> float:
            took = timed(bare_load)[0]
            seconds.setdefault("bare Spark load", []).append(took)
            return took

        def beside_bare(name: str, before: float, work_fn) -> float:
            """Others share this machine: a figure is only compared with bare loads run next to it."""
            took, result = timed(work_fn)
            after = bare()
            seconds.setdefault(name, []).append(took)
            memory.setdefault(name, []).append(rss_mb())
            ratios.setdefault(name, []).append(took / ((before + after) / 2))
            if result is not None:
                phases.setdefault(name, []).append(result.as_dict()["run"]["phases"])
            return after

        def upload() -> None:
            (root / "bench" / "landing" / "uploaded" / data.name).unlink(missing_ok=True)
            wb.landing.upload("bench", "uploaded", [str(data)])

        bare_load()
        for _ in range(args.repeat):
            for table in ("incr", "typed_incr"):
                spark.sql(f"DROP TABLE IF EXISTS bench.bronze.{table} PURGE")
            for stale in zone.glob("*.csv"):
                stale.unlink()
            shutil.copy(data, zone / "orders.csv")  # a new file each round: its schema is sampled again
            last = bare()
            last = beside_bare("product full_refresh", last, lambda: wb.runs.run(full))
            last = beside_bare("product incremental, first run", last, lambda: wb.runs.run(incr))
            # Through `upload`: copied, then converted once to a typed Parquet twin that runs read.
            last = beside_bare("upload (copy + typed twin)", last, upload)
            last = beside_bare("product full_refresh, uploaded file", last, lambda: wb.runs.run(typed))
            last = beside_bare("product incremental first run, uploaded", last, lambda: wb.runs.run(typed_incr))
            (zone / "orders.csv").unlink()
            shutil.copy(delta, zone / "delta.csv")
            last = beside_bare("product 1% merge", last, lambda: wb.runs.run(incr))
            (zone / "delta.csv").unlink()
            shutil.copy(recent, zone / "recent.csv")
            last = beside_bare("product 1% merge, newest 5% of keys", last, lambda: wb.runs.run(incr))
            (zone / "recent.csv").unlink()
            # What the user does next: a count in the console, and the tree's refresh after every command.
            last = beside_bare("query SELECT count(*) after the merges", last,
                               lambda: wb.console.query("SELECT count(*) FROM bench.bronze.incr") and None)
            last = beside_bare("overview (the tree's refresh)", last, lambda: wb.browse.overview() and None)
            last = beside_bare("bare Spark MERGE (copy-on-write)", last, bare_merge)
        peer_dir = work / "peer"
        peer_dir.mkdir()
        peer_out = subprocess.run([sys.executable, "-c", DUCKDB_PEER, str(data), str(delta), str(peer_dir)],
                                  check=True, capture_output=True, text=True).stdout
        peer = json.loads(peer_out.strip().splitlines()[-1])  # its last line: libraries may print before it
        peer_bare = (last + bare()) / 2
    finally:
        wb.close()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{'median of ' + str(args.repeat) + ' rounds':40s} {'seconds':>8s} {'vs bare load beside it':>23s}   "
          "seconds in each round")
    for name, values in seconds.items():
        ratio = f"{statistics.median(ratios[name]):22.2f}x" if name in ratios else f"{'1.00x':>23s}"
        print(f"{name:40s} {statistics.median(values):8.1f} {ratio}   {' '.join(f'{v:.1f}' for v in values)}")
    for name, took in (("DuckDB + PyIceberg load", peer["load"]), ("DuckDB + PyIceberg 1% upsert", peer["merge"])):
        print(f"{name:40s} {took:8.1f} {took / peer_bare:22.2f}x")
    print(f"(the peer runs once, in its own process, between two bare loads averaging {peer_bare:.1f} s)")
    for name, values in memory.items():
        print(f"Python RSS after {name:40s} {max(values):6.0f} MB (highest of the rounds)")
    print(f"peak RSS: product's Python {rss:.0f} MB (the JVM is separate); DuckDB + PyIceberg {peer['rss_mb']:.0f} MB")
    for name, runs in phases.items():
        print(f"{name} phases (ms, median): " + ", ".join(
            f"{phase} {statistics.median(r.get(phase, 0) for r in runs):.0f}" for phase in runs[0]))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
