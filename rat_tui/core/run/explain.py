"""What a run or a preview finds out about the table before and after it builds: a watermark that
left nothing to do, a unique key the table was not built with. Shared by runs and previews, so both
say the same sentence."""
from __future__ import annotations

from collections.abc import Callable

from ..errors import RatError
from ..project.pipeline_config import PipelineConfig
from .context import RunContext
from .names import name_key


def watermark_note(ctx: RunContext) -> str | None:
    """Why an incremental result is empty, when the watermark is the reason (and the way out)."""
    column = ctx.config.watermark_column
    if not column or not ctx.is_incremental():
        return None
    return (f"the watermark ({column} after {ctx.watermark_value()}) filtered every row; "
            f"run {ctx.ref.fqn} with full refresh to rebuild it")


def why_no_rows(ctx: RunContext, rows_written: int, log: Callable[[str, str], None]) -> list[str]:
    """When an incremental run wrote nothing and the watermark is why, say so (and the way out)."""
    note = None if rows_written else watermark_note(ctx)
    if note:
        log(note, "warn")
    return [note] if note else []


def unique_key_changed(fqn: str, stored: str | None, config: PipelineConfig, full_refresh: bool, relpath: str,
                       sensitive: bool) -> bool:
    """Whether a full refresh changes the table's unique key, `stored` (the table's
    UNIQUE_KEY_PROPERTY); any other run with a new key fails. Names compare as Spark resolves them
    (`sensitive`: spark.sql.caseSensitive): `ID` for `id` is the same key, so no change."""
    wanted = ",".join(config.unique_key)
    key = name_key(sensitive)
    if stored is None or key(stored) == key(wanted):
        return False
    if not full_refresh:
        raise RatError(
            f"unique_key changed from {stored or '(none)'} to {wanted or '(none)'}; "
            f"run {fqn} with --full-refresh to rebuild the table", relpath)
    return True
