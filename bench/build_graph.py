"""`build` of a 20-pipeline project (tiny data): wall time against the same runs one by one,
and with one or two pipelines at a time (the runner's MAX_PARALLEL).

    python bench/build_graph.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import scratch_project, timed, warm_workbench, write_pipeline  # noqa: E402

from rat_tui.core.run import selection  # noqa: E402


def project(root: Path) -> list[str]:
    """4 bronze sources, 8 silver (2 per source), 8 gold (each joins two silver): 20 pipelines."""
    names = [write_pipeline(root, "bronze", f"b{i}", f"SELECT id, id % 7 AS k FROM range({1000 * (i + 1)})")
             for i in range(4)]
    silver = [write_pipeline(root, "silver", f"s{i}", f"SELECT id, k, id * {i} AS v FROM {{{{ ref('bronze.b{i // 2}') }}}}")
              for i in range(8)]
    gold = [write_pipeline(root, "gold", f"g{i}", f"SELECT a.k, SUM(a.v + b.v) AS total FROM {{{{ ref('silver.s{i}') }}}} a "
                                                  f"JOIN {{{{ ref('silver.s{(i + 1) % 8}') }}}} b ON a.id = b.id GROUP BY a.k")
            for i in range(8)]
    return names + silver + gold


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    root = scratch_project("build")
    names = project(root)
    with warm_workbench(root) as wb:
        wb.build(["bench"])  # tables exist and the session is warm
        one_by_one = [timed(lambda: [wb.run(n) for n in wb.graph().order(names)])[0] for _ in range(args.repeat)]
        figures = {}
        for parallel in (1, 2, 3):
            selection.MAX_PARALLEL = parallel
            figures[parallel] = [timed(lambda: wb.build(["bench"]))[0] for _ in range(args.repeat)]
    sequential = statistics.median(one_by_one)
    print(f"20 pipelines, median of {args.repeat}:")
    print(f"  one `run` after another     {sequential:6.1f} s")
    for parallel, times in figures.items():
        print(f"  build, {parallel} at a time          {statistics.median(times):6.1f} s   "
              f"({statistics.median(times) / sequential:.2f}x)")


if __name__ == "__main__":
    main()
