"""The evaluation of triggers as a pure function: no Spark, no state.db (fast)."""
from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from rat_tui.core.automation.evaluate import LiveRun, StateView, evaluate
from rat_tui.core.automation.schedule import Schedule, iso_z
from rat_tui.core.automation.triggers import Kind, PipelineTriggers, Trigger, after_cycles, cycle_sentence, parse_triggers
from rat_tui.core.project.model import PipelineRef

PARIS = ZoneInfo("Europe/Paris")
P = "m.bronze.a"


def ts(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def cron(expr: str, pipeline: str = P) -> Trigger:
    return Trigger(pipeline, Kind.CRON, cron=expr)


def started(trigger: Trigger, at: str, decided: str | None = None, **view) -> StateView:
    return StateView(starts={(trigger.pipeline, trigger.key): ts(at)},
                     last_decided={(trigger.pipeline, trigger.key): ts(decided)} if decided else {}, **view)


def outcomes(evaluation) -> list[tuple[str, bool, str]]:
    return [(iso_z(d.scheduled_for), d.fire, d.reason) for d in evaluation.decisions]


def test_a_new_trigger_starts_when_first_evaluated_and_never_storms():
    trigger = cron("* * * * *")
    first = evaluate([PipelineTriggers(P, (trigger,))], Schedule(PARIS), StateView(), ts("2025-06-01T12:00:00Z"), {})
    assert first.decisions == () and first.starts == ((trigger, ts("2025-06-01T12:00:00Z")),)


def test_the_autumn_repeated_hour_fires_a_daily_0230_once():
    trigger = cron("30 2 * * *")
    pipelines = [PipelineTriggers(P, (trigger,))]
    view = started(trigger, "2025-10-25T12:00:00Z")
    first = evaluate(pipelines, Schedule(PARIS), view, ts("2025-10-26T00:30:30Z"), {})
    assert outcomes(first) == [("2025-10-26T00:30:00Z", True, "")]  # 02:30 CEST
    later = started(trigger, "2025-10-25T12:00:00Z", decided="2025-10-26T00:30:00Z")
    again = evaluate(pipelines, Schedule(PARIS), later, ts("2025-10-26T01:30:30Z"), {})  # 02:30 CET, the repeat
    assert again.decisions == ()


def test_the_spring_missing_hour_fires_at_the_next_existing_time():
    trigger = cron("30 2 * * *")
    view = started(trigger, "2025-03-29T12:00:00Z")
    before = evaluate([PipelineTriggers(P, (trigger,))], Schedule(PARIS), view, ts("2025-03-30T00:59:00Z"), {})
    assert before.decisions == ()
    at_three = evaluate([PipelineTriggers(P, (trigger,))], Schedule(PARIS), view, ts("2025-03-30T01:00:10Z"), {})
    assert outcomes(at_three) == [("2025-03-30T01:00:00Z", True, "")]  # 03:00 CEST


def test_catch_up_latest_runs_the_newest_and_records_every_other_missed_time():
    trigger = cron("0 * * * *")
    view = started(trigger, "2025-06-01T09:30:00Z")
    result = evaluate([PipelineTriggers(P, (trigger,))], Schedule(PARIS, "latest"), view, ts("2025-06-01T12:30:00Z"), {})
    assert [(at, fire) for at, fire, _ in outcomes(result)] == [
        ("2025-06-01T10:00:00Z", False), ("2025-06-01T11:00:00Z", False), ("2025-06-01T12:00:00Z", True)]
    assert result.decisions[0].reason == ("missed: nothing evaluated the schedule then; "
                                          "catch_up: latest ran only 2025-06-01T12:00:00Z")


def test_catch_up_all_runs_at_most_max_catch_up_one_after_another():
    trigger = cron("0 * * * *")
    view = started(trigger, "2025-06-01T07:30:00Z")
    result = evaluate([PipelineTriggers(P, (trigger,))], Schedule(PARIS, "all", max_catch_up=2), view,
                      ts("2025-06-01T12:30:00Z"), {})
    fired = [(iso_z(d.scheduled_for), d.batch) for d in result.decisions if d.fire]
    assert fired == [("2025-06-01T11:00:00Z", -1), ("2025-06-01T12:00:00Z", 0)]
    skipped = [d.reason for d in result.decisions if not d.fire]
    assert len(skipped) == 3 and "max_catch_up: 2" in skipped[0]


def test_catch_up_skip_runs_no_missed_time_but_an_on_time_one():
    trigger = cron("0 * * * *")
    view = started(trigger, "2025-06-01T09:30:00Z")
    result = evaluate([PipelineTriggers(P, (trigger,))], Schedule(PARIS, "skip"), view, ts("2025-06-01T12:00:20Z"), {})
    assert [(at, fire) for at, fire, _ in outcomes(result)] == [
        ("2025-06-01T10:00:00Z", False), ("2025-06-01T11:00:00Z", False), ("2025-06-01T12:00:00Z", True)]
    assert result.decisions[0].reason.endswith("catch_up: skip runs no missed time")


def test_require_all_waits_for_every_upstream_and_names_the_one_missing():
    trigger = Trigger("m.silver.c", Kind.AFTER, after=("m.bronze.a", "m.bronze.b"), require_all=True)
    start = "2025-06-01T08:00:00Z"
    one = started(trigger, start, last_success={"m.bronze.a": (ts("2025-06-01T09:00:00Z"), ts("2025-06-01T09:01:00Z"))})
    result = evaluate([PipelineTriggers("m.silver.c", (trigger,))], Schedule(PARIS), one, ts("2025-06-01T10:00:00Z"), {})
    assert outcomes(result) == [("2025-06-01T09:01:00Z", False,
                                 "waiting for m.bronze.b: no successful run since 2025-06-01T08:00:00Z")]
    both = started(trigger, start, last_success={"m.bronze.a": (0, ts("2025-06-01T09:01:00Z")),
                                                 "m.bronze.b": (0, ts("2025-06-01T09:30:00Z"))})
    result = evaluate([PipelineTriggers("m.silver.c", (trigger,))], Schedule(PARIS), both, ts("2025-06-01T10:00:00Z"), {})
    assert outcomes(result) == [("2025-06-01T09:30:00Z", True, "m.bronze.a and m.bronze.b succeeded")]


def test_landing_fires_for_new_files_matching_the_pattern_only():
    trigger = Trigger(P, Kind.LANDING, zone="orders", pattern="orders_*.csv")
    view = started(trigger, "2025-06-01T08:00:00Z", last_success={P: (ts("2025-06-01T09:00:00Z"), 0)})
    files = {("m", "orders"): (("customers.csv", ts("2025-06-01T09:30:00Z")), ("orders_1.csv", ts("2025-06-01T08:30:00Z")))}
    assert evaluate([PipelineTriggers(P, (trigger,))], Schedule(PARIS), view, ts("2025-06-01T10:00:00Z"), files).decisions == ()
    files[("m", "orders")] += (("orders_2.csv", ts("2025-06-01T09:45:00Z")),)
    result = evaluate([PipelineTriggers(P, (trigger,))], Schedule(PARIS), view, ts("2025-06-01T10:00:00Z"), files)
    assert outcomes(result) == [("2025-06-01T09:45:00Z", True, "1 new file in orders")]


def test_cooldown_and_overlap_turn_due_ticks_into_skips_with_their_reason():
    trigger = cron("*/5 * * * *")
    cooling = started(trigger, "2025-06-01T08:00:00Z", decided="2025-06-01T09:55:00Z",
                      last_fired={P: (ts("2025-06-01T09:55:00Z"), "r1")})
    result = evaluate([PipelineTriggers(P, (trigger,), cooldown_s=600)], Schedule(PARIS), cooling,
                      ts("2025-06-01T10:00:05Z"), {})
    assert outcomes(result) == [("2025-06-01T10:00:00Z", False, "cooldown 10m: last fired at 2025-06-01T09:55:00Z "
                                                                "(run r1); next possible at 2025-06-01T10:05:00Z")]
    busy = started(trigger, "2025-06-01T08:00:00Z", decided="2025-06-01T09:55:00Z", live={P: (LiveRun("r2", "running"),)})
    result = evaluate([PipelineTriggers(P, (trigger,))], Schedule(PARIS, overlap="skip"), busy, ts("2025-06-01T10:00:05Z"), {})
    assert outcomes(result) == [("2025-06-01T10:00:00Z", False, f"run r2 of {P} is still running (overlap: skip)")]
    queued = started(trigger, "2025-06-01T08:00:00Z", decided="2025-06-01T09:55:00Z", live={P: (LiveRun("r2", "running"), LiveRun("r3", "queued"))})
    result = evaluate([PipelineTriggers(P, (trigger,))], Schedule(PARIS), queued, ts("2025-06-01T10:00:05Z"), {})
    assert outcomes(result)[0][2] == "run r3 is already queued behind the running one (overlap: queue_one)"
    running = started(trigger, "2025-06-01T08:00:00Z", decided="2025-06-01T09:55:00Z", live={P: (LiveRun("r2", "running"),)})
    assert evaluate([PipelineTriggers(P, (trigger,))], Schedule(PARIS), running, ts("2025-06-01T10:00:05Z"),
                    {}).decisions[0].fire  # queue_one: one run waits behind the running one


def test_parsing_reports_file_and_line_of_a_bad_trigger():
    text = 'triggers:\n  - cron: "0 6 * *"\n  - landing: orders\n    when: now\ncooldown: soon\n'
    found = parse_triggers(PipelineRef.parse(P), text, "m/pipelines/bronze/a/config.yaml")
    assert [(p.line, p.message) for p in found.problems] == [
        (2, "cron '0 6 * *' is not a 5-field cron expression (minute hour day month weekday)"),
        (3, "a landing trigger takes landing, pattern, not when"),
        (5, "cooldown is a duration such as 10m, 30s, 2h or 1d, not 'soon'")]


def test_an_after_cycle_is_named_in_one_sentence():
    a = PipelineTriggers("m.bronze.a", (Trigger("m.bronze.a", Kind.AFTER, after=("m.bronze.b",)),))
    b = PipelineTriggers("m.bronze.b", (Trigger("m.bronze.b", Kind.AFTER, after=("m.bronze.a",)),))
    assert [cycle_sentence(c) for c in after_cycles([a, b])] == [
        "after triggers form a cycle: m.bronze.a → m.bronze.b → m.bronze.a"]


def stale(pipeline: str = P) -> Trigger:
    return Trigger(pipeline, Kind.STALE)


def test_stale_fires_once_at_the_moment_the_table_turned_warn():
    trigger, warn = stale(), {P: ts("2025-06-01T06:00:00Z")}
    pipelines = [PipelineTriggers(P, (trigger,))]
    early = evaluate(pipelines, Schedule(PARIS), StateView(), ts("2025-06-01T05:00:00Z"), {}, stale_at=warn)
    assert early.decisions == ()
    due = evaluate(pipelines, Schedule(PARIS), StateView(), ts("2025-06-01T09:00:00Z"), {}, stale_at=warn)
    assert outcomes(due) == [("2025-06-01T06:00:00Z", True, "turned warn at 2025-06-01T06:00:00Z")]
    fired = started(trigger, "2025-06-01T05:00:00Z", "2025-06-01T06:00:00Z",
                    fired_until={(P, trigger.key): ts("2025-06-01T06:00:00Z")})
    assert evaluate(pipelines, Schedule(PARIS), fired, ts("2025-06-01T10:00:00Z"), {}, stale_at=warn).decisions == ()


def test_a_stale_tick_skipped_by_cooldown_runs_once_the_cooldown_ends_and_is_not_skipped_again_meanwhile():
    trigger, warn = stale(), {P: ts("2025-06-01T06:00:00Z")}
    pipelines = [PipelineTriggers(P, (trigger,), cooldown_s=4 * 3600)]
    cooling = {"last_fired": {P: (ts("2025-06-01T04:00:00Z"), "r0")}}
    skipped = evaluate(pipelines, Schedule(PARIS), StateView(**cooling), ts("2025-06-01T06:30:00Z"), {}, stale_at=warn)
    assert [(t, fire) for t, fire, _ in outcomes(skipped)] == [("2025-06-01T06:00:00Z", False)]
    assert outcomes(skipped)[0][2].startswith("cooldown 4h: last fired at 2025-06-01T04:00:00Z (run r0)")
    decided = started(trigger, "2025-06-01T05:00:00Z", "2025-06-01T06:00:00Z", **cooling)
    assert evaluate(pipelines, Schedule(PARIS), decided, ts("2025-06-01T07:00:00Z"), {}, stale_at=warn).decisions == ()
    retry = evaluate(pipelines, Schedule(PARIS), decided, ts("2025-06-01T08:01:00Z"), {}, stale_at=warn)
    assert outcomes(retry) == [("2025-06-01T08:01:00Z", True, "still stale since 2025-06-01T06:00:00Z")]
