"""One evaluation of every trigger, as a pure function of the clock, the triggers and what state.db says:
which ticks fire and which are skipped, with the reason. No I/O here (the store reads, then claims).

- Start: a trigger's schedule starts when it is first evaluated; earlier times never fire.
- Catch-up: cron times missed while nothing evaluated them follow `schedule.catch_up` (skip | latest | all,
  at most `max_catch_up`); each one not run is a skipped tick with its reason.
- After: an upstream's successful run newer than this pipeline's last run (and than the trigger's start);
  `require: all` waits for every upstream, and its skipped tick names the ones it waits for.
- Landing: files of the zone (matching `pattern`) written after this pipeline's last successful run began
  (an implicit landing trigger: and after it started).
- An implicit `after` (watch.cascade) waits, without a tick, while a pipeline upstream of it is queued,
  running, or fires in this evaluation: its upstream first, then it, once.
- Stale: the moment the table turned warn by its freshness policy (`stale_at`, from core/freshness), once per
  such moment; if that tick was skipped (cooldown, overlap), a tick of its own once nothing blocks it.
- Cooldown, then overlap, turn a due tick into a skip with their reason.
A pipeline's fired ticks of one evaluation share one run, except cron times caught up with `catch_up: all`,
which run one after another.
"""
from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass, field

from .schedule import ON_TIME_SECONDS, Schedule, cron_window, duration_text, iso_z
from .triggers import Kind, PipelineTriggers, Trigger


@dataclass(frozen=True)
class LiveRun:
    run_id: str | None  # None: a tick claimed whose run is being started
    status: str  # queued | running


@dataclass(frozen=True)
class StateView:
    """What an evaluation reads from state.db, read in the transaction that claims its ticks."""

    starts: Mapping[tuple[str, str], float] = field(default_factory=dict)  # (pipeline, trigger key) -> first evaluated
    last_decided: Mapping[tuple[str, str], float] = field(default_factory=dict)  # -> newest tick's scheduled time
    last_fired: Mapping[str, tuple[float, str | None]] = field(default_factory=dict)  # pipeline -> (when, run id)
    last_run_at: Mapping[str, float] = field(default_factory=dict)  # pipeline -> its newest run's queued_at
    # -> (started_at, finished_at) of its newest success that wrote (not one whose zones held nothing new)
    last_success: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    last_success_run: Mapping[str, str] = field(default_factory=dict)  # -> that run's id
    live: Mapping[str, tuple[LiveRun, ...]] = field(default_factory=dict)
    fired_until: Mapping[tuple[str, str], float] = field(default_factory=dict)  # -> newest fired tick's time
    last_looked: Mapping[str, float] = field(default_factory=dict)  # -> started_at of its newest success of any kind


@dataclass(frozen=True)
class Decision:
    trigger: Trigger
    scheduled_for: float
    fire: bool
    reason: str = ""
    batch: int = 0  # a pipeline's fired ticks with one batch share a run; batches run in this order
    parent_run: str | None = None  # an `after` tick's: the upstream run whose success fired it
    retry: bool = False  # a stale tick again after a skipped one: left out, not skipped again, while blocked

    @property
    def pipeline(self) -> str:
        return self.trigger.pipeline


@dataclass(frozen=True)
class Evaluation:
    now: float
    decisions: tuple[Decision, ...] = ()
    starts: tuple[tuple[Trigger, float], ...] = ()  # triggers evaluated for the first time, and when they start


ZoneFiles = Mapping[tuple[str, str], tuple[tuple[str, float], ...]]  # (namespace, zone) -> (file name, mtime)
StaleAt = Mapping[str, float | None]  # pipeline -> when its table turned (or turns) warn


