"""The engine socket's wire, shared by the host and its clients: where the socket lives, the request a
client sends, the frames that come back, and who may connect (docs/script.md#attach-to-a-running-engine)."""
from __future__ import annotations

import json
import socket
import struct
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, BinaryIO

from .commands import SCREEN_COMMANDS
from .parser import ScriptLine

SOCKET_NAME = "engine.sock"
# A Unix socket's path is at most 107 bytes on Linux (sun_path); a deeper project is not served.
MAX_SOCKET_PATH = 107
# Commands a script runs in a process of its own: the screen commands need an app of their own, and
# `watch` / `wait-idle` would switch and wait on the host's watcher (an open TUI's), not the script's.
OWN_PROCESS_COMMANDS = SCREEN_COMMANDS | {"watch", "wait-idle"}


def socket_path(root: Path) -> Path:
    return root / ".rat" / SOCKET_NAME


def needs_own_process(lines: list[ScriptLine]) -> str | None:
    """The first command that keeps a script off a shared engine, or None."""
    return next((line.cmd for line in lines if line.cmd in OWN_PROCESS_COMMANDS), None)


@dataclass(frozen=True)
class ScriptRequest:
    """What a client asks: a script's text and the flags of `--script`; the host parses it as a process of
    its own would."""

    text: str
    keep_going: bool = False
    events: bool = False
    cwd: str = ""  # the client's folder: paths on its side (an upload's files) are read from there

    def encode(self) -> bytes:
        return json.dumps(asdict(self)).encode() + b"\n"

    @classmethod
    def decode(cls, line: bytes) -> ScriptRequest:
        fields = json.loads(line)
        return cls(str(fields["text"]), bool(fields.get("keep_going")), bool(fields.get("events")),
                   str(fields.get("cwd") or ""))


# Frames from the host, one JSON object a line; the host speaks first, the client then sends its request:
#   {"engine": PID}            first, once the client is let in
#   {"refused": SENTENCE}      first and last, when it is not
#   {"out": LINE}              a JSON line the script printed on stdout (a result or an event)
#   {"err": TEXT}              a sentence it printed on stderr
#   {"exit": STATUS}           last: the exit status a process of its own would have had
def frame(**fields: Any) -> bytes:
    return json.dumps(fields).encode() + b"\n"


def read_frames(stream: BinaryIO) -> Iterator[dict[str, Any]]:
    """Frames until the host closes the connection (or dies: then the last frame is not `exit`)."""
    for line in stream:
        if line.endswith(b"\n"):  # a frame cut short by a dying host is no frame
            yield json.loads(line)


def peer(conn: socket.socket) -> tuple[int, int]:
    """(pid, uid) of the process at the other end of a Unix socket, as the kernel saw it connect."""
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, _gid = struct.unpack("3i", creds)
    return pid, uid


def refusal(peer: int, owner: int) -> str | None:
    """Why a client of uid `peer` may not use an engine run by uid `owner` (None: it may)."""
    if peer == owner:
        return None
    return (f"this engine runs as uid {owner} and serves only that user; uid {peer} was refused "
            f"(run with --no-attach to start an engine of your own)")
