"""Triggers (issue 38): one evaluation of 300 pipelines' triggers (target ≤ 50 ms), the same with the
implicit triggers of `watch.cascade` and `watch.run_on_landing` (which read the project's graph), and the
CPU the scheduler adds to an idle `serve` (target ≤ 1%), measured without Spark: nothing is due, so no run
starts.

    python bench/triggers.py [--pipelines 300] [--seconds 30]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import scratch_project, write_pipeline  # noqa: E402

from rat_tui.core.automation.scheduler import INTERVAL_SECONDS, Scheduler  # noqa: E402
from rat_tui.core.automation.service import Automation  # noqa: E402
from rat_tui.core.automation.store import TickStore  # noqa: E402
from rat_tui.core.events import EventBus  # noqa: E402
from rat_tui.core.project.graph import GraphCache  # noqa: E402
from rat_tui.core.project.model import Project  # noqa: E402
from rat_tui.core.store.state import StateDB  # noqa: E402

TRIGGERS = (  # a mix: most pipelines on a schedule, some after another, some on a zone, a few on a webhook
    'triggers:\n  - cron: "{m} 6 * * 1-5"\n',
    'triggers:\n  - cron: "{m} * * * *"\ncooldown: 10m\n',
    "triggers:\n  - after: [bronze.p{up}]\n    require: all\n",
    'triggers:\n  - landing: drops\n    pattern: "p{m}_*.csv"\n',
    'triggers:\n  - after: [bronze.p{up}]\n    cron: "0 * * * *"\n  - webhook: true\n',
)


def project(root: Path, pipelines: int) -> None:
    (root / "bench" / "landing" / "drops").mkdir(parents=True)
    for i in range(20):
        (root / "bench" / "landing" / "drops" / f"old_{i}.csv").write_text("id\n1\n")
    for i in range(pipelines):
        layer = "bronze" if i < pipelines // 2 else "silver"
        write_pipeline(root, layer, f"p{i}", "SELECT 1 AS id")
        config = TRIGGERS[i % len(TRIGGERS)]
        if "after" in config and layer == "bronze":  # silver ones wait for bronze ones: no cycle
            config = TRIGGERS[0]
        config = config.format(m=i % 60, up=i - pipelines // 2)
        (root / "bench" / "pipelines" / layer / f"p{i}" / "config.yaml").write_text(config)


def implicit_project(root: Path, pipelines: int) -> None:
    """Bronze pipelines read a zone, silver ones a bronze one; rat.yaml turns both watch settings on."""
    (root / "rat.yaml").write_text("watch:\n  cascade: true\n  run_on_landing: true\n")
    (root / "bench" / "landing" / "drops").mkdir(parents=True)
    (root / "bench" / "landing" / "drops" / "old.csv").write_text("id\n1\n")
    half = pipelines // 2
    for i in range(pipelines):
        sql = ("SELECT id FROM {{ landing_zone('drops') }}" if i < half
               else f"SELECT id FROM {{{{ ref('bronze.p{i - half}') }}}}")
        write_pipeline(root, "bronze" if i < half else "silver", f"p{i}", sql)


def timed_evaluations(automation: Automation, at: float) -> tuple[float, list[float]]:
    """The first evaluation (it reads every config.yaml and starts every schedule) and 20 more, in ms."""
    started = time.perf_counter()
    automation.evaluate_and_start(at)
    first = (time.perf_counter() - started) * 1000
    times = []
    for i in range(20):
        started = time.perf_counter()
        automation.evaluate_and_start(at + 1 + i)
        times.append((time.perf_counter() - started) * 1000)
    return first, times


def never(pipeline: str, kind: str):
    raise AssertionError(f"nothing is due in this bench, yet {pipeline} ({kind}) fired")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pipelines", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=30)
    args = parser.parse_args()
    root = scratch_project("triggers")
    project(root, args.pipelines)
    state = StateDB(root / ".rat" / "state.db")
    automation = Automation(Project(root), TickStore(state), EventBus(), never)
    at = time.time() - time.time() % 3600 + 1800  # half past: no cron time of the mix is within a minute
    first, times = timed_evaluations(automation, at)
    print(f"{args.pipelines} pipelines, {sum(len(p.triggers) for p in automation.catalog.all())} triggers")
    print(f"one evaluation: first {first:.1f} ms (parses every config.yaml); then median {statistics.median(times):.1f} ms,"
          f" max {max(times):.1f} ms (target ≤ 50 ms)")

    implicit_root = scratch_project("triggers-implicit")
    implicit_project(implicit_root, args.pipelines)
    implicit = Project(implicit_root)
    with_graph = Automation(implicit, TickStore(StateDB(implicit_root / ".rat" / "state.db")), EventBus(), never,
                            GraphCache(implicit).graph)
    first, times = timed_evaluations(with_graph, time.time())
    print(f"with watch.cascade and run_on_landing ({sum(len(p.triggers) for p in with_graph.catalog.all())} implicit"
          f" triggers): first {first:.1f} ms; then median {statistics.median(times):.1f} ms, max {max(times):.1f} ms")

    scheduler = Scheduler(automation, root / ".rat", "bench")
    scheduler.hold()
    cpu, wall = time.process_time(), time.monotonic()
    scheduler.start(INTERVAL_SECONDS)
    time.sleep(args.seconds)
    scheduler.stop()
    used = (time.process_time() - cpu) / (time.monotonic() - wall) * 100
    print(f"idle scheduler every {INTERVAL_SECONDS:g} s for {args.seconds:g} s: {used:.2f}% of one core (target ≤ 1%)")


if __name__ == "__main__":
    main()