def evaluate(pipelines: list[PipelineTriggers], schedule: Schedule, view: StateView, now: float,
             zone_files: ZoneFiles, implicit_since: float | None = None, stale_at: StaleAt | None = None) -> Evaluation:
    """`pipelines` upstream first. A trigger evaluated for the first time starts `now`; an implicit one (rat.yaml's
    watch: settings) at `implicit_since`, when watching began, whoever evaluates it first: a scheduler's
    evaluation just after an upstream's success must not start it past that success."""
    decisions: list[Decision] = []
    starts: list[tuple[Trigger, float]] = []
    busy = {name for name, live in view.live.items() if live}
    for pipeline in pipelines:
        due: list[Decision] = []
        for trigger in pipeline.triggers:
            if trigger.kind == Kind.WEBHOOK or (trigger.ancestors & busy):
                continue
            start = view.starts.get((trigger.pipeline, trigger.key))
            if start is None:
                start = min(implicit_since, now) if trigger.implicit and implicit_since is not None else now
                starts.append((trigger, start))
            if trigger.kind == Kind.STALE:
                due += _stale_ticks(trigger, view, now, stale_at or {})
                continue
            due += _trigger_ticks(trigger, schedule, view, now, start, zone_files)
        gated = _gate(pipeline, schedule, view, now, due)
        if any(d.fire for d in gated):
            busy.add(pipeline.pipeline)
        decisions += gated
    return Evaluation(now, tuple(decisions), tuple(starts))


def _trigger_ticks(trigger: Trigger, schedule: Schedule, view: StateView, now: float, start: float,
                   zone_files: ZoneFiles) -> list[Decision]:
    if trigger.cron is not None:
        ticks = _cron_ticks(trigger, schedule, view, now, start)
        if trigger.kind != Kind.AFTER:
            return ticks
        return [_gated_by_upstream(t, view, start) if t.fire else t for t in ticks]
    if trigger.kind == Kind.AFTER:
        return _after_ticks(trigger, view, start)
    return _landing_ticks(trigger, view, zone_files, start)


def _cron_ticks(trigger: Trigger, schedule: Schedule, view: StateView, now: float, start: float) -> list[Decision]:
    after = max(start, view.last_decided.get((trigger.pipeline, trigger.key), start))
    window = cron_window(trigger.cron or "", schedule.zone, after, now)
    if not window.times:
        return []
    missed = [t for t in window.times if now - t > ON_TIME_SECONDS]
    on_time = [t for t in window.times if now - t <= ON_TIME_SECONDS]
    if schedule.catch_up == "skip":
        run = on_time[-1:]
    elif schedule.catch_up == "latest":
        run = list(window.times[-1:])
    else:
        run = list(window.times[-schedule.max_catch_up:])
    ran = set(run)
    ticks: list[Decision] = []
    if window.older:
        ticks.append(Decision(trigger, window.oldest or window.times[0], False,
                              f"missed, with {window.older - 1} more missed times up to "
                              f"{iso_z(window.times[0])}: not run ({_catch_up_reason(schedule, run)})"))
    for t in window.times:
        if t in ran:
            # times caught up with `all` run one after another; the newest joins the pipeline's other fires
            batch = run.index(t) - len(run) + 1 if schedule.catch_up == "all" else 0
            ticks.append(Decision(trigger, t, True, "" if t in on_time else "caught up", batch))
        elif t in missed:
            ticks.append(Decision(trigger, t, False, f"missed: nothing evaluated the schedule then; "
                                                     f"{_catch_up_reason(schedule, run)}"))
        else:
            ticks.append(Decision(trigger, t, False, f"superseded by {iso_z(run[-1])}"))
    return ticks


def _catch_up_reason(schedule: Schedule, run: list[float]) -> str:
    if schedule.catch_up == "skip":
        return "catch_up: skip runs no missed time"
    if schedule.catch_up == "latest":
        return f"catch_up: latest ran only {iso_z(run[-1])}"
    return f"catch_up: all ran the newest {len(run)} (max_catch_up: {schedule.max_catch_up})"


def _upstream_news(trigger: Trigger, view: StateView, start: float) -> tuple[dict[str, float], float]:
    """Upstreams with a successful run newer than this pipeline's last run and the trigger's start (-> when
    it finished), and that moment."""
    since = max(start, view.last_run_at.get(trigger.pipeline, 0.0))
    news = {up: view.last_success[up][1] for up in trigger.after
            if up in view.last_success and view.last_success[up][1] > since}
    return news, since


def _after_ticks(trigger: Trigger, view: StateView, start: float) -> list[Decision]:
    news, since = _upstream_news(trigger, view, start)
    if not news:
        return []
    at = max(news.values())
    waiting = [up for up in trigger.after if up not in news]
    if trigger.require_all and waiting:
        return [Decision(trigger, at, False, _waiting(waiting, since))]
    return [Decision(trigger, at, True, _succeeded(news, trigger), parent_run=_newest_run(news, view))]


