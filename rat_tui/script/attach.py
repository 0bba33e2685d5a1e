"""The client side of the engine socket: run a parsed script on the engine a project's open TUI (or
`serve`) holds, printing exactly what a process of its own would print. Loads no Spark and no Textual."""
from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import TextIO

from .executor import EXIT_FAILED
from .parser import ScriptLine
from .wire import ScriptRequest, read_frames, socket_path

EXIT_INTERRUPTED = 130  # as a shell reports a command stopped by Ctrl-C


def attach(root: Path, request: ScriptRequest, lines: list[ScriptLine], out: TextIO, err: TextIO) -> int | None:
    """The script's exit status from the engine listening for `root`, or None when none listens."""
    path = socket_path(root)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
    except (FileNotFoundError, ConnectionRefusedError):  # no engine, or one that was killed
        sock.close()
        return None
    except PermissionError:
        sock.close()
        err.write(f"rat-tui: the engine on {path} belongs to another user; run with --no-attach "
                  f"to start an engine of your own\n")
        return EXIT_FAILED
    engine, answered = None, 0  # the engine's pid; the last script line it answered
    with sock, sock.makefile("rb") as reader:
        try:
            for frame in read_frames(reader):  # the host speaks first: it lets the client in, or not
                if "refused" in frame:
                    err.write(f"rat-tui: {frame['refused']}\n")
                    return EXIT_FAILED
                if "exit" in frame:
                    return int(frame["exit"])
                if "engine" in frame:
                    engine = frame["engine"]
                    sock.sendall(request.encode())
                elif "out" in frame:
                    answered = _answered(frame["out"], answered)
                    out.write(frame["out"] + "\n")
                    out.flush()
                elif "err" in frame:
                    err.write(frame["err"] + "\n")
        except OSError:
            pass  # reset by a dying engine: said below
        except KeyboardInterrupt:  # the engine runs no further line once it finds the client gone
            running = _running(lines, answered)
            goes_on = f"finishes line {running.line} (`{running.cmd}`) and " if running else ""
            err.write(f"rat-tui: interrupted; the engine {goes_on}runs no further line of this script\n")
            return EXIT_INTERRUPTED
    err.write(f"rat-tui: {_died(path, engine, lines, answered)}\n")
    return EXIT_FAILED


def _answered(line: str, answered: int) -> int:
    fields = json.loads(line)
    return int(fields["line"]) if "event" not in fields and fields.get("line") else answered


def _running(lines: list[ScriptLine], answered: int) -> ScriptLine | None:
    return next((line for line in lines if line.line > answered), None)


def _died(path: Path, engine: int | None, lines: list[ScriptLine], answered: int) -> str:
    who = f"the engine (pid {engine}) on {path}" if engine else f"the engine on {path}"
    running = _running(lines, answered)
    if running is None:
        return f"{who} stopped before it confirmed the end of the script"
    return (f"{who} stopped while it ran line {running.line} (`{running.cmd}`); that command's outcome "
            f"is unknown: `runs` shows it once an engine runs again")
