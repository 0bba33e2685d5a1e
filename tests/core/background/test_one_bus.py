"""One bus (issue 37, item 3): watch-and-run's, the live settings' and the outside changes' notices are events
on the project's one stream, `Workbench.events`, beside the runs' own; `--events` prints them; the run log
keeps runs only."""
from __future__ import annotations

import json
import time
from pathlib import Path

from rat_tui.core.background.outside import OtherProcessRun
from rat_tui.core.background.settings_watch import SettingsReloaded
from rat_tui.core.background.watching import WatchToggled
from rat_tui.core.compose import open_project
from rat_tui.core.events import Event
from rat_tui.core.store.state import RunRecord, StateDB
from tests.helpers import dead_pid, run_script_here


def wait_for(seen: list[Event], kind: type[Event], what: str, timeout: float = 10) -> Event:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [event for event in seen if isinstance(event, kind)]
        if found:
            return found[0]
        time.sleep(0.05)
    raise AssertionError(f"no {kind.__name__} ({what}) on Workbench.events in {timeout} s; saw {seen}")


def test_watch_settings_and_outside_notices_arrive_on_the_one_event_stream(sample_copy: Path):
    wb = open_project(sample_copy)
    seen: list[Event] = []
    wb.events.subscribe(seen.append)
    try:
        wb.watching.set(True)
        assert wait_for(seen, WatchToggled, "watch on").on is True

        wb.settings_watch.start()
        rat_yaml = sample_copy / "rat.yaml"
        rat_yaml.write_text(rat_yaml.read_text() + "\n")  # a save with nothing changed
        assert wait_for(seen, SettingsReloaded, "the save of rat.yaml").path == "rat.yaml"

        wb.outside.start()
        other = StateDB(sample_copy / ".rat" / "state.db")  # what another process on the project writes
        other.insert_run(RunRecord("0f0f0f0f", "ecommerce.silver.clean_orders", "running"))
        other.update_run("0f0f0f0f", pid=dead_pid())
        notice = wait_for(seen, OtherProcessRun, "another process's run")
        assert (notice.run_id, notice.pipeline, notice.status) == ("0f0f0f0f", "ecommerce.silver.clean_orders", "running")
    finally:
        wb.settings_watch.stop()
        wb.close()
    log = sample_copy / ".rat" / "logs" / "runs.jsonl"  # the run log keeps the runs' history, not notices
    assert not log.exists() or not [line for line in log.read_text().splitlines()
                                     if json.loads(line)["event"] in ("WatchToggled", "SettingsReloaded", "OtherProcessRun")]


def test_events_prints_the_watchers_notices_with_the_run_events(sample_copy: Path):
    status, lines, _ = run_script_here(sample_copy, "watch on\nwatch off\n", "--events")
    assert status == 0
    toggles = [line for line in lines if line.get("event") == "WatchToggled"]
    assert [t["on"] for t in toggles] == [True, False]
    assert all(isinstance(t["at"], float) for t in toggles)
    assert [line["cmd"] for line in lines if "cmd" in line] == ["watch", "watch"]
