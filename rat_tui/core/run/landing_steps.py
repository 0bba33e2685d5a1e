"""The landing side of a run's phases: "nothing new", widening after a failed read, archival and the
load history. Functions of the run (phases.Execution) so the phases read as the run's outline."""
from __future__ import annotations

import json
from typing import Any

from ..errors import RatError
from ..lake.spark_errors import is_cancellation
from ..landing.file_read import FileRead
from ..project.model import landing_format
from .build import build, materialise
from .landing_input import NothingNew
from .strategies import writes_once

# Each function takes the run (phases.Execution, which imports this module: hence Any).
Execution = Any


def build_result(ex: Execution, info: dict) -> None:
    """The result, or "nothing new" when every landing zone the pipeline read had nothing to read."""
    assert ex.ctx is not None and ex.pipeline is not None
    landing = ex.ctx.landing
    try:
        result = build(ex.ctx, ex.pipeline)
    except NothingNew as exc:
        if landing.read_new:  # another zone has new files: this one's columns are needed
            raise RatError(f"{exc.message} while {', '.join(landing.read_new)} has new files; put a sample file "
                           "into its _samples/ folder") from None
        result = None
    if landing.nothing_new and not landing.read_new:
        ex.nothing_new = info["message"] = "; ".join(f"nothing new in {z}" for z in landing.nothing_new)
        ex.log(ex.nothing_new)
        info["rows"] = 0
        return
    assert result is not None
    if writes_once(ex.pipeline.config, not ex.table_existed or ex.options.full_refresh):
        ex.result = result  # runs once, in the write
        return
    try:
        ex.result, ex.result_rows = materialise(result, ex.pipeline.source_relpath)
    except RatError as exc:
        if exc.__context__ is None or not widen(ex, exc.__context__):
            raise
        ex.result, ex.result_rows = materialise(build(ex.ctx, ex.pipeline), ex.pipeline.source_relpath)
    info["rows"] = ex.result_rows


def widen(ex: Execution, exc: BaseException) -> bool:
    """After a failed read: True when a full pass widened a landing column (the build reads again);
    RatError when the cause is a landing file's (a value that does not fit a pinned type, a malformed
    record), with its file and line; False when the failure is not about landing files."""
    assert ex.ctx is not None and ex.pipeline is not None
    if is_cancellation(exc):
        return False
    notes = ex.ctx.landing.widen(exc)
    for note in notes:
        ex.log(note, "warn")
    if notes:
        ex.record.landing = landing_result(ex)
        ex.state.update_run(ex.record.run_id, landing=ex.record.landing)
        record_notes(ex)
        return True
    explained = ex.ctx.landing.explain(exc)
    if explained:
        raise RatError(f"query failed: {explained}", ex.pipeline.source_relpath) from None
    return False


def undo_write(ex: Execution) -> None:
    """Before a second write after widening: a table this run created goes (it is empty), and a stage."""
    if ex.stage is not None:
        ex.stage.drop()
        ex.stage = None
    if not ex.table_existed:
        if ex.branch_made or (ex.state.get_run(ex.record.run_id) or ex.record).created_table:
            ex.table.drop()
        ex.state.update_run(ex.record.run_id, created_table=False, branch=None)
        ex.branch_made = False


def record_files_read(ex: Execution) -> None:
    """What the build phase read is what the run archives: landing_zone() in a quality test later must
    not widen it."""
    assert ex.ctx is not None
    ex.files_read = {zone: list(files) for zone, files in ex.ctx.files_read.items()}
    read = [{"path": ex.project.rel(f.path), "size": f.size, "mtime": f.mtime}
            for files in ex.files_read.values() for f in files]
    ex.record.inputs = dict(ex.ctx.inputs)  # provenance: the snapshot of each table the result was built from
    ex.record.landing = landing_result(ex)
    ex.state.update_run(ex.record.run_id, files_read=json.dumps(read), inputs=ex.record.inputs,
                        landing=ex.record.landing)
    record_notes(ex)


