"""A cold process's `query SELECT 1` (whole `rat-tui --script` process, JVM start included) with the JVM
levers of issue 41 item 5: an AppCDS archive of the classes a session loads (made once, by a first run
with -XX:ArchiveClassesAtExit), C1-only compilation (-XX:TieredStopAtLevel=1), and both.

    python bench/jvm_start.py [--rounds 2]

The flags go in through the project's rat.yaml (spark.conf's spark.driver.extraJavaOptions), so the
product's code is the same in every variant; the variants run interleaved, round after round.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from devkit.sample import copy_sample  # noqa: E402

C1 = "-XX:TieredStopAtLevel=1"


def project(folder: Path, flags: str) -> Path:
    root = copy_sample(folder)
    log4j = (root / ".rat" / "logs" / "log4j2.properties").as_uri()  # what the product passes, kept
    settings = (root / "rat.yaml").read_text().replace(
        "  conf:\n", f"  conf:\n    spark.driver.extraJavaOptions: \"-Dlog4j2.configurationFile={log4j} {flags}\"\n", 1)
    (root / "rat.yaml").write_text(settings)
    return root


def cold_query(root: Path) -> float:
    began = time.monotonic()
    subprocess.run([sys.executable, "-m", "rat_tui", str(root), "--script", "-", "--no-attach"],
                   input="query SELECT 1\n", text=True, check=True, capture_output=True)
    return time.monotonic() - began


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="rat-bench-jvm-"))
    archive = folder / "spark.jsa"
    made = cold_query(project(folder / "make", f"-XX:ArchiveClassesAtExit={archive}"))
    print(f"archive made by a first run in {made:.1f} s: {archive.stat().st_size / 1e6:.0f} MB"
          if archive.exists() else f"no archive was written (first run {made:.1f} s)")
    variants = {"as today": "", "C1 only": C1}
    if archive.exists():
        variants |= {"AppCDS": f"-XX:SharedArchiveFile={archive}", "AppCDS + C1": f"-XX:SharedArchiveFile={archive} {C1}"}
    roots = {name: project(folder / name.replace(" ", "_").replace("+", "and"), flags) for name, flags in variants.items()}
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.rounds):
        for name, root in roots.items():
            times[name].append(cold_query(root))
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    for name, figures in times.items():
        print(f"{name:12} median {statistics.median(figures):6.1f} s  ({', '.join(f'{t:.1f}' for t in figures)})")


if __name__ == "__main__":
    main()
