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


def test_the_faces_get_an_event_before_a_background_listener_subscribed_earlier_wakes_on_it():
    """A background listener's thread, woken first, took the GIL from the publisher: a run's end reached the TUI
    up to a switch interval later."""
    import time

    bus = EventBus()
    faces: list[str] = []
    background_saw_the_face_first: list[bool] = []
    bus.subscribe(lambda event: background_saw_the_face_first.append(event.message in faces), background=True)

    def face(event) -> None:
        time.sleep(0.2)  # time enough for a woken background thread to run first
        faces.append(event.message)

    bus.subscribe(face)
    bus.publish(LogLine("r1", "info", "finished"))
    assert bus.settle(timeout=30)
    assert background_saw_the_face_first == [True]
