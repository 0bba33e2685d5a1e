"""`build` of a project of many small pipelines (100 rows each, joins, a quality test each): wall time
and time per pipeline with 1, 2, 3 (the runner's MAX_PARALLEL) and 4 pipelines at a time, against the
same runs one by one; and where a run's time goes (its phases, medians over every run of the build).

    python bench/build_graph.py [--pipelines 150] [--parallel 1,2,3,4] [--repeat 1]
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import scratch_project, timed, warm_workbench, write_pipeline  # noqa: E402

from rat_tui.core.run import selection  # noqa: E402

QUALITY = "SELECT * FROM {{{{ this }}}} WHERE {column} IS NULL\n"


def _pipeline(root: Path, layer: str, name: str, sql: str, column: str) -> str:
    fqn = write_pipeline(root, layer, name, sql)
    tests = root / "bench" / "pipelines" / layer / name / "tests" / "quality"
    tests.mkdir(parents=True, exist_ok=True)
    (tests / "not_null.sql").write_text(QUALITY.format(column=column))
    return fqn


def project(root: Path, count: int) -> list[str]:
    """A fifth bronze sources of 100 rows, two fifths silver (each joins two bronze), two fifths gold
    (each joins two silver and aggregates); every pipeline with a not-NULL quality test."""
    bronze_n = max(2, count // 5)
    silver_n = max(2, (count - bronze_n) // 2)
    gold_n = count - bronze_n - silver_n
    names = [_pipeline(root, "bronze", f"b{i}", f"SELECT id, id % 7 AS k, id * {i} AS v FROM range(100)", "id")
             for i in range(bronze_n)]
    names += [_pipeline(root, "silver", f"s{i}",
                        f"SELECT a.id, a.k, a.v + b.v AS v FROM {{{{ ref('bronze.b{i % bronze_n}') }}}} a "
                        f"JOIN {{{{ ref('bronze.b{(i + 1) % bronze_n}') }}}} b ON a.id = b.id", "id")
              for i in range(silver_n)]
    names += [_pipeline(root, "gold", f"g{i}",
                        f"SELECT a.k, SUM(a.v + b.v) AS total FROM {{{{ ref('silver.s{i % silver_n}') }}}} a "
                        f"JOIN {{{{ ref('silver.s{(i + 1) % silver_n}') }}}} b ON a.id = b.id GROUP BY a.k", "k")
              for i in range(gold_n)]
    return names


def phase_medians(wb, run_ids: list[str]) -> dict[str, float]:
    runs = [r for r in (wb.state.get_run(i) for i in run_ids) if r is not None]
    phases = runs[0].phases.keys() if runs else []
    return {p: statistics.median(r.phases.get(p, 0) for r in runs) for p in phases}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pipelines", type=int, default=150)
    parser.add_argument("--parallel", default="1,2,3,4", help="pipelines at a time, comma-separated")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--one-by-one", action="store_true", help="also time one `run` after another")
    args = parser.parse_args()
    root = scratch_project("build")
    names = project(root, args.pipelines)
    with warm_workbench(root) as wb:
        wb.runs.build(["bench"])  # tables exist and the session is warm
        sequential = None
        if args.one_by_one:
            sequential = statistics.median(
                timed(lambda: [wb.runs.run(n) for n in wb.lineage.graph().order(names)])[0] for _ in range(args.repeat))
        figures, runs = {}, {}
        for parallel in (int(p) for p in args.parallel.split(",")):
            selection.MAX_PARALLEL = parallel
            took = []
            for _ in range(args.repeat):
                seconds, result = timed(lambda: wb.runs.build(["bench"]))
                took.append(seconds)
                runs[parallel] = [r.run_id for r in result.runs]
            figures[parallel] = statistics.median(took)
            print(f"  ({parallel} at a time: {figures[parallel]:.1f} s)", flush=True)
        phases = {parallel: phase_medians(wb, ids) for parallel, ids in runs.items()}
        wall = {parallel: statistics.median((r.finished_at or 0) - (r.started_at or 0)
                                            for r in (wb.state.get_run(i) for i in ids) if r is not None)
                for parallel, ids in runs.items()}
    n = len(names)
    print(f"{n} pipelines (100 rows, joins, a quality test each), median of {args.repeat}:")
    if sequential is not None:
        print(f"  one `run` after another   {sequential:6.1f} s   {sequential / n:.3f} s a pipeline")
    for parallel, seconds in figures.items():
        print(f"  build, {parallel} at a time        {seconds:6.1f} s   {seconds / n:.3f} s a pipeline   "
              f"median run {wall[parallel]:.2f} s")
    for parallel, medians in phases.items():
        print(f"  phases at {parallel} at a time (median ms): " + ", ".join(f"{p} {ms:.0f}" for p, ms in medians.items()))


if __name__ == "__main__":
    main()
