"""Script command of freshness (issue 39): how late each table is; not ok when any is `error`."""
from __future__ import annotations

import argparse

from ..core.errors import RatError
from ..core.text import age_label
from .arg_types import clock_time
from .as_json import as_json
from .commands import ScriptContext, arg, command


@command("freshness", arg("selector", nargs="?", help="NS.LAYER.NAME or a selector (default: every pipeline)"),
         arg("--at", type=clock_time, help="an ISO time to judge at (default: now)"))
def _freshness(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> dict:
    """Each table's age against its freshness: policy, as if the clock read --at."""
    """Each selected pipeline's age against its freshness policy, as if the clock read --at."""
    found = ctx.wb.freshness.report(a.selector, a.at)
    fields = {"freshness": as_json(found)}
    late = [f for f in found if f.status == "error"]
    if late:
        raise RatError.with_result(f"{len(late)} table(s) past error_after; first: {late[0].pipeline}, "
                                   f"{age_label(late[0].age_s)} old (error_after {late[0].error_after})", fields)
    return fields
