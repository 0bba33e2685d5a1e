"""The merge benchmark on local[*] and on a local standalone cluster (started and stopped here).

    python bench/cluster_vs_local.py [--rows 5000000]

On one 2-core machine the cluster is not faster; this shows that the same project works
there and what the extra hop costs.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def bench(rows: int, master: str | None) -> str:
    command = [sys.executable, str(HERE / "merge_vs_refresh.py"), "--rows", str(rows)]
    if master:
        command += ["--master", master]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return "\n".join(line for line in done.stdout.splitlines() if line and not line.startswith("cold"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=5_000_000)
    args = parser.parse_args()
    print(f"== local[*]\n{bench(args.rows, None)}")
    with tempfile.TemporaryDirectory() as tmp:
        cli = [sys.executable, "-m", "rat_tui", "cluster"]
        started = subprocess.run([*cli, "start", tmp, "--cores", "2", "--memory", "4g"], capture_output=True, text=True,
                                 check=True)
        master = json.loads(started.stdout)["master_url"]
        try:
            print(f"== standalone cluster {master} (1 worker, 2 cores)\n{bench(args.rows, master)}")
        finally:
            subprocess.run([*cli, "stop", tmp], capture_output=True, check=False)


if __name__ == "__main__":
    main()
