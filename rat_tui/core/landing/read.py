"""Reading a landing zone's active files into Spark (never `_samples/`, `_processed/` or hidden files)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import RatError, did_you_mean
from ..project.model import LANDING_EXTENSIONS, active_landing_files
from .checks import file_problem

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType


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


def read_files(spark: "SparkSession", fmt: str, paths: list[str], schema: "StructType | None" = None) -> "DataFrame":
    """Read landing files given as URIs (local `file:` copies, or `s3a:` objects in direct mode).

    CSV with a known `schema` (landing/schema.py samples it) skips Spark's inference pass.
    """
    reader = spark.read
    if fmt == "csv":
        # FAILFAST: a ragged row, a broken quote or a value that does not fit is an error, not a silent NULL.
        reader = reader.options(header=True, mode="FAILFAST", encoding="UTF-8")
        return (reader.schema(schema) if schema is not None else reader.option("inferSchema", True)).csv(paths)
    if fmt == "json":
        return reader.options(mode="FAILFAST").json(paths)
    return reader.parquet(*paths)
