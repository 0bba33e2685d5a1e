"""rat.yaml's watch.cascade and watch.run_on_landing as implicit `after` and `landing` triggers, evaluated by
the same pure function as config.yaml's (fast: no Spark, no state.db)."""
from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from rat_tui.core.automation.evaluate import LiveRun, StateView, evaluate
from rat_tui.core.automation.implicit import implicit_of, implicit_triggers
from rat_tui.core.automation.schedule import Schedule, iso_z
from rat_tui.core.automation.triggers import Kind, PipelineTriggers, Trigger
from rat_tui.core.project.graph import Node, ProjectGraph, zone_node
from rat_tui.core.project.settings import Settings

A, B, D = "m.bronze.a", "m.silver.b", "m.gold.d"
SCHEDULE = Schedule(ZoneInfo("UTC"))


def ts(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def graph() -> ProjectGraph:
    """orders zone -> a -> b -> d, and d reads a too."""
    g = ProjectGraph()
    g.nodes[zone_node("m", "orders")] = Node(zone_node("m", "orders"), "zone", "landing")
    for name in (A, B, D):
        g.nodes[name] = Node(name, "pipeline", name.split(".")[1])
    for source, target in ((zone_node("m", "orders"), A), (A, B), (B, D), (A, D)):
        g.add_edge(source, target)
    return g


def in_order(settings: Settings) -> list[PipelineTriggers]:
    found = implicit_triggers(settings, graph())
    return [PipelineTriggers(name, tuple(found[name])) for name in (A, B, D) if name in found]


def outcomes(evaluation) -> list[tuple[str, str, bool, str, str | None]]:
    return [(d.pipeline, iso_z(d.scheduled_for), d.fire, d.reason, d.parent_run) for d in evaluation.decisions]


def test_each_setting_gives_the_readers_their_implicit_trigger_named_as_such():
    cascade = implicit_triggers(Settings(watch_cascade=True), graph())
    assert sorted(cascade) == sorted([B, D])
    assert [(t.kind, t.after, t.spec, t.implicit) for t in cascade[D]] == [
        (Kind.AFTER, (A, B), f"any of {A}, {B} (watch.cascade)", "watch.cascade")]
    assert cascade[D][0].ancestors == {A, B}
    landing = implicit_triggers(Settings(watch_run_on_landing=True), graph())
    assert {name: [t.key for t in ts_] for name, ts_ in landing.items()} == {
        A: ["landing:orders (watch.run_on_landing)"]}
    assert implicit_of(landing[A][0].key) == "watch.run_on_landing" and implicit_of("cron:0 6 * * *") is None
    assert implicit_triggers(Settings(), graph()) == {}


def test_a_cascade_runs_each_downstream_once_after_everything_upstream_of_it():
    pipelines = in_order(Settings(watch_cascade=True))
    starts = {(t.pipeline, t.key): ts("2025-06-01T08:00:00Z") for p in pipelines for t in p.triggers}
    a_done = {A: (ts("2025-06-01T09:00:00Z"), ts("2025-06-01T09:01:00Z"))}
    now = ts("2025-06-01T09:01:02Z")
    # a succeeded: b fires; d, which reads a too, waits for b (it fires in this very evaluation)
    first = evaluate(pipelines, SCHEDULE, StateView(starts=starts, last_success=a_done, last_success_run={A: "ra"}), now, {})
    assert outcomes(first) == [(B, "2025-06-01T09:01:00Z", True, f"{A} succeeded (watch.cascade)", "ra")]
    # b running: d still waits, and says nothing (no tick)
    running = StateView(starts=starts, last_success=a_done, last_success_run={A: "ra"},
                        last_run_at={B: ts("2025-06-01T09:01:02Z")}, live={B: (LiveRun("rb", "running"),)})
    assert evaluate(pipelines, SCHEDULE, running, now + 5, {}).decisions == ()
    # b succeeded: d runs once, for both; its parent is b's run
    both = StateView(starts=starts, last_success={**a_done, B: (ts("2025-06-01T09:01:03Z"), ts("2025-06-01T09:02:00Z"))},
                     last_success_run={A: "ra", B: "rb"}, last_run_at={B: ts("2025-06-01T09:01:02Z")})
    assert outcomes(evaluate(pipelines, SCHEDULE, both, now + 60, {})) == [
        (D, "2025-06-01T09:02:00Z", True, f"{A} and {B} succeeded (watch.cascade)", "rb")]


def test_run_on_landing_fires_for_files_written_after_it_started_only():
    [reader] = in_order(Settings(watch_run_on_landing=True))
    view = StateView(starts={(A, reader.triggers[0].key): ts("2025-06-01T09:00:00Z")})
    files = {("m", "orders"): (("old.csv", ts("2025-06-01T08:30:00Z")),)}
    assert evaluate([reader], SCHEDULE, view, ts("2025-06-01T10:00:00Z"), files).decisions == ()
    files[("m", "orders")] += (("new.csv", ts("2025-06-01T09:30:00Z")),)
    assert outcomes(evaluate([reader], SCHEDULE, view, ts("2025-06-01T10:00:00Z"), files)) == [
        (A, "2025-06-01T09:30:00Z", True, "1 new file in orders (watch.run_on_landing)", None)]


def test_the_watchers_triggers_start_when_watching_began():
    [reader] = in_order(Settings(watch_run_on_landing=True))
    files = {("m", "orders"): (("new.csv", ts("2025-06-01T09:30:00Z")),)}
    result = evaluate([reader], SCHEDULE, StateView(), ts("2025-06-01T10:00:00Z"), files,
                      implicit_since=ts("2025-06-01T09:00:00Z"))
    assert result.starts == ((reader.triggers[0], ts("2025-06-01T09:00:00Z")),)
    assert [d.fire for d in result.decisions] == [True]


def test_a_scheduler_evaluating_after_an_upstreams_success_still_cascades_it():
    """The TUI's scheduler evaluates every trigger, the implicit ones too, every two seconds. When its evaluation
    was the first of b's implicit `after`, just after a's success, b started then, after that success, and
    never ran (CI under load): the cascade evaluating a moment later found it started already."""
    cron = PipelineTriggers(D, (Trigger(D, Kind.CRON, cron="0 6 * * *"),))
    [b] = in_order(Settings(watch_cascade=True))[:1]
    watching_began, a_done, now = ts("2025-06-01T09:00:00Z"), ts("2025-06-01T09:01:00Z"), ts("2025-06-01T09:01:01Z")
    view = StateView(last_success={A: (ts("2025-06-01T09:00:30Z"), a_done)}, last_success_run={A: "ra"})
    result = evaluate([b, cron], SCHEDULE, view, now, {}, implicit_since=watching_began)
    assert outcomes(result) == [(B, "2025-06-01T09:01:00Z", True, f"{A} succeeded (watch.cascade)", "ra")]
    # an explicit trigger first evaluated now starts now: the watcher is no cause to run its past times
    assert [(t.pipeline, start) for t, start in result.starts] == [(B, watching_began), (D, now)]
    # with no watcher on (a `serve`), an implicit trigger starts when first evaluated, as any other
    assert evaluate([b], SCHEDULE, view, now, {}).decisions == ()
