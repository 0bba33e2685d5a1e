"""What a run or a preview finds out about the table before and after it builds: a watermark that
left nothing to do, a unique key the table was not built with. Shared by runs and previews, so both
say the same sentence."""
from __future__ import annotations

from ..errors import RatError
from ..lake.table import IcebergTable
from ..project.pipeline_config import PipelineConfig
from .context import RunContext
from .strategies import UNIQUE_KEY_PROPERTY


def watermark_note(ctx: RunContext) -> str | None:
    """Why an incremental result is empty, when the watermark is the reason (and the way out)."""
    column = ctx.config.watermark_column
    if not column or not ctx.is_incremental():
        return None
    return (f"the watermark ({column} after {ctx.watermark_value()}) filtered every row; "
            f"run {ctx.ref.fqn} with full refresh to rebuild it")


def unique_key_changed(table: IcebergTable, config: PipelineConfig, full_refresh: bool, relpath: str) -> bool:
    """Whether a full refresh changes the table's unique key (any other run with a new key fails)."""
    rows = table.spark.sql(f"SHOW TBLPROPERTIES {table.ident}").collect()
    stored = {row.key: row.value for row in rows}.get(UNIQUE_KEY_PROPERTY)
    wanted = ",".join(config.unique_key)
    if stored is None or stored == wanted:
        return False
    if not full_refresh:
        raise RatError(
            f"unique_key changed from {stored or '(none)'} to {wanted or '(none)'}; "
            f"run {table.ref.fqn} with --full-refresh to rebuild the table", relpath)
    return True
