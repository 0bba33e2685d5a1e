"""Script commands of the automation (issue 38): triggers, tick, ticks, webhook-token."""
from __future__ import annotations

import argparse

from ..core.errors import RatError
from .arg_types import clock_time
from .as_json import as_json
from .commands import ScriptContext, arg, command


@command("triggers", arg("selector", nargs="?"))
def _triggers(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> dict:
    """Every trigger with its next time (including those rat.yaml's watch: settings imply)."""
    return {"triggers": as_json(ctx.wb.automation.triggers(a.selector))}


@command("tick", arg("--at", type=clock_time, help="an ISO time to evaluate at (default: now)"))
def _tick(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> dict:
    """Evaluate every trigger once as if the clock read --at, start what is due, and wait for it."""
    """Evaluate every trigger once as if the clock read --at; start what is due and wait for it."""
    result = ctx.wb.automation.tick(a.at)
    fields = as_json(result)
    if result.failed:
        first = result.failed[0]
        raise RatError.with_result(f"{len(result.failed)} fired run(s) did not succeed; first: run {first.run_id} "
                                   f"of {first.pipeline} {first.status}", fields)
    return fields


@command("ticks", arg("pipeline", nargs="?", help="NS.LAYER.NAME (default: every pipeline)"),
         arg("--limit", type=int, default=20, help="ticks to show (20)"))
def _ticks(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> dict:
    """Tick decisions, newest first: fired (with the run's status) or skipped, and why."""
    return {"ticks": as_json(ctx.wb.automation.ticks(a.pipeline, a.limit))}


@command("webhook-token", arg("pipeline", help="NS.LAYER.NAME"),
         arg("--rotate", action="store_true", help="make a new token (the old one stops working)"))
def _webhook_token(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> dict:
    """A pipeline's webhook token, shown once (only its hash is kept); --rotate makes a new one."""
    return {"token": ctx.wb.automation.webhook_token(a.pipeline, a.rotate)}
