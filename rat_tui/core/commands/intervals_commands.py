"""Intervals and backfills of partitioned pipelines: which intervals are done, failed, missing or stale, and a
backfill that runs the chosen ones as one run (one branch, main moves once, or waits for review as one)."""
from __future__ import annotations

import re
from datetime import datetime, timezone

from ..errors import RatError
from ..project.model import PipelineRef, Project
from ..project.partitions import Interval, Partitions, parse_moment
from ..run.intervals import code_version, to_do
from ..run.loading import load_checked
from ..run.phases import RunOptions
from ..run.runner import Runner
from ..store.intervals import IntervalState, IntervalStore
from ..store.state import StateDB
from .run_results import BackfillResult, IntervalList
from .runs import Runs

CHOICES = ("missing", "failed", "stale")
DEFAULT_CHOICE = ("missing", "failed")


def _moment(text: str | None, flag: str) -> datetime | None:
    if text is None:
        return None
    moment = parse_moment(text)
    if moment is None:
        raise RatError(f"{flag} must be a date or time like 2024-01-01 or 2024-01-01T06:00:00Z, not '{text}'")
    return moment


def _nothing_to_do(start: str, end: str, choose: tuple[str, ...], states: list[IntervalState]) -> str:
    counts = {status: sum(s.status == status for s in states) for status in ("done", "stale", "failed", "missing")}
    found = ", ".join(f"{n} {status}" for status, n in counts.items() if n)
    again = "" if "stale" in choose else "; --stale or --all runs done ones again"
    return (f"nothing to backfill from {start} to {end}: none of its {len(states)} interval(s) is "
            f"{' or '.join(choose)} ({found}){again}")


class NotPartitioned(RatError):
    """The pipeline sets no `partitions:`: it has no intervals, and that is no problem."""


# A config.yaml that sets partitions (read as text: a config that does not load still says it wanted intervals)
_SETS_PARTITIONS = re.compile(rb"^partitions\s*:", re.MULTILINE)


class Intervals:
    def __init__(self, project: Project, state: StateDB, runner: Runner, runs: Runs):
        self.project, self.state, self.runner, self.runs = project, state, runner, runs

    def _partitioned(self, ref: PipelineRef) -> tuple[Partitions, str]:
        loaded = load_checked(ref, self.project.read_pipeline_files(ref))
        partitions = loaded.config.partitions
        if partitions is None:
            raise NotPartitioned(f"{ref.fqn} sets no partitions in its config.yaml "
                                 f"(partitions: {{column, grain, start}}), so it has no intervals")
        return partitions, code_version(loaded.source)

    def interval_states(self, pipeline: str, start: str | None = None, end: str | None = None
                        ) -> tuple[list[Interval], list[IntervalState]]:
        """Each whole interval from `start` (default: the configured start) to `end` (exclusive; default now)."""
        ref = self.project.find_pipeline(pipeline)
        partitions, version = self._partitioned(ref)
        until = _moment(end, "--end") or datetime.now(timezone.utc)
        intervals = partitions.intervals(_moment(start, "--start"), until)
        return intervals, IntervalStore(self.state).states(ref.fqn, intervals, version)

    def interval_overview(self, pipeline: str | None = None) -> tuple[dict[str, list[IntervalState]], dict[str, str]]:
        """Each partitioned pipeline's intervals up to now (or the named pipeline's), and, for each that sets
        `partitions:` but cannot say its intervals, why (a sentence with the file, the line and the cause)."""
        refs = [self.project.find_pipeline(pipeline)] if pipeline else self.project.scan().pipelines()
        strips, problems = {}, {}
        for ref in refs:
            try:
                strips[ref.fqn] = self.interval_states(ref.fqn)[1]
            except NotPartitioned:
                continue
            except RatError as exc:
                if pipeline or _SETS_PARTITIONS.search(self.project.read_pipeline_files(ref).get("config.yaml", b"")):
                    problems[ref.fqn] = exc.sentence()
        return strips, problems

    def run_plan(self, pipeline: str, full_refresh: bool = False) -> BackfillResult:
        """The intervals `run` would build of a partitioned pipeline (`run --dry-run`), in order; nothing runs."""
        ref = self.project.find_pipeline(pipeline)
        try:
            partitions, version = self._partitioned(ref)
        except NotPartitioned:
            raise RatError(f"run --dry-run lists the intervals a partitioned pipeline would build, and {ref.fqn} "
                           f"sets no partitions; `preview {ref.fqn}` runs its query and writes nothing") from None
        store = IntervalStore(self.state)
        chosen = to_do(partitions, store, ref.fqn, version, full_refresh)
        note = (f"run would build {len(chosen)} interval(s), from {chosen[0].start_text} to {chosen[-1].end_text}"
                if chosen else "nothing due: every whole interval up to now is done")
        return BackfillResult(store.states(ref.fqn, chosen, version), dry_run=True, note=note)

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
        listed = [s for i, s in zip(intervals, states) if i in chosen]
        if dry_run:  # what it would run; with nothing to, the sentence a backfill would give
            note = None if chosen else _nothing_to_do(start, end, choose, states)
            return BackfillResult(listed, dry_run=True, note=note)
        if not chosen:
            return BackfillResult([], note=_nothing_to_do(start, end, choose, states))
        return self._run_backfill(pipeline, chosen, review)

    def _run_backfill(self, pipeline: str, chosen: list[Interval], review: bool) -> BackfillResult:
        ref = self.project.find_pipeline(pipeline)
        self._refuse_while_held(ref)
        if self.runs.needs_cleanup():
            self.runs.cleanup_leftovers()
        record = self.runner.submit(ref, RunOptions(review=review, intervals=chosen), trigger="backfill").wait()
        states = IntervalStore(self.state).states(ref.fqn, chosen, self._partitioned(ref)[1])
        result = BackfillResult(states, record)
        if record.status not in ("success", "awaiting_review"):
            raise RatError.with_result(f"backfill run {record.run_id} of {record.pipeline} {record.status}: "
                                       f"{record.error}", result)
        return result

    def _refuse_while_held(self, ref: PipelineRef) -> None:
        """A held run publishes against the main it started from: a backfill that moved main (or was approved
        first) would leave it awaiting a review that can only be rejected. So one held run a pipeline at a time."""
        held = self.state.held_runs(ref.fqn)
        if not held:
            return
        run = held[0]
        span = IntervalStore(self.state).span(run.run_id)
        what = f"its intervals [{span[0]}, {span[1]})" if span else "a run"
        raise RatError(f"{ref.fqn} has run {run.run_id} awaiting review ({what}); approve {run.run_id} or "
                       f"reject {run.run_id} before another backfill of it")
