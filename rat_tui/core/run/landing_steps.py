"""The landing side of a run's phases: "nothing new", widening after a failed read, archival and the
load history. Each step takes what it reads and returns what it made; the run (phases.py) records it."""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import RatError
from ..lake.spark_errors import is_cancellation
from ..landing.checks import holds_only_a_header
from ..landing.file_read import FileRead
from ..landing.numbers import pin_advised
from ..notes import RunNote
from ..project.model import PipelineRef, Project, landing_format
from ..project.pipeline_source import LoadedPipeline
from .build import build, materialise
from .context import RunContext
from .landing_input import LandingInput, NothingNew
from .outcomes import BuildOutcome

if TYPE_CHECKING:
    from ..storage import Storage

FilesRead = dict[tuple[str, str], list[FileRead]]  # (namespace, zone) -> the files the build read
Log = Callable[..., None]  # (message, level="info")


def build_result(ctx: RunContext, pipeline: LoadedPipeline, runs_in_write: bool,
                 widen: Callable[[BaseException], bool]) -> BuildOutcome:
    """The result, or "nothing new" when every landing zone the pipeline read had nothing to read.
    `runs_in_write`: the strategy writes the result once, so it is not materialised here; `widen` is the
    run's answer to a failed read (True: a landing column was widened, build again)."""
    landing = ctx.landing
    try:
        result = build(ctx, pipeline)
    except NothingNew as exc:
        if landing.read_new:  # another zone has new files: this one's columns are needed
            raise RatError(f"{exc.message} while {', '.join(landing.read_new)} has new files; put a sample file "
                           "into its _samples/ folder") from None
        result = None
    if landing.nothing_new and not landing.read_new:
        return BuildOutcome(None, nothing_new="; ".join(f"nothing new in {z}" for z in landing.nothing_new))
    assert result is not None
    if runs_in_write:
        return BuildOutcome(result)
    try:
        return BuildOutcome(*materialise(result, pipeline.source_relpath, ctx.arrival()))
    except RatError as exc:
        if exc.__context__ is None or not widen(exc.__context__):
            raise
        return BuildOutcome(*materialise(build(ctx, pipeline), pipeline.source_relpath, ctx.arrival()))


def widen(ctx: RunContext, pipeline: LoadedPipeline, exc: BaseException, log: Log) -> bool:
    """After a failed read: True when a full pass widened a landing column (the build reads again);
    RatError when the cause is a landing file's (a value that does not fit a pinned type, a malformed
    record), with its file and line; False when the failure is not about landing files."""
    if is_cancellation(exc):
        return False
    notes = ctx.landing.widen(exc)
    for note in notes:
        log(note, "warn")
    if notes:
        return True
    explained = ctx.landing.explain(exc)
    if explained:
        raise RatError(f"query failed: {explained}", pipeline.source_relpath) from None
    return False


def files_read_json(project: Project, files_read: FilesRead) -> str:
    """The files the run read, as state.db keeps them."""
    return json.dumps([{"path": project.rel(f.path), "size": f.size, "mtime": f.mtime}
                       for files in files_read.values() for f in files])


def run_notes(landing: LandingInput, later_notes: list[RunNote]) -> list[RunNote]:
    """The run's notes as they stand: what reading its zones did, then what it read from tables and what its write
    did to the columns."""
    return [*landing.run_notes(), *later_notes]


def landing_result(landing: LandingInput, nothing_new: str | None) -> dict:
    """What the run's result says of its landing files (only what happened)."""
    found = {"note": nothing_new, "skipped": landing.skipped_sentences(), "rejected_rows": landing.rejected_rows,
             "landing_notes": landing.notes}
    return {k: v for k, v in found.items() if v}


