"""The event bus: listeners in the publisher's thread, and background ones (a run's lineage) that never
hold the publisher up, get every event in order, and can be waited for (settle)."""
from __future__ import annotations

import threading

from rat_tui.core.events import EventBus, LogLine


def test_a_blocked_background_listener_holds_up_neither_the_publisher_nor_the_others_and_settle_waits_for_it():
    bus = EventBus()
    release, seen, threads, foreground = threading.Event(), [], set(), []

    def slow(event) -> None:
        release.wait(30)
        seen.append(event.message)
        threads.add(threading.current_thread())

    bus.subscribe(slow, background=True)
    bus.subscribe(lambda event: foreground.append(event.message))
    for n in range(5):
        bus.publish(LogLine("r1", "info", f"line {n}"))  # would never return if `slow` ran here
    assert foreground == [f"line {n}" for n in range(5)]
    assert seen == [] and bus.settle(timeout=0.05) is False
    release.set()
    assert bus.settle(timeout=30) is True
    assert seen == [f"line {n}" for n in range(5)]  # all of them, in order, on one thread not this one
    assert len(threads) == 1 and threading.current_thread() not in threads


def test_a_failing_background_listener_is_logged_and_later_events_still_reach_it(caplog):
    bus = EventBus()
    seen = []

    def fussy(event) -> None:
        if event.message == "bad":
            raise ValueError("boom")
        seen.append(event.message)

    bus.subscribe(fussy, background=True)
    for message in ("a", "bad", "b"):
        bus.publish(LogLine("r1", "info", message))
    assert bus.settle(timeout=30)
    assert seen == ["a", "b"]
    assert "event listener failed on LogLine" in caplog.text


def test_settle_from_the_listeners_own_thread_returns_at_once_and_unsubscribed_backlogs_are_not_waited_for():
    bus = EventBus()
    answers = []
    bus.subscribe(lambda event: answers.append(bus.settle(timeout=5)), background=True)  # it reads what it wrote
    bus.publish(LogLine("r1", "info", "x"))
    assert bus.settle(timeout=30) and answers == [True]
    stuck = threading.Event()
    unsubscribe = bus.subscribe(lambda event: stuck.wait(30), background=True)
    bus.publish(LogLine("r1", "info", "y"))
    unsubscribe()
    assert bus.settle(timeout=1) is True
    stuck.set()
