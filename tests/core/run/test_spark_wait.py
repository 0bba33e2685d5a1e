"""A run started while Spark is still starting says how long it waited (issue 28 item 6: started_at
came 3 s before the first phase, and nothing said why)."""
from __future__ import annotations

import time

import pytest

SQL = "-- @merge_strategy: full_refresh\nSELECT 1 AS id\n"


def test_a_run_says_how_long_it_waited_for_spark(scratch, monkeypatch: pytest.MonkeyPatch):
    manager = scratch.wb.spark
    ready = manager.session

    def starting(timeout=None):
        time.sleep(0.4)  # as if the JVM were still starting
        return ready(timeout)

    fqn = scratch.pipeline("bronze", "waited", SQL)
    monkeypatch.setattr(manager, "session", starting)
    record = scratch.run(fqn)
    assert record["status"] == "success", record["error"]
    assert record["waited_for_spark_ms"] >= 400
    monkeypatch.setattr(manager, "session", ready)
    assert scratch.run(fqn)["waited_for_spark_ms"] < 400
