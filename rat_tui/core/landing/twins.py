"""Typed Parquet twins of landing CSV files: converted once when a file arrives, read by every run after.

Spark reads Parquet about four times faster than CSV, so a CSV that came in through `upload`
(or that the workbench saw arrive) is converted once into `_typed/<key>/` beside it. Spark
itself converts it, with the very reader and schema a run would use (the schema sampled by
Spark's own rules, FAILFAST, UTF-8), so a run that reads the twin gets the rows it would have
got from the CSV, value for value. A value that does not fit fails the conversion; the run then
reads the CSV and says so itself.

The key names the file's path and identity (size, modification time, inode, change time) and the
dialect it was read with: a replaced or edited file (even one `cp -p` left with the old size and
time) has a new key and its old twin is never read, nor is a twin made before the zone's settings
changed. Many files under SMALL_FILE_BYTES get no twin: Spark opens a small CSV about as fast as a small
Parquet file, and a conversion job costs more than it saves (an upload of 2,000 small files was
nearly all conversion). A twin appears whole (written under a hidden name, then
renamed) and its marker records what it was made from, which a run checks before reading it.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import RatError
from ..lake.spark_errors import summarise
from ..project.model import TYPED_TWIN_FOLDER, active_landing_files, landing_format
from .cleaning import cleaned
from .dialect import Dialect, detect, zone_dialects
from .identity import FileIdentity
from .spark_reader import FileGroup, csv_frame, typed_schema
from .schema import sampled_csv_schema
from .widening import explain
from .zone_settings import ZoneReadSettings

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from pyspark.sql.types import StructType

log = logging.getLogger(__name__)

MARKER = "_rat_twin.json"  # Spark skips `_` files when it lists the twin's parts
TWIN_KEY = "__rat_twin"
# Many small files get no twin: Spark opens a small CSV about as fast as a small Parquet file, and
# writing hundreds of tiny Parquet folders cost twice reading the CSV (500 files of 1 KB: 9.7 s against
# 4.5 s). A few small files are typed (a dropped-in export, the tests' files); many are read as CSV.
SMALL_FILE_BYTES = 1 << 20
SMALL_FILES_TYPED = 32


@dataclass(frozen=True)
class Twin:
    folder: Path
    source: Path
    schema_json: str

    def schema(self) -> "StructType":
        from pyspark.sql.types import StructType

        return StructType.fromJson(json.loads(self.schema_json))


def _identity(zone_dir: Path, file: Path, dialect: Dialect | None) -> dict:
    made_from = {"source": file.relative_to(zone_dir).as_posix(), **FileIdentity.of(file).as_dict()}
    if dialect is not None:
        made_from["dialect"] = json.dumps(dialect.read_key())
    return made_from


def twin_folder(zone_dir: Path, file: Path, dialect: Dialect | None = None) -> Path:
    """Hex only: the folder name reaches the file paths Spark reports (`input_file_name()`) without %-escaping.

    Without a dialect: the folder of whichever twin the file has (archival removes it with its file)."""
    if dialect is None:
        return next(_folders_of(zone_dir, file), zone_dir / TYPED_TWIN_FOLDER / "none")
    identity = _identity(zone_dir, file, dialect)
    key = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:24]
    return zone_dir / TYPED_TWIN_FOLDER / key


def _folders_of(zone_dir: Path, file: Path):
    """Twin folders made from this very file (any dialect)."""
    root = zone_dir / TYPED_TWIN_FOLDER
    if not root.is_dir():
        return
    wanted = {k: v for k, v in _identity(zone_dir, file, None).items()}
    for folder in root.iterdir():
        made_from = (_marker(folder) or {}).get("made_from") or {}
        if {k: made_from.get(k) for k in wanted} == wanted:
            yield folder


def _marker(folder: Path) -> dict | None:
    try:
        return json.loads((folder / MARKER).read_text())
    except (OSError, ValueError):
        return None


def find_twin(zone_dir: Path, file: Path, dialect: Dialect | None = None) -> Twin | None:
    """The file's twin, if one was made from exactly this file (same path and identity) read with
    `dialect` (None: read any way, as the zone panel asks)."""
    try:
        folder = twin_folder(zone_dir, file, dialect)
        marker = _marker(folder)
        made_from = _identity(zone_dir, file, dialect)
        if marker is None or {k: marker.get("made_from", {}).get(k) for k in made_from} != made_from:
            return None
    except FileNotFoundError:
        return None
    return Twin(folder, file, marker["schema"])


def twins_for(zone_dir: Path, files: list[Path], dialect: Dialect) -> list[Twin] | None:
    """Twins for all of `files`, or None: a run reads the twins only when every file has one and
    all share one schema (the schema a run samples from all its CSV files together)."""
    if not (zone_dir / TYPED_TWIN_FOLDER).is_dir():
        return None  # many small files get none: 2,000 lookups cost a run a second
    twins = []
    for file in files:
        twin = find_twin(zone_dir, file, dialect)
        if twin is None or twins and twin.schema_json != twins[0].schema_json:
            return None
        twins.append(twin)
    return twins or None


def make_group_twins(spark: "SparkSession", zone_dir: Path, files: list[Path], dialect: Dialect,
                     settings: ZoneReadSettings, uri_of: Callable[[Path], str]) -> list[Twin]:
    """Convert files of one dialect in one Spark job; RatError (Spark's sentence) when a value does not
    fit its sampled type. One job for 2,000 small files, not 2,000 jobs of mostly scheduling."""
    from pyspark.sql import functions as F

    made_from = {f: _identity(zone_dir, f, dialect) for f in files}
    folders = {f: twin_folder(zone_dir, f, dialect) for f in files}
    schema = typed_schema(sampled_csv_schema(spark, files, dialect), dialect, settings)
    temp = zone_dir / TYPED_TWIN_FOLDER / f".batch.{os.getpid()}-{threading.get_ident()}.converting"
    shutil.rmtree(temp, ignore_errors=True)
    # Each row's file, as the key of its twin: the path Spark reports, %-decoded ('+' kept), is the file's
    # (a file with a title or rows with no value is read from its copy without them: cleaning.py)
    read_from = {f: cleaned(f, dialect).copy or f for f in files}
    keys = F.create_map(*(F.lit(x) for f in files for x in (str(read_from[f]), folders[f].name)))
    path = F.url_decode(F.regexp_replace(F.input_file_name(), r"\+", "%2B"))
    key = F.element_at(keys, F.regexp_replace(path, "^file:(//)?", ""))
    try:
        df = csv_frame(spark, [uri_of(read_from[f]) for f in files], dialect, schema, "FAILFAST", settings.pinned)
        schema = df.schema  # the columns written: a delimiter ending every line adds none (reader.csv_frame)
        df.withColumn(TWIN_KEY, key).write.partitionBy(TWIN_KEY).mode("errorifexists").parquet("file:" + str(temp))
        twins = []
        for file in files:
            part = temp / f"{TWIN_KEY}={folders[file].name}"
            part.mkdir(exist_ok=True)  # a file with no rows has no partition: its twin is empty
            (part / MARKER).write_text(json.dumps({"made_from": made_from[file], "schema": schema.json()}))
            if _identity(zone_dir, file, dialect) != made_from[file]:  # changed while it was converted
                continue
            try:
                os.replace(part, folders[file])
            except OSError:  # another process made it meanwhile: theirs is the same file, typed the same way
                if find_twin(zone_dir, file, dialect) is None:
                    raise
            twins.append(Twin(folders[file], file, schema.json()))
        return twins
    except RatError:
        raise
    except Exception as exc:
        which = f"{files[0].name} was" if len(files) == 1 else f"{len(files)} files were"
        why = explain([FileGroup("csv", files, dialect, schema=schema)], settings.label, exc)  # file and line
        raise RatError(f"{which} not converted to Parquet: {why or summarise(exc)[0]}") from None
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def remove_stale_twins(zone_dir: Path) -> None:
    """Remove twins whose file is gone or changed, and conversions whose process was killed."""
    root = zone_dir / TYPED_TWIN_FOLDER
    if not root.is_dir():
        return
    active = set()
    for file in active_landing_files(zone_dir):
        try:
            active.add(json.dumps(_identity(zone_dir, file, None), sort_keys=True))
        except FileNotFoundError:
            continue
    for folder in [p for p in root.iterdir() if p.is_dir()]:
        if folder.name.startswith("."):
            if _abandoned(folder.name):
                shutil.rmtree(folder, ignore_errors=True)
            continue
        made_from = dict((_marker(folder) or {}).get("made_from") or {})
        made_from.pop("dialect", None)
        if json.dumps(made_from, sort_keys=True) not in active:
            shutil.rmtree(folder, ignore_errors=True)


def _abandoned(temp_name: str) -> bool:
    """A conversion's hidden folder whose process is gone (killed while converting)."""
    match = re.fullmatch(r"\.(?:[0-9a-f]+|batch)\.(\d+)-\d+\.converting", temp_name)
    if match is None:
        return False
    try:
        os.kill(int(match.group(1)), 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, another user's
        return False
    return False


def files_without_twin(zone_dir: Path, uri_of: Callable[[Path], str], settings: ZoneReadSettings) -> list[Path]:
    """The zone's active local CSV files that have no twin of their dialect (stale twins are removed
    first); a file whose dialect cannot be detected is one too (make_twins says why)."""
    remove_stale_twins(zone_dir)
    dialects = zone_dialects(zone_dir, settings)
    wanted = []
    for file in active_landing_files(zone_dir):
        if landing_format(file) != "csv" or not uri_of(file).startswith("file:"):
            continue
        try:
            if file not in dialects or find_twin(zone_dir, file, dialects[file]) is None:
                wanted.append(file)
        except FileNotFoundError:
            continue
    return wanted


@dataclass(frozen=True)
class NotTyped:
    file: str  # relative to its zone
    reason: str  # why runs read it as CSV, one sentence


@dataclass(frozen=True)
class TwinsMade:
    """The CSV files given typed Parquet twins (relative to their zone), and those left as CSV."""

    typed: list[str]
    not_typed: list[NotTyped]

    def as_dict(self) -> dict[str, Any]:
        return {"typed": self.typed, "not_typed": [{"file": n.file, "reason": n.reason} for n in self.not_typed]}


def make_twins(spark: "SparkSession", zone_dir: Path, files: list[Path], uri_of: Callable[[Path], str],
               settings: ZoneReadSettings) -> TwinsMade:
    """Convert the files, one Spark job per dialect; what was made and what could not be (a run then
    reads that CSV itself, and says why if it cannot)."""
    groups: dict[tuple, tuple[Dialect, list[Path]]] = {}
    not_typed = []

    def refuse(file: Path, exc: Exception) -> None:
        log.info("no typed twin for %s: %s", file, exc)
        not_typed.append(NotTyped(file.relative_to(zone_dir).as_posix(),
                                  exc.sentence() if isinstance(exc, RatError) else str(exc)))

    small = [f for f in files if f.exists() and f.stat().st_size < SMALL_FILE_BYTES]
    if len(small) > SMALL_FILES_TYPED:
        for file in small:
            not_typed.append(NotTyped(file.relative_to(zone_dir).as_posix(),
                                      f"one of {len(small)} small files, which runs read as CSV as fast as Parquet"))
        skipped = set(small)
        files = [f for f in files if f not in skipped]
    dialects = zone_dialects(zone_dir, settings)
    for file in files:
        try:
            dialect = dialects.get(file) or detect(file, settings)  # detect: the sentence why it is not
        except (RatError, FileNotFoundError) as exc:
            refuse(file, exc)
            continue
        groups.setdefault(dialect.read_key(), (dialect, []))[1].append(file)
    typed: set[Path] = set()
    for dialect, members in groups.values():
        try:
            typed.update(t.source for t in make_group_twins(spark, zone_dir, members, dialect, settings, uri_of))
        except (RatError, FileNotFoundError) as exc:
            for file in members:
                refuse(file, exc)
    return TwinsMade([f.relative_to(zone_dir).as_posix() for f in files if f in typed], not_typed)
