"""Reading a landing zone's active files into Spark (never `_samples/`, `_processed/` or hidden files)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import RatError, did_you_mean
from ..project.model import LANDING_EXTENSIONS, active_landing_files
from .checks import file_problem
from .reader import read_files
from .schema import sampled_csv_schema
from .twins import twins_for

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession


@dataclass(frozen=True)
class FileRead:
    """A landing file as a run found it: archival moves it only if it is still this file."""

    path: Path
    size: int
    mtime: float

    @classmethod
    def of(cls, path: Path) -> "FileRead":
        stat = path.stat()
        return cls(path, stat.st_size, stat.st_mtime)

    def unchanged(self) -> bool:
        try:
            return FileRead.of(self.path) == self
        except FileNotFoundError:
            return False


def zone_files(zone_dir: Path, label: str) -> tuple[str, list[Path]]:
    """The zone's format and active files; a missing, empty or mixed zone is a clear error."""
    if not zone_dir.is_dir():
        siblings = [p.name for p in zone_dir.parent.iterdir() if p.is_dir()] if zone_dir.parent.is_dir() else []
        raise RatError(f"landing zone {label} does not exist{did_you_mean(zone_dir.name, siblings)}")
    files = active_landing_files(zone_dir)
    if not files:
        raise RatError(f"landing zone {label} has no active files (.csv, .parquet, .json) to read")
    for file in files:  # the checks upload makes, for files dropped into the folder
        problem = file_problem(file)
        if problem:
            raise RatError(f"landing file {label}/{file.relative_to(zone_dir).as_posix()} {problem}")
    formats = sorted({LANDING_EXTENSIONS[f.suffix.lower()] for f in files})
    if len(formats) > 1:
        raise RatError(f"landing zone {label} mixes file formats ({', '.join(formats)}); keep one format per zone")
    return formats[0], files


def read_zone(spark: "SparkSession", zone_dir: Path, fmt: str, files: list[Path],
              uri_of: Callable[[Path], str]) -> tuple["DataFrame", "Column"]:
    """A zone's active files, and a column naming each row's file (its base name, as in the zone).

    Local CSV files are read from their typed Parquet twins when every file has one (twins.py),
    else with a schema Spark samples from their first megabytes; S3 objects in direct mode are
    read as they are, Spark inferring.
    """
    from pyspark.sql import functions as F

    uris = [uri_of(f) for f in files]
    local = fmt == "csv" and all(uri.startswith("file:") for uri in uris)
    twins = twins_for(zone_dir, files) if local else None
    # input_file_name(), not `_metadata`: Spark 3.5 keeps reading `_metadata` (a struct built per
    # row, 5% of a 5M-row load) even when no query reads the column; this one is dropped then.
    # The path is %-encoded (`my%20file.csv`); url_decode would read a literal '+' as a space.
    path_parts = F.split(F.input_file_name(), "/")
    if twins:
        df = spark.read.schema(twins[0].schema()).parquet(*(uri_of(t.folder) for t in twins))
        by_folder = F.create_map(*(F.lit(x) for t in twins for x in (t.folder.name, t.source.name)))
        return df, F.element_at(by_folder, F.element_at(path_parts, -2))
    df = read_files(spark, fmt, uris, sampled_csv_schema(spark, files) if local else None)
    return df, F.url_decode(F.regexp_replace(F.element_at(path_parts, -1), r"\+", "%2B"))
