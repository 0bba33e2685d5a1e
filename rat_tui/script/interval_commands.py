"""Script commands of intervals and backfills (issue 39): intervals, backfill."""
from __future__ import annotations

import argparse

from ..core.errors import Reported
from .arg_types import moment_text, start_before_end
from .commands import ScriptContext, arg, command


@command("intervals", arg("pipeline"), arg("--start", type=moment_text), arg("--end", type=moment_text),
         check=start_before_end)
def _intervals(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """The intervals of a partitioned pipeline with their status (done, failed, missing, stale)."""
    return ctx.wb.intervals.intervals(a.pipeline, a.start, a.end)


@command("backfill", arg("pipeline"), arg("--start", required=True, type=moment_text),
         arg("--end", required=True, type=moment_text),
         arg("--missing", action="store_true", help="the intervals never built"),
         arg("--failed", action="store_true", help="the intervals whose last run failed"),
         arg("--stale", action="store_true", help="the intervals built by another version of the pipeline"),
         arg("--all", action="store_true", help="every interval of the range"),
         arg("--review", action="store_true", help="hold the run for approve/reject"),
         arg("--dry-run", action="store_true", help="list the intervals it would run"), check=start_before_end)
def _backfill(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Run chosen intervals of [start, end) as one run: one branch, quality tests on it, main moves once."""
    """[--start, --end) of the pipeline; by default its missing and failed intervals."""
    choose = tuple(name for name in ("missing", "failed", "stale", "all") if getattr(a, name))
    return ctx.wb.intervals.backfill(a.pipeline, a.start, a.end, choose, review=a.review, dry_run=a.dry_run)
