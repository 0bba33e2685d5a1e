"""Moving main to a run's branch: the one way a run publishes, whether at the end of the run or when
a held run is approved (review.py). Main must still be where the run began."""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from .. import testpoints
from ..errors import RatError
from ..lake.schema_change import record_key
from ..lake.spark_errors import summarise
from ..lake.table import IcebergTable

MERGE_ATTEMPTS = 3


def check_main_unchanged(table: IcebergTable, base_snapshot: int | None, schema_id: int | None,
                         since: str = "while this run was running", loaded=None, first: str = "") -> None:
    """`loaded`: the Java table just loaded, when the caller commits through it next. `first`: what to do
    before running again, ending the sentence (`; reject run … first, …`)."""
    main, current_schema = table.main_and_schema(loaded)
    if main != base_snapshot:
        raise RatError(
            f"main of {table.ref.fqn} moved {since} (snapshot {base_snapshot} → {main}: another run published, "
            f"or the table was rolled back); nothing was published, run it again to build on the current main{first}")
    if schema_id is not None and current_schema != schema_id:
        raise RatError(f"the schema of {table.ref.fqn} changed {since} (another run's change was put back, or a "
                       f"client altered it); nothing was published, run it again{first}")


def fast_forward(table: IcebergTable, branch: str, run_id: str, base_snapshot: int | None, schema_id: int | None,
                 log: Callable[[str, str], None], check_cancel: Callable[[], None] = lambda: None,
                 since: str = "while this run was running", properties: Mapping[str, str | None] | None = None) -> int:
    """Fast-forward main to the branch and drop the branch, in one commit, only if main is still where
    the run began; returns main's new snapshot. The check and the commit share one load of the table.
    `properties`: what the table's properties must say now (see IcebergTable.fast_forward), in that commit.

    A fast-forward alone would also succeed after main was rolled back to an ancestor, silently
    bringing the rolled-back rows back; and it would be pointless to retry after another run
    published. Other failures (a commit race) are retried.
    """
    for attempt in range(1, MERGE_ATTEMPTS + 1):
        check_cancel()
        loaded = table.loaded()
        check_main_unchanged(table, base_snapshot, schema_id, since, loaded)
        try:
            published = table.fast_forward(branch, {**(properties or {}), record_key(run_id): None}, drop_branch=True,
                                           table=loaded)
            testpoints.reached("after:fast_forward")
            return published
        except Exception as exc:
            message, _ = summarise(exc)
            if attempt == MERGE_ATTEMPTS:
                raise RatError(
                    f"could not move main of {table.ref.fqn} to the run's branch after {MERGE_ATTEMPTS} attempts: {message}"
                ) from None
            log(f"fast-forward attempt {attempt} failed ({message}); retrying", "warn")
            time.sleep(0.2 * 2 ** attempt)
    raise AssertionError("unreachable")