def record_notes(ex: Execution) -> None:
    """The run's notes as they stand: what reading its zones did, then what its write did to the columns."""
    assert ex.ctx is not None
    ex.record.notes = [*ex.ctx.landing.run_notes(), *ex.schema_notes]
    ex.state.update_run(ex.record.run_id, notes=ex.record.notes)


def landing_result(ex: Execution) -> dict:
    """What the run's result says of its landing files (only what happened)."""
    assert ex.ctx is not None
    landing = ex.ctx.landing
    found = {"note": ex.nothing_new, "skipped": landing.skipped_sentences(), "rejected_rows": landing.rejected_rows,
             "landing_notes": landing.notes}
    return {k: v for k, v in found.items() if v}


def type_change_remedy(ex: Execution, column: str, old: str, new: str) -> str | None:
    """The way out of a column's type change caused by landing files (None: the query's): the files that
    read it so, and the zone's `schema:` that pins the type of CSV files (JSON and Parquet carry their
    own). For a pipeline that archives its zones a full refresh is no way out: it reads only the files
    still in the zone."""
    assert ex.pipeline is not None
    if not ex.files_read:
        return None
    namespace, zone = next(iter(ex.files_read))
    files = [f.path for read in ex.files_read.values() for f in read]
    shown = ", ".join(p.name for p in files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    pin = (f"pin the table's type in rat.yaml (zones: {{{namespace}/{zone}: {{schema: {{{column}: {old}}}}}}}) "
           "and run again, or " if any(landing_format(p) == "csv" for p in files) else "")
    if ex.pipeline.config.archive_landing_zones:
        return (f"this run's files ({shown}) read it as {new}: {pin}fix the files. A --full-refresh reads only the "
                "files in the zone: move those loaded before back from _processed/ first, or it is refused")
    return (f"this run's files ({shown}) read it as {new}: {pin}fix the files, or run {ex.ref.fqn} with "
            "--full-refresh to rebuild the table from every file in the zone")


def record_loads(ex: Execution) -> None:
    """The files this run read go into the pipeline's load history, if it keeps one; they count once the
    run succeeds."""
    assert ex.ctx is not None
    if ex.ctx.landing.history is not None:
        ex.ctx.landing.history.record(ex.ref.fqn, ex.record.run_id, ex.ctx.landing.loaded(ex.files_read),
                                      ex.ctx.landing.columns_loaded(ex.files_read),
                                      ex.ctx.landing.dates_loaded(ex.files_read))


def archive(ex: Execution) -> None:
    """Move the zone files this run read (and only those) into `_processed/<run_id>/`, with the files it
    skipped as loaded before."""
    assert ex.ctx is not None
    skipped = {(ex.ctx.ref.namespace, zone): [FileRead.of(s.path) for s in files if s.path.exists()]
               for zone, files in ex.ctx.landing.skipped.items()}
    archived = []
    for key in dict.fromkeys([*ex.files_read, *skipped]):
        namespace, zone = key
        read = [*ex.files_read.get(key, []), *skipped.get(key, [])]
        files = [f.path for f in read if f.unchanged()]
        for changed in (f for f in read if f.path not in files):
            ex.log(f"{ex.project.rel(changed.path)} changed (or went) after this run read it; "
                   "not archived, the next run reads it", "warn")
        moved = ex.storage.landing_archive.archive(ex.project.zone_dir(namespace, zone), files, ex.record.run_id)
        archived += [f"{namespace}/landing/{zone}/{name}" for name in moved]
        ex.log(f"archived {len(moved)} file(s) of landing zone {zone} to _processed/{ex.record.run_id}/")
    ex.state.update_run(ex.record.run_id, archived_files=json.dumps(archived))


def unarchive(ex: Execution) -> None:
    zones = {*ex.files_read, *((ex.ref.namespace, z) for z in (ex.ctx.landing.skipped if ex.ctx else {}))}
    for namespace, zone in zones:
        restored = ex.storage.landing_archive.restore(ex.project.zone_dir(namespace, zone), ex.record.run_id)
        if restored:
            ex.log(f"put {len(restored)} file(s) back into landing zone {zone}", "warn")
