"""Triggers through script mode, with `tick --at` as the clock (issue 38): DST nights, catch-up with reasons,
landing pattern, `require: all`, overlap and cooldown on the shared lake (in this process), and exactly once
across two processes (child processes: two processes are the point)."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import rat_yaml_extra, run_script_here, script

pytestmark = pytest.mark.spark

PARIS = "schedule:\n  timezone: Europe/Paris\n"


@pytest.fixture
def auto(lake, scratch):
    """A scratch namespace whose triggers are the only ones in the lake (removed after the test), in Paris."""
    with rat_yaml_extra(lake, PARIS):
        yield scratch
    for config in scratch.root.glob("pipelines/*/*/config.yaml"):
        config.unlink()


def ticked(results: list[dict], pipeline: str) -> tuple[list, list]:
    """(fired, skipped) of a tick result, for one pipeline: (scheduled_for, status|reason)."""
    return ([(f["scheduled_for"], f["status"]) for f in results["fired"] if f["pipeline"] == pipeline],
            [(s["scheduled_for"], s["reason"]) for s in results["skipped"] if s["pipeline"] == pipeline])


def test_autumn_night_fires_a_daily_0230_once(lake, auto):
    fqn = auto.pipeline("bronze", "autumn", "SELECT 1 AS x", config='triggers:\n  - cron: "30 2 * * *"\n')
    status, results = script(lake, "tick --at 2025-10-25T12:00:00Z\n"
                                   "tick --at 2025-10-26T00:30:20Z\n"  # 02:30 CEST
                                   "tick --at 2025-10-26T01:30:20Z\n"  # 02:30 CET, the repeated hour
                                   "tick --at 2025-10-27T01:30:20Z\n"
                                   f"ticks {fqn}\n")
    assert status == 0, results
    assert ticked(results[0], fqn) == ([], [])
    assert ticked(results[1], fqn) == ([("2025-10-26T00:30:00Z", "success")], [])
    assert ticked(results[2], fqn) == ([], [])
    assert ticked(results[3], fqn) == ([("2025-10-27T01:30:00Z", "success")], [])
    assert [(t["scheduled_for"], t["outcome"]) for t in results[4]["ticks"]] == [
        ("2025-10-27T01:30:00Z", "fired"), ("2025-10-26T00:30:00Z", "fired")]
    runs = lake.browse.runs(fqn).as_dict()["runs"]
    assert [(r["trigger"], r["status"]) for r in runs] == [("cron", "success"), ("cron", "success")]


def test_spring_night_fires_at_the_next_existing_time(lake, auto):
    fqn = auto.pipeline("bronze", "spring", "SELECT 1 AS x", config='triggers:\n  - cron: "30 2 * * *"\n')
    status, results = script(lake, "tick --at 2025-03-29T12:00:00Z\n"
                                   "tick --at 2025-03-30T00:59:00Z\n"  # 01:59 CET, the hour before the gap
                                   "tick --at 2025-03-30T01:00:30Z\n")  # 03:00:30 CEST
    assert status == 0, results
    assert ticked(results[1], fqn) == ([], [])
    assert ticked(results[2], fqn) == ([("2025-03-30T01:00:00Z", "success")], [])


def test_missed_times_follow_catch_up_and_each_has_its_reason(lake, auto):
    fqn = auto.pipeline("bronze", "hourly", "SELECT 1 AS x", config='triggers:\n  - cron: "0 * * * *"\n')
    status, results = script(lake, "tick --at 2025-06-01T09:30:00Z\n"
                                   "tick --at 2025-06-01T12:30:00Z\n"
                                   f"ticks {fqn}\n")
    assert status == 0, results
    why = "missed: nothing evaluated the schedule then; catch_up: latest ran only 2025-06-01T12:00:00Z"
    assert ticked(results[1], fqn) == ([("2025-06-01T12:00:00Z", "success")],
                                       [("2025-06-01T10:00:00Z", why), ("2025-06-01T11:00:00Z", why)])
    assert [(t["scheduled_for"], t["outcome"], t["evaluated_at"]) for t in results[2]["ticks"]] == [
        ("2025-06-01T12:00:00Z", "fired", "2025-06-01T12:30:00Z"),
        ("2025-06-01T11:00:00Z", "skipped", "2025-06-01T12:30:00Z"),
        ("2025-06-01T10:00:00Z", "skipped", "2025-06-01T12:30:00Z")]


def test_cooldown_skips_a_tick_with_its_reason(lake, auto):
    fqn = auto.pipeline("bronze", "cool", "SELECT 1 AS x", config='triggers:\n  - cron: "*/5 * * * *"\ncooldown: 10m\n')
    status, results = script(lake, "tick --at 2025-06-01T10:02:00Z\n"
                                   "tick --at 2025-06-01T10:05:10Z\n"
                                   "tick --at 2025-06-01T10:10:10Z\n")
    assert status == 0, results
    run_id = results[1]["fired"][0]["run_id"]
    assert ticked(results[2], fqn) == ([], [("2025-06-01T10:10:00Z",
                                             f"cooldown 10m: last fired at 2025-06-01T10:05:10Z (run {run_id}); "
                                             "next possible at 2025-06-01T10:15:10Z")])


def test_landing_fires_only_for_files_matching_the_pattern(lake, auto):
    auto.landing("orders", "customers.csv", "id\n1\n")
    fqn = auto.pipeline("bronze", "orders", "SELECT id FROM {{ landing_zone('orders') }}",
                        config='triggers:\n  - landing: orders\n    pattern: "orders_*.csv"\n')
    status, results = script(lake, "tick\n")
    assert status == 0 and ticked(results[0], fqn) == ([], []), results
    auto.landing("orders", "orders_1.csv", "id\n2\n")
    status, results = script(lake, "tick\ntick\n")
    assert status == 0, results
    assert [(f["pipeline"], f["kind"], f["status"]) for f in results[0]["fired"]] == [(fqn, "landing", "success")]
    assert ticked(results[1], fqn) == ([], [])  # loaded: not new any more


def test_require_all_waits_for_every_upstream_and_says_which(lake, auto):
    a = auto.pipeline("bronze", "a", "SELECT 1 AS x")
    b = auto.pipeline("bronze", "b", "SELECT 2 AS x")
    c = auto.pipeline("silver", "c", "SELECT * FROM {{ ref('bronze.a') }} UNION ALL SELECT * FROM {{ ref('bronze.b') }}",
                      config="triggers:\n  - after: [bronze.a, bronze.b]\n    require: all\n")
    status, results = script(lake, f"tick\nrun {a}\ntick\nrun {b}\ntick\n")
    assert status == 0, results
    assert ticked(results[0], c) == ([], [])
    fired, skipped = ticked(results[2], c)
    assert fired == [] and len(skipped) == 1 and skipped[0][1].startswith(f"waiting for {b}: no successful run since")
    assert [(f["pipeline"], f["kind"], f["status"]) for f in results[4]["fired"]] == [(c, "after", "success")]


def test_an_upstream_run_that_found_nothing_new_fires_no_after_trigger(lake, auto):
    """A config.yaml save re-ran a bronze pipeline whose zone held nothing new, and its `after` downstream ran
    again on the same data: a success that wrote nothing is no news."""
    auto.landing("feed", "a.csv", "id\n1\n")
    a = auto.pipeline("bronze", "a", "-- @merge_strategy: append_only\nSELECT * FROM {{ landing_zone('feed') }}")
    c = auto.pipeline("silver", "c", "SELECT * FROM {{ ref('bronze.a') }}", config="triggers:\n  - after: bronze.a\n")
    status, results = script(lake, f"tick\nrun {a}\ntick\nrun {a}\ntick\n")
    assert status == 0, results
    assert [(f["pipeline"], f["kind"], f["status"]) for f in results[2]["fired"]] == [(c, "after", "success")]
    assert results[3]["run"]["note"] == f"nothing new in {auto.ns}/landing/feed", results[3]
    assert ticked(results[4], c) == ([], [])
    assert [r["trigger"] for r in lake.browse.runs(c).as_dict()["runs"]] == ["after"]


def test_overlap_skip_records_the_running_run(lake, auto, monkeypatch, tmp_path: Path):
    fqn = auto.pipeline("bronze", "slow", "SELECT 1 AS x", config='triggers:\n  - cron: "0 * * * *"\n')
    resume = tmp_path / "resume"
    monkeypatch.setenv("RAT_TEST_PAUSE_AT", "after:config_loading")
    monkeypatch.setenv("RAT_TEST_PAUSE_FILE", str(tmp_path / "paused"))
    monkeypatch.setenv("RAT_TEST_RESUME_FILE", str(resume))
    with rat_yaml_extra(lake, "  overlap: skip\n"):
        assert script(lake, "tick --at 2025-06-01T09:30:00Z\n")[0] == 0
        held = lake.runs.submit(fqn)
        while not (tmp_path / "paused").exists():
            assert not held.done.is_set(), held.record
            time.sleep(0.05)
        status, results = script(lake, "tick --at 2025-06-01T10:00:10Z\n")
        resume.write_text("go")
        assert held.wait().status == "success"
    assert status == 0, results
    assert ticked(results[0], fqn) == ([], [("2025-06-01T10:00:00Z",
                                             f"run {held.run_id} of {fqn} is still running (overlap: skip)")])


def test_validate_refuses_a_cycle_of_after_triggers(tmp_path: Path):
    from rat_tui.core.compose import open_project

    for name, other in (("a", "b"), ("b", "a")):
        folder = tmp_path / "m" / "pipelines" / "bronze" / name
        folder.mkdir(parents=True)
        (folder / "pipeline.sql").write_text("SELECT 1 AS x\n")
        (folder / "config.yaml").write_text(f"triggers:\n  - cron: \"0 6 * * *\"\n  - after: bronze.{other}\n")
    wb = open_project(tmp_path)
    try:
        status, results = script(wb, "validate\n")
    finally:
        wb.close()
    assert status == 1
    assert results[0]["problems"] == [{"path": "m/pipelines/bronze/a/config.yaml", "line": 3, "severity": "error",
                                       "message": "after triggers form a cycle: m.bronze.a → m.bronze.b → m.bronze.a"}]


def test_a_tick_fires_once_across_two_processes_and_a_restart(sample_copy: Path):
    folder = sample_copy / "auto" / "pipelines" / "bronze" / "once"
    folder.mkdir(parents=True)
    (folder / "pipeline.sql").write_text("SELECT 1 AS x\n")
    (folder / "config.yaml").write_text('triggers:\n  - cron: "0 * * * *"\n')
    assert run_script_here(sample_copy, "tick --at 2025-06-01T09:30:00Z\n")[0] == 0
    both = [subprocess.Popen([sys.executable, "-m", "rat_tui", str(sample_copy), "--script", "-"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [proc.communicate("tick --at 2025-06-01T10:00:10Z\n", timeout=300) for proc in both]
    fired = [f for out, _ in outs for line in out.splitlines() for f in json.loads(line)["fired"]]
    assert [(f["pipeline"], f["scheduled_for"], f["status"]) for f in fired] == [
        ("auto.bronze.once", "2025-06-01T10:00:00Z", "success")], outs
    # the restart: this process, after both children
    status, results, stderr = run_script_here(sample_copy, "tick --at 2025-06-01T10:00:10Z\nticks\nruns auto.bronze.once\n")
    assert status == 0, (results, stderr)
    assert results[0]["fired"] == [] and results[0]["skipped"] == []
    assert [(t["scheduled_for"], t["outcome"], t["run_id"]) for t in results[1]["ticks"]] == [
        ("2025-06-01T10:00:00Z", "fired", fired[0]["run_id"])]
    assert [r["run_id"] for r in results[2]["runs"]] == [fired[0]["run_id"]]


def test_a_webhook_token_is_shown_once_and_a_webhook_inside_the_cooldown_answers_429(lake, auto):
    import hashlib

    fqn = auto.pipeline("bronze", "hooked", "SELECT 1 AS x", config="triggers:\n  - webhook: true\ncooldown: 10m\n")
    status, results = script(lake, f"webhook-token {fqn}\nwebhook-token {fqn}\n")
    assert status == 1 and results[0]["ok"], results
    token = results[0]["token"]
    assert results[1]["error"] == (f"{fqn} has a webhook token already (it was shown once); "
                                   "`webhook-token --rotate` makes a new one")
    [stored] = lake.state.query_one("SELECT token_hash FROM webhook_tokens WHERE pipeline = ?", (fqn,))
    assert stored == hashlib.sha256(token.encode()).hexdigest()  # only the hash is kept
    assert (lake.automation.webhook(fqn, "wrong").status, lake.automation.webhook(fqn, None).status) == (401, 401)
    first = lake.automation.webhook(fqn, token)
    assert first.status == 202 and first.run_id
    second = lake.automation.webhook(fqn, token)
    assert second.status == 429
    assert second.message.startswith("cooldown 10m: last fired at ") and f"(run {first.run_id})" in second.message
    lake.runs.wait_idle(120)
    assert [(r["run_id"], r["trigger"], r["status"]) for r in lake.browse.runs(fqn).as_dict()["runs"]] == [
        (first.run_id, "webhook", "success")]
    assert [(t["outcome"], t["reason"][:12]) for t in script(lake, f"ticks {fqn}\n")[1][0]["ticks"]] == [
        ("skipped", "cooldown 10m"), ("fired", "")]


def test_a_fired_tick_whose_run_failed_says_so_in_ticks_and_the_automation_tab(lake, auto):
    """Found by a new user: the Automation tab showed a tick whose run failed as a plain green `fired`."""
    from rich.console import Console

    from rat_tui.tui.components.automation_pane import ticks_table

    fqn = auto.pipeline("bronze", "broken", "SELECT no_such_column FROM range(1)",
                        config='triggers:\n  - cron: "0 6 * * *"\n')
    status, results = script(lake, "tick --at 2025-06-01T03:00:00Z\ntick --at 2025-06-01T04:00:10Z\n")
    assert status == 1 and ticked(results[1], fqn) == ([("2025-06-01T04:00:00Z", "failed")], []), results
    status, results = script(lake, f"ticks {fqn}\n")
    assert status == 0, results
    assert [(t["outcome"], t["run_status"]) for t in results[0]["ticks"]] == [("fired", "failed")]
    console = Console(width=160, record=True)
    console.print(ticks_table(lake.automation.ticks(fqn), time.time()))
    assert "fired → failed" in console.export_text()
