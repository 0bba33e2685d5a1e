"""Reading a landing zone's active files into Spark (never `_samples/`, `_processed/` or hidden files)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .identity import FileIdentity
from .zone_reader import ZoneReader
from .zone_settings import ZoneReadSettings

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession


@dataclass(frozen=True)
class FileRead:
    """A landing file as a run found it: archival moves it only if it is still this file (its inode
    and change time too: `cp -p` keeps size and modification time)."""

    path: Path
    size: int
    mtime: float
    identity: FileIdentity

    @classmethod
    def of(cls, path: Path) -> "FileRead":
        identity = FileIdentity.of(path)
        return cls(path, identity.size, identity.mtime_ns / 1e9, identity)

    def unchanged(self) -> bool:
        try:
            return FileIdentity.of(self.path) == self.identity
        except FileNotFoundError:
            return False


def read_zone(spark: "SparkSession", zone_dir: Path, fmt: str, files: list[Path],
              uri_of: Callable[[Path], str], settings: ZoneReadSettings | None = None) -> tuple["DataFrame", "Column"]:
    """A zone's active files, and a column naming each row's file (its base name, as in the zone).

    Local CSV files are read from their typed Parquet twins when every file of a dialect has one
    (twins.py), else with their detected dialect and a schema sampled from their first megabytes.
    """
    from .twins import twins_for

    reader = ZoneReader(spark, zone_dir, f"{zone_dir.parent.parent.name}/landing/{zone_dir.name}", files, uri_of,
                        settings or ZoneReadSettings(), lambda group, dialect: twins_for(zone_dir, group, dialect))
    return reader.read()
