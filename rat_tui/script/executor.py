"""Running a parsed script: one JSON line per result on stdout, exit status per docs/script.md."""
from __future__ import annotations

import json
import logging
import sys
import threading
from typing import Any, TextIO

from ..core.errors import RatError
from .as_json import result_fields
from .commands import COMMANDS, ArgumentError, ScriptContext
from .parser import ScriptError, ScriptLine, parse_script

log = logging.getLogger(__name__)

EXIT_OK, EXIT_FAILED, EXIT_BAD_SCRIPT = 0, 1, 2


_OUT_LOCK = threading.Lock()  # run events arrive from run threads


def emit(obj: dict[str, Any], out: TextIO) -> None:
    line = json.dumps(obj, default=str)
    with _OUT_LOCK:
        out.write(line + "\n")
        out.flush()


def run_line(ctx: ScriptContext, item: ScriptLine) -> dict[str, Any]:
    result: dict[str, Any] = {"line": item.line, "cmd": item.cmd}
    spec = COMMANDS[item.cmd]
    try:
        args = spec.parse_args(item.cmd, item.args, item.rest)
        fields = result_fields(spec.handler(ctx, args, item.body))
        result.update({"ok": True, **fields})
    except ArgumentError as exc:
        result.update({"ok": False, "error": str(exc)})
    except RatError as exc:
        result.update({"ok": False, **result_fields(exc.result), "error": exc.sentence()})
    except Exception as exc:  # an internal bug: keep the traceback in the log, one sentence on stdout
        log.exception("internal error in script line %s (%s)", item.line, item.cmd)
        result.update({"ok": False, "error": f"internal error ({type(exc).__name__}: {exc}); see .rat/logs/app.log"})
    return result


def parse(text: str, out: TextIO) -> list[ScriptLine] | None:
    """The script's commands, or None (after reporting the line) when it cannot run at all."""
    try:
        return parse_script(text, COMMANDS)
    except ScriptError as exc:
        emit({"line": exc.line, "cmd": None, "ok": False, "error": str(exc)}, out)
        return None


def execute(ctx: ScriptContext, lines: list[ScriptLine], out: TextIO = sys.stdout, keep_going: bool = False,
            events: bool = False, err: TextIO | None = None) -> int:
    """Run parsed commands in order; one JSON line per result (and, with `events`, per event of the project's
    one stream: runs, the session, the services' notices) on `out`,
    sentences for people on `err` (stderr; an attached client's stderr when the engine host runs it)."""
    err = err or sys.stderr
    wb = ctx.wb
    unsubscribe = wb.events.subscribe(lambda event: emit(event.as_dict(), out)) if events else None
    try:
        if wb.remote is not None:
            wb.bucket.connect_remote()  # credentials and versioning checked, new files pulled, before line 1
        if wb.runs.needs_cleanup():
            for done in wb.runs.cleanup_leftovers():
                print(f"rat-tui: {done}", file=err)
        status = EXIT_OK
        for item in lines:
            result = run_line(ctx, item)
            emit(result, out)
            if not result["ok"]:
                status = EXIT_FAILED
                if not keep_going:
                    break
        return status
    except RatError as exc:
        print(f"rat-tui: {exc.sentence()}", file=err)
        return EXIT_FAILED
    finally:
        if unsubscribe:
            unsubscribe()
