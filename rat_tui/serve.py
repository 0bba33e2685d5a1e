"""`rat-tui serve [PROJECT] [--port N] [--bind ADDR]`: the project runs itself, headless.

Evaluates the triggers every few seconds and runs what is due on its warm Spark session, answers webhooks,
and writes one line per tick decision to stdout. One scheduler per project (a lock under `.rat/`).
SIGTERM or Ctrl+C stops scheduling and lets the running runs finish (a second one cancels them), then
exits 0. After a SIGKILL the next start recovers the runs as a run does, and never fires a claimed tick again.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from datetime import datetime, timezone

from .core.automation.scheduler import INTERVAL_SECONDS, Scheduler
from .core.automation.service import TickDecided
from .core.automation.webhooks import WebhookServer
from .core.errors import RatError
from .core.events import Event, RunFinished
from .script.host import EngineHost

DEFAULT_PORT = 8765


def say(text: str) -> None:
    stamp = datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    try:
        print(f"{stamp} {text}", flush=True)
    except BrokenPipeError:
        # The reader is gone (`serve | tee log`: Ctrl+C stops tee too). The runs must still finish and serve
        # stop as it says, so the lines go nowhere from now on (and Python's last flush does not fail either).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rat-tui serve", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("project", nargs="?", default=".", metavar="PROJECT_DIR")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"webhook port (default {DEFAULT_PORT}; 0 picks one)")
    parser.add_argument("--bind", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--interval", type=float, default=INTERVAL_SECONDS, help=argparse.SUPPRESS)
    return parser


def serve_main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    from .core.compose import open_project
    from .core.store.logs import setup_logging

    try:
        wb = open_project(args.project)
    except RatError as exc:
        print(f"rat-tui serve: {exc.sentence()}", file=sys.stderr)
        return 2
    setup_logging(wb.project.state_dir)
    scheduler = Scheduler(wb.automation, wb.project.state_dir, "rat-tui serve")
    try:
        scheduler.hold()
        server = WebhookServer(wb.automation, args.bind, args.port)
    except (RatError, OSError) as exc:
        print(f"rat-tui serve: {exc}", file=sys.stderr)
        wb.close()
        return 1
    signals = threading.Semaphore(0)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: signals.release())
    unsubscribe = wb.events.subscribe(_log_decision)
    for run in wb.recovered:
        say(f"recovered run {run.run_id} of {run.pipeline}: its process had stopped (see `runs`)")
    if wb.automation.recovered:
        say(f"recovered: {wb.automation.recovered} tick(s) whose run was never queued marked skipped")
    wb.warm_up()
    server.start()
    scheduler.start(args.interval)
    # Scripts and shell commands on this project attach to this warm session instead of starting a JVM.
    engine = EngineHost(wb)
    why_not = engine.start()
    say(f"serving {wb.project.root}: webhooks on {server.address}/hooks/NS.LAYER.NAME, "
        f"triggers every {args.interval:g} s; " + (f"scripts start their own engine: {why_not}" if why_not
                                                   else "scripts attach on .rat/engine.sock"))
    try:
        _wait(signals)
        say("stopping: no new ticks")
        scheduler.stop()
        server.stop()
        _finish_runs(wb, signals)
    finally:
        engine.stop()
        unsubscribe()
        wb.close()
    say("stopped")
    return 0


def _wait(signals: threading.Semaphore) -> None:
    while not signals.acquire(timeout=0.5):  # a timeout, so the main thread takes the signal at once
        pass


def _finish_runs(wb, signals: threading.Semaphore) -> None:
    """Let the running runs finish; a second SIGTERM or Ctrl+C cancels them (each cleans up as a cancel does)."""
    active = list(wb.runner.active.values())
    if not active:
        return
    for handle in active:
        say(f"letting run {handle.run_id} of {handle.record.pipeline} finish (SIGTERM again cancels it)")
    while any(not h.done.is_set() for h in active):
        if signals.acquire(timeout=0.5):
            for handle in active:
                if not handle.done.is_set():
                    say(f"cancelling run {handle.run_id} of {handle.record.pipeline}")
                    wb.runs.cancel(handle.run_id)
            break
    for handle in active:
        handle.wait()


def _log_decision(event: Event) -> None:
    if isinstance(event, TickDecided):
        say(event.sentence())
    elif isinstance(event, RunFinished):
        say(f"run {event.run_id} of {event.pipeline} {event.status}" + (f": {event.error}" if event.error else ""))