def type_change_remedy(files_read: FilesRead, pipeline: LoadedPipeline, column: str, old: str,
                       new: str, notes: list[RunNote] = ()) -> str | None:
    """The way out of a column's type change caused by landing files (None: the query's): the files that
    read it so, a rebuild that gives the table the type every file fits, and the zone's `schema:` that pins
    that type for the CSV files to come (JSON and Parquet carry their own). Never a pin of the table's old
    type: a later file's `01234` pinned to int loaded as 1234, green, and its 2.5 could not be read at all.
    For a pipeline that archives its zones a full refresh reads only the files still in the zone. When one of the
    run's `notes` advises a type for the column (numbers past a double: a decimal), that pin comes first: the
    rebuild then reads every file with it (after a rebuild, the table's text column refused the pin's decimal)."""
    if not files_read or _cast_by_the_query(pipeline, column):
        return None
    namespace, zone = next(iter(files_read))
    files = [f.path for read in files_read.values() for f in read]
    shown = ", ".join(p.name for p in files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    advised = next((kind for note in notes if (kind := pin_advised(note.text, column))), None)
    if advised is not None:
        rebuild = (f"move the files loaded before back from _processed/ and run {pipeline.ref.fqn} with --full-refresh"
                   if pipeline.config.archive_landing_zones else
                   f"run {pipeline.ref.fqn} with --full-refresh to rebuild the table from every file in the zone with it")
        return (f"this run's files ({shown}) read it as {new}: pin it in rat.yaml (zones: {{{namespace}/{zone}: "
                f"{{schema: {{{column}: '{advised}'}}}}}}), as the run's note on {column} says, then {rebuild}")
    pin = (f"; after the rebuild, pin it in rat.yaml (zones: {{{namespace}/{zone}: {{schema: {{{column}: {new}}}}}}}) "
           f"so every file to come reads it as {new} (a pin alone leaves the table as it is)"
           if any(landing_format(p) == "csv" for p in files) else "")
    if pipeline.config.archive_landing_zones:
        return (f"this run's files ({shown}) read it as {new}: fix the files, or rebuild the table as {new}: move the "
                f"files loaded before back from _processed/ and run {pipeline.ref.fqn} with --full-refresh (it reads "
                f"only the files in the zone){pin}")
    return (f"this run's files ({shown}) read it as {new}: fix the files, or run {pipeline.ref.fqn} with "
            f"--full-refresh to rebuild the table from every file in the zone{pin}")


def _cast_by_the_query(pipeline: LoadedPipeline, column: str) -> bool:
    """Whether the query's outer SELECT states the column's type with a CAST: the change is the query's then,
    whatever the files hold (a remedy that blamed them sent a user to pin a zone's schema in vain)."""
    from ..lineage.cast_types import cast_types
    from ..lineage.compiled import compiled_sql

    if pipeline.kind != "sql":
        return False
    try:
        return column in cast_types(compiled_sql(pipeline))
    except RatError:
        return False


def header_only_files(project: Project, files_read: FilesRead) -> list[str] | None:
    """The files the run read, when every one is a CSV file of its header alone (project-relative paths); else
    None. Their columns read as text: a type they say nothing of."""
    files = [read.path for reads in files_read.values() for read in reads]
    if not files or not all(holds_only_a_header(path) for path in files):
        return None
    return [project.rel(path) for path in files]


def check_unchanged(project: Project, files_read: FilesRead) -> None:
    """After the write: a file that changed while Spark read it (a sender still writing it) gave the table
    some of its rows, and a green run would have said nothing. Refused before main moves."""
    for files in files_read.values():
        for read in files:
            if read.unchanged():
                continue
            now = f"{read.path.stat().st_size:,} bytes now" if read.path.exists() else "gone now"
            raise RatError(f"{project.rel(read.path)} changed while this run read it ({read.size:,} bytes then, "
                           f"{now}): its sender may still be writing it; main is unchanged: run again once the "
                           "file is complete")


def record_loads(landing: LandingInput, ref: PipelineRef, run_id: str, files_read: FilesRead) -> None:
    """The files this run read go into the pipeline's load history, if it keeps one; they count once the
    run succeeds."""
    if landing.history is not None:
        landing.history.record(ref.fqn, run_id, landing.loaded(files_read), landing.columns_loaded(files_read),
                               landing.dates_loaded(files_read), landing.settings_loaded(files_read))


def archive(landing: LandingInput, ref: PipelineRef, project: Project, storage: Storage, run_id: str,
            files_read: FilesRead, log: Log) -> list[str]:
    """Move the zone files this run read (and only those) into `_processed/<run_id>/`, with the files it
    skipped as loaded before; returns what it moved (`namespace/landing/zone/name`)."""
    skipped = {(ref.namespace, zone): [FileRead.of(s.path) for s in files if s.path.exists()]
               for zone, files in landing.skipped.items()}
    archived = []
    for key in dict.fromkeys([*files_read, *skipped]):
        namespace, zone = key
        read = [*files_read.get(key, []), *skipped.get(key, [])]
        files = [f.path for f in read if f.unchanged()]
        for changed in (f for f in read if f.path not in files):
            log(f"{project.rel(changed.path)} changed (or went) after this run read it; "
                "not archived, the next run reads it", "warn")
        moved = storage.landing_archive.archive(project.zone_dir(namespace, zone), files, run_id)
        archived += [f"{namespace}/landing/{zone}/{name}" for name in moved]
        log(f"archived {len(moved)} file(s) of landing zone {zone} to _processed/{run_id}/")
    return archived


def unarchive(landing: LandingInput | None, ref: PipelineRef, project: Project, storage: Storage, run_id: str,
              files_read: FilesRead, log: Log) -> None:
    """Put back what `archive` moved (the run did not reach main)."""
    zones = {*files_read, *((ref.namespace, z) for z in (landing.skipped if landing is not None else {}))}
    for namespace, zone in zones:
        restored = storage.landing_archive.restore(project.zone_dir(namespace, zone), run_id)
        if restored:
            log(f"put {len(restored)} file(s) back into landing zone {zone}", "warn")
