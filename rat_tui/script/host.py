"""The engine host: a process that holds a project's warm engine (an open TUI, `serve`) serves scripts and
shell commands on `.rat/engine.sock`, so they need no JVM of their own.

    host = EngineHost(workbench)
    why_not = host.start()   # None: listening; else the sentence why not (another engine serves it)
    ...
    host.stop()

A Unix socket, mode 0600, never TCP; a client of another uid is refused by its peer credentials. Each
client runs on its own thread through the same parser and executor as `rat-tui --script`.
"""
from __future__ import annotations

import io
import logging
import os
import socket
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from .commands import ScriptContext
from .executor import EXIT_BAD_SCRIPT, execute, parse
from .wire import MAX_SOCKET_PATH, ScriptRequest, frame, needs_own_process, peer, refusal, socket_path

if TYPE_CHECKING:
    from ..core.compose import Workbench

log = logging.getLogger(__name__)


class _FrameStream(io.TextIOBase):
    """A text stream whose every line becomes one frame to the client (`out` or `err`)."""

    def __init__(self, conn: socket.socket, kind: str, lock: threading.Lock):
        self._conn, self._kind, self._lock, self._pending = conn, kind, lock, ""

    def write(self, text: str) -> int:
        self._pending += text
        *lines, self._pending = self._pending.split("\n")
        for line in lines:
            send(self._conn, self._lock, **{self._kind: line})
        return len(text)


def send(conn: socket.socket, lock: threading.Lock, **fields) -> None:
    with lock:  # run events arrive on run threads while the script's thread writes results
        conn.sendall(frame(**fields))


def is_listening(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
        return True
    except OSError:
        return False
    finally:
        probe.close()


class EngineHost:
    """Serves `--script` requests from other processes on one open Workbench."""

    def __init__(self, workbench: Workbench):
        self.workbench = workbench
        self.path = socket_path(workbench.project.root)
        self._server: socket.socket | None = None
        self._inode: int | None = None

    def start(self) -> str | None:
        """Listen; None when listening, else one sentence saying why this process does not serve."""
        if len(os.fsencode(self.path)) > MAX_SOCKET_PATH:
            return f"{self.path} is longer than a Unix socket path may be; scripts start an engine of their own"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if is_listening(self.path):
            return f"another process already serves this project's engine on {self.path}"
        self.path.unlink(missing_ok=True)  # left by an engine that was killed
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        umask = os.umask(0o177)  # created 0600: no moment where another user could connect
        try:
            server.bind(str(self.path))
        finally:
            os.umask(umask)
        os.chmod(self.path, 0o600)
        server.listen(16)
        self._server, self._inode = server, self.path.stat().st_ino
        threading.Thread(target=self._accept, name="engine-host", daemon=True).start()
        log.info("engine host listening on %s", self.path)
        return None

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        try:
            if self.path.stat().st_ino == self._inode:  # never remove a newer engine's socket
                self.path.unlink()
        except FileNotFoundError:
            pass
        try:
            server.shutdown(socket.SHUT_RDWR)  # wakes accept() on Linux
        except OSError:
            pass
        server.close()

    def __enter__(self) -> EngineHost:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _accept(self) -> None:
        while (server := self._server) is not None:
            try:
                conn, _ = server.accept()
            except OSError:
                return  # stopped
            threading.Thread(target=self._serve, args=(conn,), name="engine-client", daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        lock = threading.Lock()
        with conn:
            try:
                pid, uid = peer(conn)
                why_not = refusal(uid, os.getuid())
                if why_not is not None:
                    log.warning("engine host: %s", why_not)
                    send(conn, lock, refused=why_not)
                    return
                send(conn, lock, engine=os.getpid())
                with conn.makefile("rb") as reader:
                    request = ScriptRequest.decode(reader.readline())
                log.info("engine host: a script of %d line(s) from pid %d", len(request.text.splitlines()), pid)
                send(conn, lock, exit=self._run(request, conn, lock))
            except (OSError, ValueError, KeyError):
                log.warning("engine host: a client went away or sent no request", exc_info=True)

    def _run(self, request: ScriptRequest, conn: socket.socket, lock: threading.Lock) -> int:
        out, err = _FrameStream(conn, "out", lock), _FrameStream(conn, "err", lock)
        lines = parse(request.text, out)
        if lines is None:
            return EXIT_BAD_SCRIPT
        own = needs_own_process(lines)
        if own is not None:  # a client sends none of these (attach.py); refuse one that does
            err.write(f"rat-tui: `{own}` runs in a script's own process, not on a shared engine\n")
            return EXIT_BAD_SCRIPT
        context = ScriptContext(self.workbench, cwd=Path(request.cwd) if request.cwd else None)
        return execute(context, lines, out, request.keep_going, request.events, err=err)
