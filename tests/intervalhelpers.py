"""A daily partitioned pipeline over generated rows, for the interval tests of the script face and the TUI."""
from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

from tests.lakehelpers import Scratch

DAILY = """
SELECT id, order_date, {amount} AS amount, '{{{{ interval_start }}}}' AS built_for
FROM {{{{ ref('bronze.src') }}}}
WHERE order_date >= '{{{{ interval_start }}}}' AND order_date < '{{{{ interval_end }}}}'
"""
NO_NEGATIVES = {"no_negative_amounts": "SELECT * FROM {{ this }} WHERE amount < 0"}


def last_three_days(scratch: Scratch, lookback: int = 0) -> tuple[date, str]:
    """A daily pipeline starting three days ago (three whole days up to now), over 10 rows a day from then
    to today; its start and name."""
    start = datetime.now(timezone.utc).date() - timedelta(days=3)
    scratch.pipeline("bronze", "src", f"""
        SELECT id, DATE_ADD(DATE '{start}', CAST(id % 4 AS INT)) AS order_date, CAST(id AS DOUBLE) AS amount
        FROM range(40)""")
    assert scratch.run(f"{scratch.ns}.bronze.src")["status"] == "success"
    return start, scratch.pipeline("silver", "daily", DAILY.format(amount="amount"), tests=NO_NEGATIVES, config=(
        f"partitions: {{column: order_date, grain: day, start: {start}, lookback: {lookback}}}\n"))
