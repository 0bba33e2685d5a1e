"""The automation service: evaluates triggers, claims their ticks, starts the runs that are due, and answers
webhooks. It takes only its collaborators: the project, the tick store, the event bus and a way to start a
run. `serve` and the TUI call `evaluate_and_start` every few seconds; `tick` is one such call, waited for.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Protocol

from ..errors import Problem, RatError
from ..events import Event, EventBus, RunQueued
from ..lineage.run_facts import RunCause, RunParent
from ..project.graph import ProjectGraph
from ..project.model import PipelineRef, Project, active_landing_files
from .catalog import TriggerCatalog
from .implicit import implicit_of
from .evaluate import Decision, Evaluation, ZoneFiles, cooldown_reason, evaluate, overlap_reason
from .schedule import Schedule, iso_z, local_text, next_cron
from .store import TickStore
from .triggers import Kind, PipelineTriggers, Trigger


class StartedRun(Protocol):
    """What the automation needs of a run it started (the runner's RunHandle)."""

    @property
    def run_id(self) -> str: ...

    def wait(self, timeout: float | None = None) -> object: ...


StartRun = Callable[[str, str], StartedRun]  # (pipeline, trigger kind) -> the queued run


class Staleness(Protocol):
    """What a `stale` trigger needs of freshness (core/freshness's FreshnessService)."""

    def warn_at(self, pipeline: str) -> float | None: ...


def utc(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts, timezone.utc)


@dataclass(frozen=True)
class TickDecided(Event):
    """One tick's decision (a fired tick once its run is queued): `serve` writes it as a log line."""

    pipeline: str
    trigger: str  # its kind: cron | landing | after | webhook (`kind` names the event)
    scheduled_for: float
    outcome: str  # fired | skipped
    reason: str = ""
    run_id: str | None = None

    def sentence(self) -> str:
        run = f" run {self.run_id}" if self.run_id else ""
        why = f": {self.reason}" if self.reason else ""
        return f"{self.outcome} {self.trigger} tick of {self.pipeline} for {iso_z(self.scheduled_for)}{run}{why}"


@dataclass(frozen=True)
class TriggerInfo:
    pipeline: str
    kind: str
    spec: str
    next_at: datetime | None
    next_local: str | None
    last_fired_at: datetime | None
    implicit: str | None = None  # the rat.yaml setting that gives it (watch.cascade, watch.run_on_landing)


@dataclass(frozen=True)
class FiredTick:
    pipeline: str
    kind: str
    scheduled_for: datetime
    run_id: str | None
    status: str


@dataclass(frozen=True)
class SkippedTick:
    pipeline: str
    kind: str
    scheduled_for: datetime
    reason: str


@dataclass(frozen=True)
class TickResult:
    at: datetime
    fired: tuple[FiredTick, ...]
    skipped: tuple[SkippedTick, ...]

    @property
    def failed(self) -> list[FiredTick]:
        return [f for f in self.fired if f.status not in ("success", "awaiting_review")]


@dataclass(frozen=True)
class TickEntry:
    pipeline: str
    kind: str
    scheduled_for: datetime
    evaluated_at: datetime
    outcome: str
    reason: str
    run_id: str | None
    implicit: str | None = None
    run_status: str | None = None  # the fired run's status as it stands: queued … success, failed


@dataclass(frozen=True)
class WebhookAnswer:
    status: int  # 202 started, 401 bad token, 404 no webhook trigger, 409 overlap, 429 cooldown
    message: str
    run_id: str | None = None


class Automation:
    def __init__(self, project: Project, store: TickStore, events: EventBus, start_run: StartRun,
                 graph: Callable[[], ProjectGraph] | None = None,
                 freshness: Staleness | None = None):
        """`graph`: the project's graph, for the implicit triggers of rat.yaml's `watch:` settings."""
        self.project, self.store, self.events, self.start_run = project, store, events, start_run
        self.freshness = freshness
        self.catalog = TriggerCatalog(project, graph)
        self.recovered = store.recover()
        self._starting: dict[int, list[Decision]] = {}  # thread -> the ticks whose run it is queueing
        self.implicit_since: float | None = None  # when this process's watcher was turned on (None: it is off)
        events.subscribe(self._queued)

    @property
    def schedule(self) -> Schedule:
        return Schedule.of(self.project.settings)

    def problems(self, only: PipelineRef | None = None) -> list[Problem]:
        return self.catalog.problems(only)

    # -- what is configured -----------------------------------------------------------
    def triggers(self, selector: str | None = None, now: float | None = None) -> list[TriggerInfo]:
        now = time.time() if now is None else now
        zone = self.schedule.zone
        fired = self.store.last_fired()
        found = []
        for pipeline in self.catalog.all():
            if selector and not _selected(pipeline.pipeline, selector):
                continue
            for trigger in pipeline.triggers:
                next_at = next_cron(trigger.cron, zone, now) if trigger.cron else self._stale_next(trigger, now)
                found.append(TriggerInfo(trigger.pipeline, trigger.kind.value, trigger.spec, utc(next_at),
                                         local_text(next_at, zone), utc(fired.get((trigger.pipeline, trigger.key))),
                                         trigger.implicit))
        return found

    def next_scheduled(self, now: float | None = None) -> TriggerInfo | None:
        """The cron trigger that fires next (the status bar's line)."""
        timed = [t for t in self.triggers(now=now) if t.next_at is not None]
        return min(timed, key=lambda t: t.next_at) if timed else None  # type: ignore[arg-type, return-value]

    def ticks(self, pipeline: str | None = None, limit: int = 20) -> list[TickEntry]:
        name = PipelineRef.parse(pipeline).fqn if pipeline else None
        return [TickEntry(r.pipeline, r.kind, utc(r.scheduled_for), utc(r.evaluated_at), r.outcome,  # type: ignore[arg-type]
                          r.reason, r.run_id, implicit_of(r.trigger), r.run_status) for r in self.store.ticks(name, limit)]

    def cause_of(self, run_id: str) -> RunCause | None:
        """What fired a run: its cron time, and the upstream run (an `after` tick) or the tick that started it."""
        fired = self.store.fired_by(run_id)
        if fired is None:
            return None
        upstream = self.store.state.get_run(fired.parent_run) if fired.parent_run else None
        parent = (RunParent(upstream.pipeline, upstream.run_id) if upstream is not None else
                  RunParent(f"{fired.pipeline} trigger {fired.trigger}",
                            f"tick/{fired.pipeline}/{fired.trigger}/{iso_z(fired.scheduled_for)}"))
        return RunCause(fired.scheduled_for if fired.scheduled else None, parent)

    # -- evaluating -------------------------------------------------------------------
    def evaluate_and_start(self, now: float | None = None,
                           implicit_only: bool = False) -> list[tuple[Decision, StartedRun | None]]:
        """Evaluate every trigger (`implicit_only`: those of rat.yaml's watch: settings) at `now`, claim the
        ticks, queue the runs that are due (a pipeline's batches one after another, in a thread); the claimed
        decisions with their first run."""
        now = time.time() if now is None else now
        pipelines = self.catalog.all(implicit_only)
        zone_files = self._zone_files(pipelines)
        stale_at = self._stale_at(pipelines)
        with self.store.transaction() as db:
            evaluation = evaluate(pipelines, self.schedule, self.store.view(db), now, zone_files, self.implicit_since,
                                  stale_at)
            claimed = self.store.claim(db, evaluation)
        for decision in claimed:
            if not decision.fire:
                self._publish(decision, "skipped", decision.reason)
        return self._start(claimed)

    def tick(self, at: float | None = None) -> TickResult:
        """One evaluation as if the clock read `at`, waiting for the runs it started."""
        at = time.time() if at is None else at
        started = self.evaluate_and_start(at)
        fired, skipped = [], []
        for decision, handle in started:
            record = handle.wait() if handle is not None else None
            status = getattr(record, "status", None)
            when = utc(decision.scheduled_for)
            if decision.fire and handle is not None:
                fired.append(FiredTick(decision.pipeline, decision.trigger.kind.value, when, handle.run_id,  # type: ignore[arg-type]
                                       str(status)))
            else:
                reason = decision.reason if not decision.fire else "its run could not be queued"
                skipped.append(SkippedTick(decision.pipeline, decision.trigger.kind.value, when, reason))  # type: ignore[arg-type]
        return TickResult(utc(at), tuple(fired), tuple(skipped))  # type: ignore[arg-type]

    def _zone_files(self, pipelines: list[PipelineTriggers]) -> ZoneFiles:
        zones = {(p.pipeline.split(".", 1)[0], t.zone) for p in pipelines for t in p.triggers if t.kind == Kind.LANDING}
        files: dict[tuple[str, str], tuple[tuple[str, float], ...]] = {}
        for namespace, zone in zones:
            listed = []
            for path in active_landing_files(self.project.zone_dir(namespace, zone or "")):
                try:
                    listed.append((path.name, path.stat().st_mtime))
                except OSError:  # gone meanwhile
                    continue
            files[(namespace, zone or "")] = tuple(listed)
        return files

    def _stale_at(self, pipelines: list[PipelineTriggers]) -> dict[str, float | None]:
        """When each pipeline with a `stale` trigger turned warn (read before the claim: it may ask Spark)."""
        if self.freshness is None:
            return {}
        return {p.pipeline: self.freshness.warn_at(p.pipeline) for p in pipelines
                if any(t.kind == Kind.STALE for t in p.triggers)}

    def _stale_next(self, trigger: Trigger, now: float) -> float | None:
        if trigger.kind != Kind.STALE or self.freshness is None:
            return None
        warn = self.freshness.warn_at(trigger.pipeline)
        return warn if warn is not None and warn > now else None

    def _start(self, claimed: list[Decision]) -> list[tuple[Decision, StartedRun | None]]:
        batches: dict[str, dict[int, list[Decision]]] = {}
        for decision in claimed:
            if decision.fire:
                batches.setdefault(decision.pipeline, {}).setdefault(decision.batch, []).append(decision)
        started: list[tuple[Decision, StartedRun | None]] = [(d, None) for d in claimed if not d.fire]
        for pipeline, by_batch in batches.items():
            ordered = [by_batch[b] for b in sorted(by_batch)]
            first = self._start_batch(ordered[0])
            started += [(d, first) for d in ordered[0]]
            if len(ordered) > 1:  # caught-up times run one after another, each after the one before
                later = _Later(self, ordered[1:], first)
                started += later.placeholders()
                later.start()
        return started

    def _start_batch(self, batch: list[Decision]) -> StartedRun | None:
        self._starting[threading.get_ident()] = batch
        try:
            handle = self.start_run(batch[0].pipeline, batch[0].trigger.kind.value)
        except RatError as exc:
            for decision in batch:
                self.store.not_started(decision.trigger, decision.scheduled_for, exc.sentence())
                self._publish(decision, "skipped", exc.sentence())
            return None
        finally:
            self._starting.pop(threading.get_ident(), None)
        for decision in batch:
            self.store.started(decision.trigger, handle.run_id, decision.scheduled_for)
            self._publish(decision, "fired", decision.reason, handle.run_id)
        return handle

    def _queued(self, event: Event) -> None:
        """A run queued by `_start_batch` (in its thread, before the run starts): what fired it is kept now,
        so the run's first OpenLineage event already names its parent."""
        if isinstance(event, RunQueued) and (batch := self._starting.get(threading.get_ident())) is not None:
            self.store.fired_run(event.run_id, batch)

    def _publish(self, decision: Decision, outcome: str, reason: str, run_id: str | None = None) -> None:
        self.events.publish(TickDecided(decision.pipeline, decision.trigger.kind.value, decision.scheduled_for,
                                        outcome, reason, run_id))

    # -- webhooks ---------------------------------------------------------------------
    def webhook_token(self, pipeline: str, rotate: bool = False) -> str:
        ref = self.project.find_pipeline(pipeline)
        if self._webhook(ref) is None:
            raise RatError(f"{ref.fqn} has no webhook trigger; add `- webhook: true` to triggers: in its config.yaml",
                           (ref.relpath / "config.yaml").as_posix())
        if self.store.token_hash(ref.fqn) is not None and not rotate:
            raise RatError(f"{ref.fqn} has a webhook token already (it was shown once); "
                           "`webhook-token --rotate` makes a new one")
        token = secrets.token_urlsafe(32)
        self.store.set_token_hash(ref.fqn, _hash(token))
        return token

    def webhook(self, pipeline: str, token: str | None, now: float | None = None) -> WebhookAnswer:
        """A POST to /hooks/<pipeline>: checked, claimed as a tick at its arrival, and its run queued."""
        now = time.time() if now is None else now
        try:
            ref = PipelineRef.parse(pipeline)
        except RatError as exc:
            return WebhookAnswer(404, exc.sentence())
        trigger = self._webhook(ref) if self.project.pipeline_dir(ref).is_dir() else None
        if trigger is None:
            return WebhookAnswer(404, f"{pipeline} has no webhook trigger")
        expected = self.store.token_hash(ref.fqn)
        if not token or expected is None or not hmac.compare_digest(_hash(token), expected):
            return WebhookAnswer(401, "missing or wrong token" if expected else f"{ref.fqn} has no webhook token yet")
        pipeline_triggers = self.catalog.read(ref)
        decision = Decision(trigger, now, True)
        with self.store.transaction() as db:
            view = self.store.view(db)
            cooling = cooldown_reason(pipeline_triggers, view, now)
            overlap = None if cooling else overlap_reason(ref.fqn, self.schedule, view)
            blocked = cooling or overlap
            if blocked:
                decision = Decision(trigger, now, False, blocked)
            self.store.claim(db, Evaluation(now, (decision,)))
        if cooling:
            self._publish(decision, "skipped", cooling)
            return WebhookAnswer(429, cooling)
        if overlap:
            self._publish(decision, "skipped", overlap)
            return WebhookAnswer(409, overlap)
        handle = self._start_batch([decision])
        if handle is None:
            return WebhookAnswer(500, f"the run of {ref.fqn} could not be queued")
        return WebhookAnswer(202, f"run {handle.run_id} of {ref.fqn} queued", handle.run_id)

    def _webhook(self, ref: PipelineRef) -> Trigger | None:
        return next((t for t in self.catalog.read(ref).triggers if t.kind == Kind.WEBHOOK), None)


class _Later:
    """Caught-up runs of one pipeline after its first: each queued once the one before has ended."""

    def __init__(self, automation: Automation, batches: list[list[Decision]], first: StartedRun | None):
        self.automation, self.batches, self.previous = automation, batches, first
        self._handles: list[StartedRun | None] = [None] * len(batches)
        self._ready = [threading.Event() for _ in batches]

    def placeholders(self) -> list[tuple[Decision, StartedRun | None]]:
        return [(d, _Pending(self, i)) for i, batch in enumerate(self.batches) for d in batch]

    def start(self) -> None:
        threading.Thread(target=self._work, name="catch-up", daemon=True).start()

    def _work(self) -> None:
        previous = self.previous
        for i, batch in enumerate(self.batches):
            if previous is not None:
                previous.wait()
            previous = self._handles[i] = self.automation._start_batch(batch)
            self._ready[i].set()


class _Pending:
    """A run not queued yet (it waits for the one before): its id and end once it is."""

    def __init__(self, later: _Later, index: int):
        self.later, self.index = later, index

    @property
    def run_id(self) -> str:
        self.later._ready[self.index].wait()
        handle = self.later._handles[self.index]
        return handle.run_id if handle is not None else ""

    def wait(self, timeout: float | None = None) -> object:
        self.later._ready[self.index].wait(timeout)
        handle = self.later._handles[self.index]
        return handle.wait(timeout) if handle is not None else None


def _selected(pipeline: str, selector: str) -> bool:
    """`ns`, `ns.layer` or `ns.layer.name`."""
    return pipeline == selector or pipeline.startswith(selector + ".")


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
