"""Runs' threads are reused when idle (py4j's connection and JVM thread with them), and a run never waits for one."""
from __future__ import annotations

import threading
import time

from rat_tui.core.run.run_threads import RunThreads


def _until(predicate, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_a_run_after_a_run_goes_on_the_same_thread_under_its_own_name():
    threads, seen, done = RunThreads(), [], threading.Event()
    threads.start(lambda: seen.append((threading.get_ident(), threading.current_thread().name)), "run-a")
    _until(lambda: threads.idle() == 1)
    threads.start(lambda: (seen.append((threading.get_ident(), threading.current_thread().name)), done.set()), "run-b")
    assert done.wait(5)
    assert seen[0][0] == seen[1][0] and [name for _, name in seen] == ["run-a", "run-b"]


def test_a_run_never_waits_for_a_busy_thread():
    threads, release, second = RunThreads(), threading.Event(), threading.Event()
    threads.start(lambda: release.wait(5), "run-long")
    threads.start(second.set, "run-short")
    assert second.wait(5)  # while the first still runs
    release.set()
    _until(lambda: threads.idle() == 2)


def test_an_idle_thread_ends_after_its_time_and_a_failing_job_keeps_its_thread():
    threads, idents = RunThreads(idle_seconds=0.2), []

    def failing() -> None:
        idents.append(threading.current_thread())
        raise ValueError("escaped")

    threads.start(failing, "run-x")
    _until(lambda: threads.idle() == 1)
    threads.start(lambda: idents.append(threading.current_thread()), "run-y")
    _until(lambda: len(idents) == 2 and threads.idle() == 1)
    assert idents[0] is idents[1]
    _until(lambda: threads.idle() == 0 and not idents[0].is_alive())


def test_many_runs_at_once_each_get_a_thread_and_all_end():
    threads, gate, ran = RunThreads(), threading.Barrier(6, timeout=5), []
    for n in range(6):
        threads.start(lambda n=n: (gate.wait(), ran.append(n)), f"run-{n}")  # all six must be running at once
    _until(lambda: sorted(ran) == list(range(6)) and threads.idle() == 6)
