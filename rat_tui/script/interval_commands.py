"""Script commands of intervals and backfills (issue 39): intervals, backfill."""
from __future__ import annotations

import argparse

from ..core.errors import Reported
from .arg_types import moment_text, start_before_end
from .commands import ScriptContext, arg, command


@command("intervals", arg("pipeline"), arg("--start", type=moment_text), arg("--end", type=moment_text),
         check=start_before_end)
def _intervals(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    return ctx.wb.intervals.intervals(a.pipeline, a.start, a.end)


@command("backfill", arg("pipeline"), arg("--start", required=True, type=moment_text),
         arg("--end", required=True, type=moment_text),
         arg("--missing", action="store_true"), arg("--failed", action="store_true"),
         arg("--stale", action="store_true"), arg("--all", action="store_true"),
         arg("--review", action="store_true"), arg("--dry-run", action="store_true"), check=start_before_end)
def _backfill(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """[--start, --end) of the pipeline; by default its missing and failed intervals."""
    choose = tuple(name for name in ("missing", "failed", "stale", "all") if getattr(a, name))
    return ctx.wb.intervals.backfill(a.pipeline, a.start, a.end, choose, review=a.review, dry_run=a.dry_run)
