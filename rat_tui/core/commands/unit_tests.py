"""Pipeline unit tests (`tests/unit/*.yaml`): run on sessions of their own, never on the project's lake."""
from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from pathlib import Path

from ..errors import RatError
from ..lake.session import SparkManager
from ..project.graph import GraphCache
from ..project.model import PipelineRef, Project
from ..project.pipeline_source import LoadedPipeline
from ..run.build import build
from ..run.loading import load_checked
from ..run.selection import Selector
from ..unittests.execute import UnitResult, run_unit_test
from ..unittests.fixture import RecordingContext, fixture_text, sample_input
from ..unittests.scratch import ScratchCatalog
from ..unittests.spec import UNIT_FOLDER, UnitTest, parse_unit_test
from ..storage import Storage
from .previews import Previews
from .unit_results import FixtureWritten, ListedUnitTest, UnitTestReport

# Tests run side by side, each on its own session. A unit test's Spark jobs are tiny, so most of its
# time is the driver's (planning, commits): four at a time overlap that on 2 cores (bench/unit_tests.py,
# 20 tests: median 4.98 s two at a time, 4.25 s four at a time).
PARALLEL_TESTS = 4


class UnitTests:
    def __init__(self, project: Project, spark: SparkManager, storage: Storage, graph_cache: GraphCache,
                 previews: Previews, unit_catalog: ScratchCatalog):
        self.project, self.spark, self.storage, self.graph_cache = project, spark, storage, graph_cache
        self.previews = previews
        self.unit_catalog = unit_catalog  # where table_after tests write (removed on close)
        self.unit_last: dict[tuple[str, str], UnitResult] = {}  # the last outcome of each test run in this process

    def unit_test(self, selector: str | None = None) -> UnitTestReport:
        """Every unit test of the selection (`NS.LAYER.NAME`, `NAME+`, `+NAME`, `+NAME+`; none: all)."""
        return self.unit_test_pipelines(self._unit_selection(selector))

    def unit_test_pipelines(self, refs: list[PipelineRef]) -> UnitTestReport:
        """`tests: [...]`; a RatError carrying them when any did not pass (so CI can gate on it)."""
        results = self.unit_test_results(refs)
        outcome = UnitTestReport(results)
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
            results = list(pool.map(lambda job: job(), jobs))
        self.unit_last.update({(r.pipeline, r.name): r for r in results})
        return results

    def unit_test_listing(self, ref: PipelineRef) -> list[ListedUnitTest]:
        """Each test file of the pipeline with its last outcome in this process (status `not run` before)."""
        listed = []
        for relpath in self.unit_test_files(ref):
            name = Path(relpath).stem
            last = self.unit_last.get((ref.fqn, name))
            listed.append(ListedUnitTest(last or UnitResult(ref.fqn, name, "not run"), relpath,
                                         last.ms if last is not None else None))
        return listed

    def unit_test_files(self, ref: PipelineRef) -> list[str]:
        folder = self.project.pipeline_dir(ref) / UNIT_FOLDER
        return [self.project.rel(path) for path in sorted(folder.glob("*.yaml"))] if folder.is_dir() else []

    def _unit_selection(self, selector: str | None) -> list[PipelineRef]:
        if not selector:
            return self.project.scan().pipelines()
        if Selector.parse(selector).is_graph:
            return [PipelineRef.parse(name) for name in Selector.parse(selector).select(self.graph_cache.graph())]
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
            return run_unit_test(spark, self.project, self.storage, self.unit_catalog, pipeline, test)

    def unit_fixture(self, pipeline: str, rows: int | None = None) -> FixtureWritten:
        """A unit test written from a preview of the pipeline (unit/fixture.py says which rows it keeps):
        `tests/unit/preview.yaml`, or `preview_2.yaml`… when that exists (never overwritten)."""
        ref = self.project.find_pipeline(pipeline)
        loaded = load_checked(ref, self.project.read_pipeline_files(ref))
        limit = rows or self.project.settings.unit_fixture_rows
        given, this, variables = self._recorded_inputs(ref, loaded, limit)
        folder = self.project.pipeline_dir(ref) / UNIT_FOLDER
        draft = parse_unit_test(fixture_text(ref.fqn, given, this, variables, []),
                                self.project.rel(folder / "preview.yaml"), ref.fqn)
        # Run with nothing expected: every row the pipeline gives is "unexpected", which is the output.
        output = self._one_unit_test(loaded, draft)
        if output.status == "error":
            raise RatError(f"a unit test from the preview of {ref.fqn} does not run: {output.error}")
        path = _new_file(folder, "preview", fixture_text(ref.fqn, given, this, variables, output.unexpected))
        relpath = self.project.rel(path)
        check = self._one_unit_test(loaded, parse_unit_test(path.read_text(encoding="utf-8"), relpath, ref.fqn))
        self.unit_last[(ref.fqn, check.name)] = check
        return FixtureWritten(relpath, check.name, {label: len(r) for label, r in given.items()},
                              len(output.unexpected), check)

    def _recorded_inputs(self, ref: PipelineRef, loaded: LoadedPipeline, limit: int) -> tuple[dict, list | None, dict]:
        """(given rows by input, `this` rows when the preview read the table incrementally, vars)."""
        keys = list(loaded.config.unique_key or [])
        with self.spark.using(isolated=True) as spark:
            ctx = self.previews.context(spark, ref, loaded.config, RecordingContext)
            try:
                output = build(ctx, loaded)
                given = {label: sample_input(df, output, keys, limit) for label, df in ctx.recorded.items()}
                this, variables = None, {}
                if ctx.is_incremental():
                    this = sample_input(spark.table(ctx.table.ident), output, keys, limit)
                    variables["is_incremental"] = True
                    if loaded.config.watermark_column:
                        variables["watermark_value"] = ctx.watermark_value()
                if "run_started_at" in loaded.source:
                    variables["run_started_at"] = ctx.run_started_at
                if ctx.interval is not None:  # a partitioned pipeline's preview builds its newest interval
                    variables["interval_start"] = ctx.interval.start_text
            finally:
                ctx.cleanup()
        return given, this, variables


def _new_file(folder: Path, stem: str, text: str) -> Path:
    """`stem.yaml`, else `stem_2.yaml`, `stem_3.yaml`…: the first name free, taken atomically."""
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(1, 10_000):
        path = folder / (f"{stem}.yaml" if n == 1 else f"{stem}_{n}.yaml")
        try:
            with path.open("x", encoding="utf-8") as file:
                file.write(text)
            return path
        except FileExistsError:
            continue
    raise RatError(f"{folder} holds too many {stem}_N.yaml files")
