"""Script commands of the automation (issue 38): triggers, tick, ticks, webhook-token."""
from __future__ import annotations

import argparse

from ..core.errors import RatError
from .arg_types import clock_time
from .as_json import as_json
from .commands import ScriptContext, arg, command


@command("triggers", arg("selector", nargs="?"))
def _triggers(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> dict:
    return {"triggers": as_json(ctx.wb.automation.triggers(a.selector))}


@command("tick", arg("--at", type=clock_time))
def _tick(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> dict:
    """Evaluate every trigger once as if the clock read --at; start what is due and wait for it."""
    result = ctx.wb.automation.tick(a.at)
    fields = as_json(result)
    if result.failed:
        first = result.failed[0]
        raise RatError.with_result(f"{len(result.failed)} fired run(s) did not succeed; first: run {first.run_id} "
                                   f"of {first.pipeline} {first.status}", fields)
    return fields


@command("ticks", arg("pipeline", nargs="?"), arg("--limit", type=int, default=20))
def _ticks(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> dict:
    return {"ticks": as_json(ctx.wb.automation.ticks(a.pipeline, a.limit))}


@command("webhook-token", arg("pipeline"), arg("--rotate", action="store_true"))
def _webhook_token(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> dict:
    return {"token": ctx.wb.automation.webhook_token(a.pipeline, a.rotate)}
