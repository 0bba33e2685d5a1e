"""Where a unit test's strategy step writes: a scratch Iceberg table outside the project.

MERGE needs a real table, so `this` is loaded into one, in a throwaway Hadoop catalog: one catalog
(one temp folder) per workbench, registered on each test's own session (catalogs are per session;
registering is a conf setting), with one namespace per test that is removed after it. The folder
goes when the workbench closes. Nothing of the project is touched: no table, branch or state row."""
from __future__ import annotations

import secrets
import shutil
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from ..lake.session import catalog_conf
from ..lake.table import IcebergTable
from ..project.model import PipelineRef

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

# The scratch table's writes go straight to main: a branch would cost a commit per test.
BRANCH = "main"


class ScratchCatalog:
    def __init__(self) -> None:
        self.name = f"rat_unit_{secrets.token_hex(4)}"
        self._folder: Path | None = None
        self._lock = threading.Lock()

    def folder(self) -> Path:
        """Made on first use (a workbench that runs no unit test makes none)."""
        with self._lock:
            if self._folder is None or not self._folder.is_dir():
                self._folder = Path(tempfile.mkdtemp(prefix="rat-unit-"))
            return self._folder

    def table(self, spark: "SparkSession", ref: PipelineRef, unit_id: str) -> ScratchTable:
        for key, value in catalog_conf(self.name, self.folder().as_uri(), "hadoop", {}).items():
            spark.conf.set(key, value)
        return ScratchTable(spark, PipelineRef(self.name, f"t_{unit_id}", ref.name), self.folder() / f"t_{unit_id}")

    def close(self) -> None:
        with self._lock:
            if self._folder is not None:
                shutil.rmtree(self._folder, ignore_errors=True)
                self._folder = None


class ScratchTable:
    """One test's table in the scratch catalog (its own namespace)."""

    def __init__(self, spark: "SparkSession", ref: PipelineRef, folder: Path) -> None:
        self.spark, self.folder = spark, folder
        self.table = IcebergTable(spark, ref)
        self.created = False

    def create(self, rows: "DataFrame", properties: dict[str, str], partition: str | None) -> None:
        """The table with `rows` (`this`, or none) as its schema and first snapshot: one commit. A Hadoop
        catalog's namespace is its folder: made here, not by a CREATE NAMESPACE statement each test."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self.table.create_with(rows, properties, partition, namespace_made=True)
        self.created = True

    def after(self) -> "DataFrame":
        return self.spark.table(self.table.ident)

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
