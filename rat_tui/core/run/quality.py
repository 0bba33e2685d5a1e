"""Phase 4: quality tests against the run's branch. Each returns the rows that break its rule."""
from __future__ import annotations

import threading
import time

from ..errors import RatError
from ..lake.spark_errors import summarise
from ..project.pipeline_source import QualityTest
from ..lake.sql_guard import check_read_only
from ..project.templating import render
from ..store.state import QualityOutcome
from ..values import row_values
from .context import RunContext

SAMPLE_ROWS = 3


class _Watchdog:
    """Cancels a Spark job group when a quality test runs past its time-out."""

    def __init__(self, ctx: RunContext, group: str, seconds: float):
        self.fired = False
        self._ctx, self._group = ctx, group
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def _fire(self) -> None:
        self.fired = True
        self._ctx.spark.sparkContext.cancelJobGroup(self._group)

    def __enter__(self) -> "_Watchdog":
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()


def run_quality_test(ctx: RunContext, test: QualityTest, branch_ident: str, timeout: float, job_group: str) -> QualityOutcome:
    """Runs in the run's own job group, so cancelling the run stops the test at once; the
    time-out cancels that group too (only this test's jobs run in it meanwhile)."""
    began = time.monotonic()
    outcome = QualityOutcome(test.name, test.severity, "passed", 0)
    watchdog = _Watchdog(ctx, job_group, timeout)
    try:
        sql = render(test.sql, test.relpath, ctx.jinja_context(branch_ident))
        check_read_only(ctx.spark, sql, "a quality test", test.relpath)
        with watchdog:
            violations = ctx.spark.sql(sql)
            count = violations.count()
            sample = violations.limit(SAMPLE_ROWS).collect() if count else []
        outcome.violations = count
        outcome.sample = [row_values(r) for r in sample]
        outcome.sample_columns = list(violations.columns) if sample else []
        if count:
            outcome.status = "failed" if test.severity == "error" else "warned"
    except RatError as exc:
        outcome.status, outcome.error = "error", exc.sentence()
    except Exception as exc:
        if watchdog.fired:
            outcome.status, outcome.error = "error", f"{test.relpath}: timed out after {timeout:g} s"
        else:
            message, line = summarise(exc)
            where = f"{test.relpath}:{line}" if line else test.relpath
            outcome.status, outcome.error = "error", f"{where}: {message}"
    outcome.ms = int((time.monotonic() - began) * 1000)
    return outcome
