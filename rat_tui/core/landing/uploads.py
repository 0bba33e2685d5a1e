"""Uploading files into a landing zone: checked first, copied atomically, sampled for previews."""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .. import testpoints
from ..errors import RatError
from ..project.model import Project, active_landing_files, landing_format
from ..project.names import name_problem
from ..project.paths import inside
from ..text import one_line
from .archive import kept_copy_folder
from .checks import file_problem, one_format
from .dialect import Dialect, detect, open_text_bytes
from .encodings import bom_encoding, check_text
from .sample_sources import one_writer, record_samples, remove_orphan_samples
from .zone_settings import ZoneReadSettings

SAMPLE_ROWS = 1000
CHUNK = 1 << 20
Progress = Callable[[str, int, int], None]  # file name, bytes copied, total bytes


@dataclass(frozen=True)
class Expected:
    """Columns an uploaded file must have, and where they come from, for the refusal's sentence."""

    columns: list[str]
    what: str  # "the zone's expected column(s)"
    remedy: str = ""


def create_zone(project: Project, namespace: str, zone: str) -> Path:
    for kind, name in (("namespace", namespace), ("landing zone", zone)):
        problem = name_problem(kind, name)
        if problem:
            raise RatError(problem)
    if not (project.root / namespace).is_dir():
        raise RatError(f"namespace {namespace} does not exist (no folder {namespace}/ in the project)")
    zone_dir = project.zone_dir(namespace, zone)
    zone_dir.mkdir(parents=True, exist_ok=True)
    return zone_dir


def check_file(path: Path, expected: Expected | None = None, settings: ZoneReadSettings | None = None) -> str:
    """The file's format, or a RatError naming the file and what is wrong with it."""
    settings = settings or ZoneReadSettings()
    if not path.is_file():
        raise RatError(f"{path} is not a file")
    fmt = landing_format(path)
    if fmt is None:
        raise RatError(f"{path.name} has an unsupported extension; landing zones take .csv, .tsv, .txt, .tbl, "
                       ".parquet, .json, .jsonl (text also gzipped, .csv.gz)")
    if not os.access(path, os.R_OK):
        raise RatError(f"{path.name} cannot be read (permission denied)")
    problem = file_problem(path)
    if problem:
        raise RatError(f"{path.name} {problem}")
    if fmt == "parquet":
        import pyarrow.parquet as pq

        try:
            columns = pq.ParquetFile(path).schema_arrow.names
        except Exception as exc:
            raise RatError(f"{path.name} is not a readable Parquet file ({one_line(str(exc))})") from None
    elif fmt == "csv":
        dialect = detect(path, settings)  # the run's dialect (its encoding: the file's BOM, else the zone's)
        check_text(path, dialect.encoding, settings.label)
        columns = list(dialect.names)
    else:
        from .preview import read_head

        columns, _ = read_head(path, 5)
    if expected:
        missing = [c for c in expected.columns if c not in columns]
        if missing:
            raise RatError(f"{path.name} lacks {expected.what}: {', '.join(missing)} "
                           f"(it has {', '.join(columns)}){expected.remedy}")
    return fmt


def sample_path(zone_dir: Path, file: Path) -> Path:
    relative = file.relative_to(zone_dir)
    plain = relative.with_suffix("") if relative.name.lower().endswith(".gz") else relative  # a.csv.gz: a.csv
    stem = "__".join(plain.with_suffix("").parts)
    return zone_dir / "_samples" / f"{stem}_sample{plain.suffix.lower()}"


def write_samples(zone_dir: Path, files: list[Path], settings: ZoneReadSettings | None = None) -> list[Path]:
    """Each file's sample (see _write_sample), recorded as written from it (those written before a
    failure too, so a later delete of their file still removes them)."""
    written: list[tuple[Path, Path]] = []
    try:
        for file in files:
            written.append((_write_sample(zone_dir, file, settings), file))
    finally:
        record_samples(zone_dir, written)
    return [sample for sample, _ in written]


def _write_sample(zone_dir: Path, file: Path, settings: ZoneReadSettings | None) -> Path:
    """The first SAMPLE_ROWS rows in the same format, written atomically into `_samples/` (delimited
    text in its own dialect and encoding, so a sample reads with the zone's settings as its file does)."""
    target = sample_path(zone_dir, file)
    target.parent.mkdir(parents=True, exist_ok=True)
    with one_writer(target):
        _write_sample_file(file, target, settings)
    return target


