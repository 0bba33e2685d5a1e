"""Should the product sort a keyed table by its unique key as it writes? What sorting costs on the
load, and what it saves on later merges, when the batch's keys arrive in no particular order.

    python bench/sorted_keys.py [--rows 5000000]

A bronze table holds N unique keys in scrambled order. Two silver `incremental` tables load it,
one in the query's order, one with `ORDER BY id` (data files then hold disjoint key ranges).
Then two 1% batches are merged into each: keys among the newest 5%, and keys spread over the
table. The merge deletes the batch's keys (merge-on-read: a position-delete file for every data
file holding one, which later reads apply) and appends the batch; data files whose key range
misses the batch are pruned from the delete's scan.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import scratch_project, timed, warm_workbench, write_pipeline  # noqa: E402

# 7919 is prime and divides no N used here, so (i * 7919) % N is every key once, scrambled.
BRONZE = "SELECT (id * 7919) % {rows} AS id, id % 1000 AS customer_id, CAST(1 AS BIGINT) AS batch FROM range({rows})"
SILVER = """\
-- @merge_strategy: incremental
-- @unique_key: id
-- @watermark_column: batch
SELECT id, customer_id, batch FROM {{{{ ref('bronze.events') }}}}
{{% if is_incremental() %}} WHERE batch > {{{{ watermark_value }}}} {{% endif %}}
{order}
"""


def delete_files_added(wb, fqn: str) -> int:
    """Position-delete files the merge's delete commit wrote: one per data file holding a batch key."""
    with wb.spark.using() as spark:
        rows = spark.sql(f"SELECT summary FROM {fqn}.snapshots ORDER BY committed_at DESC LIMIT 2").collect()
    return sum(int(r[0].get("added-delete-files", 0)) for r in rows)


def data_files(wb, fqn: str) -> int:
    with wb.spark.using() as spark:
        return spark.sql(f"SELECT COUNT(*) FROM {fqn}.data_files").first()[0]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=5_000_000)
    args = parser.parse_args()
    n = args.rows
    root = scratch_project("sorted")
    with warm_workbench(root) as wb:
        bronze = write_pipeline(root, "bronze", "events", "-- @merge_strategy: append_only\n" + BRONZE.format(rows=n))
        plain = write_pipeline(root, "silver", "plain", SILVER.format(order=""))
        ordered = write_pipeline(root, "silver", "ordered", SILVER.format(order="ORDER BY id"))
        assert wb.runs.run(bronze).as_dict()["run"]["status"] == "success"
        print(f"{n:,} keys in scrambled order")
        for fqn in (plain, ordered):
            took, result = timed(lambda: wb.runs.run(fqn))
            run = result["run"]
            assert run["status"] == "success", run["error"]
            print(f"first load, {fqn.split('.')[-1]:8s} {took:6.1f} s")
        batches = (("newest 5%", f"{n - n // 20} + (id * 5) % {n // 20}"), ("spread", f"(id * 97 + 13) % {n}"))
        for number, (label, key) in enumerate(batches, start=2):
            write_pipeline(root, "bronze", "events", f"-- @merge_strategy: append_only\nSELECT CAST({key} AS BIGINT) AS id, "
                           f"7L AS customer_id, CAST({number} AS BIGINT) AS batch FROM range({n // 100})")
            assert wb.runs.run(bronze).as_dict()["run"]["status"] == "success"
            for fqn in (plain, ordered):
                took, result = timed(lambda: wb.runs.run(fqn))
                run = result["run"]
                assert run["status"] == "success", run["error"]
                print(f"1% merge, keys {label:9s} into {fqn.split('.')[-1]:8s} {took:6.1f} s, "
                      f"delete files for {delete_files_added(wb, fqn)} of {data_files(wb, fqn)} data files")


if __name__ == "__main__":
    main()
