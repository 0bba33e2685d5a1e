"""A child process that holds a project's engine and serves it on .rat/engine.sock, as an open TUI does;
the attach tests start it (`python -m tests.enginehelpers ROOT [--warm]`) and SIGKILL it."""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LISTENING = "listening"


@contextmanager
def engine_host(root: Path, warm: bool, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen]:
    """The host process, once it listens; it stops when the block ends (stdin closed), or is killed."""
    child = subprocess.Popen([sys.executable, "-m", "tests.enginehelpers", str(root), *(["--warm"] if warm else [])],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             env={**os.environ, **(env or {})})
    try:
        first = child.stdout.readline().strip()
        assert first == LISTENING, f"the engine host did not listen: {first!r}"
        yield child
    finally:
        if child.poll() is None:
            child.stdin.close()
            try:
                child.wait(timeout=120)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


def _serve(root: str, warm: bool) -> None:
    from rat_tui.core.compose import open_project
    from rat_tui.script.host import EngineHost

    workbench = open_project(root)
    if warm:
        workbench.spark.session(timeout=600)
    host = EngineHost(workbench)
    print(host.start() or LISTENING, flush=True)
    sys.stdin.read()  # until the test closes stdin
    host.stop()
    workbench.close()


if __name__ == "__main__":
    _serve(sys.argv[1], "--warm" in sys.argv[2:])
