"""The first runs after opening the sample, each way in a fresh process (a cold JVM):

  cold      the session is ready, no warm-up: what `r` cost before the warm-up existed
  warmed    the session is ready and the warm-up has finished: the TUI's status bar says "Spark ready"
            only now (before: "Spark warming k/19"), so this is the first `r` after "ready"
  at once   a run submitted before Spark has started (`--script run ...`): what it waited for

    python bench/first_run.py [--ways cold,warmed,at-once]

Target (issue 28): the first `r` on the sample ≤ 2 s once the status bar says ready, on a quiet
machine. Prints figures only; others share this machine (see `uptime` beside them).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PIPELINES = ("ecommerce.bronze.raw_orders", "ecommerce.silver.clean_orders", "ecommerce.bronze.raw_products",
             "ecommerce.silver.dim_customers")


def one_way(way: str) -> dict:
    import shutil
    import tempfile

    from devkit.sample import copy_sample
    from rat_tui.core.compose import open_project

    folder = Path(tempfile.mkdtemp(prefix="rat-first-run-"))
    wb = open_project(copy_sample(folder / "project"))
    out: dict = {"way": way, "runs": []}
    try:
        began = time.monotonic()
        if way != "at-once":
            wb.spark.session(timeout=300)
            out["session_s"] = time.monotonic() - began
        if way == "warmed":
            began = time.monotonic()
            wb.warm_up().join(300)
            out["warm_up_s"] = time.monotonic() - began
        for fqn in PIPELINES:
            began = time.monotonic()
            run = wb.runs.run(fqn).as_dict()["run"]
            out["runs"].append({"pipeline": fqn, "seconds": time.monotonic() - began,
                                "waited_for_spark_ms": run["waited_for_spark_ms"], "phases": run["phases"]})
    finally:
        wb.close()
        shutil.rmtree(folder, ignore_errors=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ways", default="cold,warmed,at-once")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # the child process: one way, JSON out
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_way(args.one)))
        return
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    for way in args.ways.split(","):
        load = os.getloadavg()[0]
        done = subprocess.run([sys.executable, __file__, "--one", way], check=True, capture_output=True,
                              text=True, env=env)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        extra = "".join(f", {key} {result[key]:.1f} s" for key in ("session_s", "warm_up_s") if key in result)
        print(f"{way} (load average {load:.1f}{extra}):")
        for run in result["runs"]:
            phases = ", ".join(f"{name} {ms}" for name, ms in run["phases"].items())
            print(f"  {run['pipeline']:32s} {run['seconds']:5.2f} s  waited for Spark {run['waited_for_spark_ms']} ms;"
                  f" phases (ms) {phases}")


if __name__ == "__main__":
    main()
