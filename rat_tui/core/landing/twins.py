"""Typed Parquet twins of landing CSV files: converted once when a file arrives, read by every run after.

Spark reads Parquet about four times faster than CSV, so a CSV that came in through `upload`
(or that the workbench saw arrive) is converted once into `_typed/<key>/` beside it. Spark
itself converts it, with the very reader and schema a run would use (the schema sampled by
Spark's own rules, FAILFAST, UTF-8), so a run that reads the twin gets the rows it would have
got from the CSV, value for value. A value that does not fit fails the conversion; the run then
reads the CSV and says so itself.

The key names the file's path, size and modification time: a replaced or edited file has a new
key and its old twin is never read. A twin appears whole (written under a hidden name, then
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
from typing import TYPE_CHECKING

from ..errors import RatError
from ..lake.spark_errors import summarise
from ..project.model import TYPED_TWIN_FOLDER, active_landing_files
from .reader import read_files
from .schema import sampled_csv_schema

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from pyspark.sql.types import StructType

log = logging.getLogger(__name__)

MARKER = "_rat_twin.json"  # Spark skips `_` files when it lists the twin's parts
CONVERSIONS_AT_ONCE = 4


@dataclass(frozen=True)
class Twin:
    folder: Path
    source: Path
    schema_json: str

    def schema(self) -> "StructType":
        from pyspark.sql.types import StructType

        return StructType.fromJson(json.loads(self.schema_json))


def _identity(zone_dir: Path, file: Path) -> dict:
    stat = file.stat()
    return {"source": file.relative_to(zone_dir).as_posix(), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def twin_folder(zone_dir: Path, file: Path) -> Path:
    """Hex only: the folder name reaches the file paths Spark reports (`input_file_name()`) without %-escaping."""
    identity = _identity(zone_dir, file)
    key = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:24]
    return zone_dir / TYPED_TWIN_FOLDER / key


def _marker(folder: Path) -> dict | None:
    try:
        return json.loads((folder / MARKER).read_text())
    except (OSError, ValueError):
        return None


def find_twin(zone_dir: Path, file: Path) -> Twin | None:
    """The file's twin, if one was made from exactly this file (same path, size and modification time)."""
    try:
        folder = twin_folder(zone_dir, file)
        marker = _marker(folder)
        if marker is None or marker.get("made_from") != _identity(zone_dir, file):
            return None
    except FileNotFoundError:
        return None
    return Twin(folder, file, marker["schema"])


def twins_for(zone_dir: Path, files: list[Path]) -> list[Twin] | None:
    """Twins for all of `files`, or None: a run reads the twins only when every file has one and
    all share one schema (the schema a run samples from all its CSV files together)."""
    twins = [find_twin(zone_dir, f) for f in files]
    if not twins or any(t is None for t in twins) or len({t.schema_json for t in twins}) > 1:
        return None
    return twins  # type: ignore[return-value]


def make_twin(spark: "SparkSession", zone_dir: Path, file: Path, uri: str) -> Twin:
    """Convert one CSV file; RatError (Spark's sentence) when a value does not fit its sampled type."""
    made_from = _identity(zone_dir, file)
    folder = twin_folder(zone_dir, file)
    schema = sampled_csv_schema(spark, [file])
    temp = folder.with_name(f".{folder.name}.{os.getpid()}-{threading.get_ident()}.converting")
    shutil.rmtree(temp, ignore_errors=True)
    try:
        read_files(spark, "csv", [uri], schema).write.mode("errorifexists").parquet("file:" + str(temp))
        (temp / MARKER).write_text(json.dumps({"made_from": made_from, "schema": schema.json()}))
        if _identity(zone_dir, file) != made_from:  # changed while it was converted
            raise RatError(f"{file.name} changed while it was converted")
        try:
            os.replace(temp, folder)
        except OSError:  # another process made it meanwhile: theirs is the same file, typed the same way
            if find_twin(zone_dir, file) is None:
                raise
    except RatError:
        raise
    except Exception as exc:
        raise RatError(f"{file.name} was not converted to Parquet: {summarise(exc)[0]}") from None
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    return Twin(folder, file, schema.json())


def remove_stale_twins(zone_dir: Path) -> None:
    """Remove twins whose file is gone or changed, and conversions whose process was killed."""
    root = zone_dir / TYPED_TWIN_FOLDER
    if not root.is_dir():
        return
    wanted = set()
    for file in active_landing_files(zone_dir):
        try:
            wanted.add(twin_folder(zone_dir, file).name)
        except FileNotFoundError:
            continue
    stale = [p for p in root.iterdir() if p.is_dir() and (
        _abandoned(p.name) if p.name.startswith(".") else p.name not in wanted)]
    for folder in stale:
        shutil.rmtree(folder, ignore_errors=True)


def _abandoned(temp_name: str) -> bool:
    """A conversion's hidden folder whose process is gone (killed while converting)."""
    match = re.fullmatch(r"\.[0-9a-f]+\.(\d+)-\d+\.converting", temp_name)
    if match is None:
        return False
    try:
        os.kill(int(match.group(1)), 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, another user's
        return False
    return False


def files_without_twin(zone_dir: Path, uri_of: Callable[[Path], str]) -> list[Path]:
    """The zone's active local CSV files that have no twin (stale twins are removed first)."""
    remove_stale_twins(zone_dir)
    return [f for f in active_landing_files(zone_dir) if f.suffix.lower() == ".csv"
            and uri_of(f).startswith("file:") and find_twin(zone_dir, f) is None]


def make_twins(spark: "SparkSession", zone_dir: Path, files: list[Path], uri_of: Callable[[Path], str]) -> dict:
    """Convert each file; what was made and what could not be (a run then reads that CSV itself).

    A few conversions run at once: for the small files of a zone, each Spark job is mostly
    scheduling, which overlaps well.
    """
    from concurrent.futures import ThreadPoolExecutor

    def convert(file: Path) -> dict | None:
        try:
            make_twin(spark, zone_dir, file, uri_of(file))
            return None
        except (RatError, FileNotFoundError) as exc:
            log.info("no typed twin for %s: %s", file, exc)
            return {"file": file.relative_to(zone_dir).as_posix(),
                    "reason": exc.sentence() if isinstance(exc, RatError) else str(exc)}

    with ThreadPoolExecutor(max_workers=CONVERSIONS_AT_ONCE, thread_name_prefix="typed-twin") as pool:
        outcomes = list(pool.map(convert, files))
    return {"typed": [f.relative_to(zone_dir).as_posix() for f, o in zip(files, outcomes) if o is None],
            "not_typed": [o for o in outcomes if o is not None]}
