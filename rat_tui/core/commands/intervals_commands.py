"""Intervals and backfills of partitioned pipelines: which intervals are done, failed, missing or stale, and a
backfill that runs the chosen ones as one run (one branch, main moves once, or waits for review as one)."""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone

from ..errors import RatError
from ..project.model import PipelineRef
from ..project.partitions import Interval, Partitions, parse_moment
from ..run.intervals import code_version
from ..run.loading import load_checked
from ..run.phases import RunOptions
from ..store.intervals import IntervalState, IntervalStore
from .base import WorkbenchParts
from .run_results import BackfillResult, IntervalList

CHOICES = ("missing", "failed", "stale")
DEFAULT_CHOICE = ("missing", "failed")


def _moment(text: str | None, flag: str) -> datetime | None:
    if text is None:
        return None
    moment = parse_moment(text)
    if moment is None:
        raise RatError(f"{flag} must be a date or time like 2024-01-01 or 2024-01-01T06:00:00Z, not '{text}'")
    return moment


class IntervalCommands(WorkbenchParts):
    resolve: Callable[[str], PipelineRef]  # commands/workbench.py
    needs_cleanup: Callable[[], bool]  # commands/workbench.py
    cleanup_leftovers: Callable[[], list[str]]  # commands/workbench.py

    def _partitioned(self, ref: PipelineRef) -> tuple[Partitions, str]:
        loaded = load_checked(ref, self.project.read_pipeline_files(ref))
        partitions = loaded.config.partitions
        if partitions is None:
            raise RatError(f"{ref.fqn} sets no partitions in its config.yaml (partitions: {{column, grain, start}}), "
                           "so it has no intervals")
        return partitions, code_version(loaded.source)

    def interval_states(self, pipeline: str, start: str | None = None, end: str | None = None
                        ) -> tuple[list[Interval], list[IntervalState]]:
        """Each whole interval from `start` (default: the configured start) to `end` (exclusive; default now)."""
        ref = self.resolve(pipeline)
        partitions, version = self._partitioned(ref)
        until = _moment(end, "--end") or datetime.now(timezone.utc)
        intervals = partitions.intervals(_moment(start, "--start"), until)
        return intervals, IntervalStore(self.state).states(ref.fqn, intervals, version)

    def intervals(self, pipeline: str, start: str | None = None, end: str | None = None) -> IntervalList:
        return IntervalList(self.interval_states(pipeline, start, end)[1])

    def backfill(self, pipeline: str, start: str, end: str, choose: tuple[str, ...] = (),
                 review: bool = False, dry_run: bool = False) -> BackfillResult:
        """The chosen intervals of [start, end) in order (default: the missing and failed ones), as one run:
        all reach main at once, or none."""
        choose = choose or DEFAULT_CHOICE
        if "all" not in choose and any(c not in CHOICES for c in choose):
            raise RatError(f"backfill chooses intervals that are {', '.join(CHOICES)} or all, not {', '.join(choose)}")
        intervals, states = self.interval_states(pipeline, start, end)
        if not intervals:
            raise RatError(f"no whole interval lies between {start} and {end} (the end is exclusive)")
        chosen = [i for i, s in zip(intervals, states) if "all" in choose or s.status in choose]
        if dry_run or not chosen:
            return BackfillResult([s for i, s in zip(intervals, states) if i in chosen], dry_run=dry_run)
        return self._run_backfill(pipeline, chosen, review)

    def _run_backfill(self, pipeline: str, chosen: list[Interval], review: bool) -> BackfillResult:
        ref = self.resolve(pipeline)
        if self.needs_cleanup():
            self.cleanup_leftovers()
        record = self.runner.submit(ref, RunOptions(review=review, intervals=chosen), trigger="backfill").wait()
        states = IntervalStore(self.state).states(ref.fqn, chosen, self._partitioned(ref)[1])
        result = BackfillResult(states, record)
        if record.status not in ("success", "awaiting_review"):
            raise RatError.with_result(f"backfill run {record.run_id} of {record.pipeline} {record.status}: "
                                       f"{record.error}", result)
        return result
