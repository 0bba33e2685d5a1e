"""Pipeline unit tests (`tests/unit/*.yaml`): run on sessions of their own, never on the project's lake."""
from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from ..errors import RatError
from ..project.graph import ProjectGraph
from ..project.model import PipelineRef
from ..run.loading import load_checked
from ..run.selection import Selector
from ..unittests.execute import UnitResult, run_unit_test
from ..unittests.spec import UNIT_FOLDER, UnitTest, parse_unit_test
from .base import WorkbenchParts

# Tests run side by side, each on its own session: two at a time keep 2 cores busy (bench/unit_tests.py).
PARALLEL_TESTS = 2


class UnitTestCommands(WorkbenchParts):
    graph: Callable[[], ProjectGraph]  # commands/graph.py

    def unit_test(self, selector: str | None = None) -> dict:
        """Every unit test of the selection (`NS.LAYER.NAME`, `NAME+`, `+NAME`, `+NAME+`; none: all)."""
        return self.unit_test_pipelines(self._unit_selection(selector))

    def unit_test_pipelines(self, refs: list[PipelineRef]) -> dict:
        """`tests: [...]`; a RatError carrying them when any did not pass (so CI can gate on it)."""
        results = self.unit_test_results(refs)
        outcome = {"tests": [r.as_dict() for r in results]}
        bad = [r for r in results if r.status != "passed"]
        if bad:
            raise RatError.with_result(f"{len(bad)} of {len(results)} unit test(s) did not pass; first: "
                                       f"{bad[0].pipeline} {bad[0].name} {bad[0].status}: {bad[0].error}", outcome)
        return outcome

    def unit_test_results(self, refs: list[PipelineRef]) -> list[UnitResult]:
        jobs: list[Callable[[], UnitResult]] = []
        for ref in refs:
            jobs += self._unit_jobs(ref)
        if not jobs:
            return []
        with ThreadPoolExecutor(max_workers=min(PARALLEL_TESTS, len(jobs)), thread_name_prefix="unit-test") as pool:
            return list(pool.map(lambda job: job(), jobs))

    def unit_test_files(self, ref: PipelineRef) -> list[str]:
        folder = self.project.pipeline_dir(ref) / UNIT_FOLDER
        return [self.project.rel(path) for path in sorted(folder.glob("*.yaml"))] if folder.is_dir() else []

    def _unit_selection(self, selector: str | None) -> list[PipelineRef]:
        if not selector:
            return self.project.scan().pipelines()
        if Selector.parse(selector).is_graph:
            return [PipelineRef.parse(name) for name in Selector.parse(selector).select(self.graph())]
        return [self.project.find_pipeline(selector)]

    def _unit_jobs(self, ref: PipelineRef) -> list[Callable[[], UnitResult]]:
        paths = self.unit_test_files(ref)
        if not paths:
            return []
        try:
            pipeline = load_checked(ref, self.project.read_pipeline_files(ref))
            failure = None
        except RatError as exc:
            pipeline, failure = None, exc.sentence()
        jobs: list[Callable[[], UnitResult]] = []
        for relpath in paths:
            name = relpath.rsplit("/", 1)[-1].removesuffix(".yaml")
            try:
                test = parse_unit_test((self.project.root / relpath).read_text(encoding="utf-8"), relpath, ref.fqn)
            except RatError as exc:
                jobs.append(lambda error=exc.sentence(), name=name: UnitResult(ref.fqn, name, "error", error=error))
                continue
            if pipeline is None:
                jobs.append(lambda error=failure, name=name: UnitResult(ref.fqn, name, "error", error=error))
                continue
            jobs.append(lambda test=test, pipeline=pipeline: self._one_unit_test(pipeline, test))
        return jobs

    def _one_unit_test(self, pipeline, test: UnitTest) -> UnitResult:
        with self.spark.using(isolated=True) as spark:
            return run_unit_test(spark, self.project, self.storage, pipeline, test)