def _gated_by_upstream(tick: Decision, view: StateView, start: float) -> Decision:
    """A cron time of `after … cron:` runs only if its upstream condition holds then."""
    news, since = _upstream_news(tick.trigger, view, start)
    waiting = [up for up in tick.trigger.after if up not in news]
    if not news or (tick.trigger.require_all and waiting):
        return Decision(tick.trigger, tick.scheduled_for, False, _waiting(waiting, since))
    return Decision(tick.trigger, tick.scheduled_for, True, _succeeded(news, tick.trigger), tick.batch,
                    _newest_run(news, view))


def _succeeded(news: dict[str, float], trigger: Trigger) -> str:
    return " and ".join(sorted(news)) + " succeeded" + (f" ({trigger.implicit})" if trigger.implicit else "")


def _newest_run(news: dict[str, float], view: StateView) -> str | None:
    return view.last_success_run.get(max(news, key=lambda up: news[up]))


def _waiting(upstream: list[str], since: float) -> str:
    return f"waiting for {', '.join(upstream)}: no successful run since {iso_z(since)}"


def _landing_ticks(trigger: Trigger, view: StateView, zone_files: ZoneFiles, start: float) -> list[Decision]:
    namespace = trigger.pipeline.split(".", 1)[0]
    loaded_before = max(view.last_success.get(trigger.pipeline, (0.0, 0.0))[0], view.last_looked.get(trigger.pipeline, 0.0))
    if trigger.implicit:
        loaded_before = max(loaded_before, start)
    new = [(name, mtime) for name, mtime in zone_files.get((namespace, trigger.zone or ""), ())
           if mtime > loaded_before and (trigger.pattern is None or fnmatch.fnmatchcase(name, trigger.pattern))]
    if not new:
        return []
    implicit = f" ({trigger.implicit})" if trigger.implicit else ""
    return [Decision(trigger, max(mtime for _, mtime in new), True,
                     f"{len(new)} new file{'s' if len(new) > 1 else ''} in {trigger.zone}{implicit}")]


def _stale_ticks(trigger: Trigger, view: StateView, now: float, stale_at: StaleAt) -> list[Decision]:
    warn = stale_at.get(trigger.pipeline)
    if warn is None or warn > now:
        return []
    decided = view.last_decided.get((trigger.pipeline, trigger.key))
    if decided is None or decided < warn:
        return [Decision(trigger, warn, True, f"turned warn at {iso_z(warn)}")]
    if view.fired_until.get((trigger.pipeline, trigger.key), warn - 1) >= warn:
        return []  # it fired for this moment already: a failed run is not tried again and again
    return [Decision(trigger, now, True, f"still stale since {iso_z(warn)}", retry=True)]


def _gate(pipeline: PipelineTriggers, schedule: Schedule, view: StateView, now: float,
          due: list[Decision]) -> list[Decision]:
    """Cooldown, then overlap, for the pipeline's due ticks; each stopped tick is a skip with the reason."""
    if not any(d.fire for d in due):
        return due
    blocked = cooldown_reason(pipeline, view, now) or overlap_reason(pipeline.pipeline, schedule, view)
    if blocked is None:
        return due
    return [Decision(d.trigger, d.scheduled_for, False, blocked) if d.fire else d for d in due if not d.retry]


def cooldown_reason(pipeline: PipelineTriggers, view: StateView, now: float) -> str | None:
    last = view.last_fired.get(pipeline.pipeline)
    if not pipeline.cooldown_s or last is None or now - last[0] >= pipeline.cooldown_s:
        return None
    run = f" (run {last[1]})" if last[1] else ""
    return (f"cooldown {duration_text(pipeline.cooldown_s)}: last fired at {iso_z(last[0])}{run}; "
            f"next possible at {iso_z(last[0] + pipeline.cooldown_s)}")


def overlap_reason(pipeline: str, schedule: Schedule, view: StateView) -> str | None:
    live = view.live.get(pipeline, ())
    if not live:
        return None
    if schedule.overlap == "skip":
        run = live[0]
        return f"run {run.run_id or '(starting)'} of {pipeline} is still {run.status} (overlap: skip)"
    queued = [r for r in live if r.status == "queued"]
    if queued:
        return f"run {queued[0].run_id or '(starting)'} is already queued behind the running one (overlap: queue_one)"
    return None