def _write_sample_file(file: Path, target: Path, settings: ZoneReadSettings | None) -> None:
    import duckdb

    fmt = landing_format(file)
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")  # another process may sample it too
    if fmt == "csv":
        _write_text_sample(file, temp, detect(file, settings or ZoneReadSettings()))
    else:
        quoted = _literal(str(file))
        reader = {"parquet": f"read_parquet({quoted})", "json": f"read_json_auto({quoted})"}[fmt]
        options = {"parquet": "(FORMAT parquet)", "json": "(FORMAT json)"}[fmt]
        try:
            with duckdb.connect() as con:
                con.execute(f"COPY (SELECT * FROM {reader} LIMIT {SAMPLE_ROWS}) TO {_literal(str(temp))} {options}")
        except duckdb.Error as exc:
            temp.unlink(missing_ok=True)
            raise RatError(f"cannot sample {file.name}: {one_line(str(exc))}") from None
    os.replace(temp, target)


def _write_text_sample(file: Path, temp: Path, dialect: Dialect) -> None:
    """The header and SAMPLE_ROWS records, whole (a quoted value spanning lines stays one record)."""
    import csv
    from itertools import islice

    from .widening import records

    # A file whose BOM settled its encoding gets a sample with that BOM, so the sample too is read in it and not
    # in the zone's encoding (Python's "utf-16" writes its BOM; "utf-8-sig" writes UTF-8's).
    bom = bom_encoding(open_text_bytes(file, 4))
    encoding = ("utf-8-sig" if bom == "utf-8" else bom) if bom else dialect.encoding
    with temp.open("w", encoding=encoding, newline="") as out:
        writer = csv.writer(out, delimiter=dialect.delimiter, quotechar=dialect.quote or '"',
                            lineterminator="\n", escapechar=None if dialect.escape == dialect.quote else dialect.escape,
                            doublequote=dialect.escape == dialect.quote)
        writer.writerows(r for _, r in islice(records(file, dialect), SAMPLE_ROWS + int(dialect.header)))


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def refresh_samples(zone_dir: Path, active: list[Path], settings: ZoneReadSettings | None = None) -> list[Path]:
    """Write samples that are missing or older than their source file; the samples of deleted files go."""
    remove_orphan_samples(zone_dir)
    stale = [file for file in active
             if not (sample := sample_path(zone_dir, file)).exists() or sample.stat().st_mtime < file.stat().st_mtime]
    return write_samples(zone_dir, stale, settings)


@dataclass(frozen=True)
class UploadedFile:
    name: str
    bytes: int


def upload(zone_dir: Path, sources: list[Path], as_name: str | None = None, replace: bool = False,
           expected: Expected | None = None, progress: Progress | None = None,
           settings: ZoneReadSettings | None = None) -> list[UploadedFile]:
    """Copy files in; every file is checked before any is copied, so a bad one uploads nothing."""
    if as_name is not None and len(sources) != 1:
        raise RatError("--as renames one file; give exactly one path with it")
    plan = []
    label = f"{zone_dir.parent.parent.name}/landing/{zone_dir.name}"
    for source in sources:
        try:
            check_file(source, expected, settings)
        except RatError as exc:
            if len(sources) == 1:
                raise
            raise RatError(f"{exc.message}; nothing was uploaded (every file is checked first): leave it out to "
                           f"upload the {len(sources) - 1} other(s)") from None
        name = as_name or source.name
        if Path(name).suffix.lower() != source.suffix.lower():
            raise RatError(f"--as {name} must keep the extension {source.suffix}")
        target = inside(zone_dir, name, "--as", f"landing zone {label}") if as_name else zone_dir / name
        if target.exists() and not replace:
            raise RatError(f"{name} already exists in the zone; upload with --replace to replace it "
                           "(the old file is kept under _processed/)")
        plan.append((source, target))
    targets = [target for _, target in plan]
    one_format(label, [*(f for f in active_landing_files(zone_dir) if f not in targets), *targets])  # as a run reads
    done = []
    for source, target in plan:
        target.parent.mkdir(parents=True, exist_ok=True)  # `--as sub/name.csv`
        _copy(source, target, replace, progress)
        done.append(UploadedFile(target.name, target.stat().st_size))
    write_samples(zone_dir, [target for _, target in plan], settings)
    return done


def _copy(source: Path, target: Path, replace: bool, progress: Progress | None) -> None:
    """Copy under a hidden temporary name (never read by runs), then rename into place."""
    temp = target.with_name(f".{target.name}.uploading-{os.getpid()}")
    total = source.stat().st_size
    copied = 0
    try:
        with source.open("rb") as src, temp.open("wb") as dst:
            while chunk := src.read(CHUNK):
                dst.write(chunk)
                copied += len(chunk)
                if progress:
                    progress(target.name, copied, total)
                testpoints.reached("during:upload")
            dst.flush()
            os.fsync(dst.fileno())
        if target.exists() and replace:
            kept = kept_copy_folder(target.parent, "replaced") / target.name
            kept.parent.mkdir(parents=True, exist_ok=True)
            os.replace(target, kept)
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)
