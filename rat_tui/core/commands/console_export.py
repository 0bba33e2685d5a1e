"""How `export FILE SQL…` (console.py) writes the full result of one read-only statement in one file
(CSV, Parquet or JSON Lines, by the file's extension).

Spark computes the result and writes it as Parquet parts in parallel (a result too big for memory
never passes through Python); DuckDB then streams the parts, in order, into the one file asked
for. The row count comes from the parts' metadata, so nothing is computed twice.
"""
from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import RatError
from ..project.paths import inside

FORMATS = {".csv": "csv", ".parquet": "parquet", ".json": "json"}
Progress = Callable[[str, int, int], None]  # (phase, done, total)


@dataclass(frozen=True)
class Exported:
    """The file written (absolute), the rows in it, and its format (csv, parquet, json)."""

    path: str
    rows: int
    format: str

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "rows": self.rows, "format": self.format}


def export_target(root: Path, path: str) -> tuple[Path, str]:
    """Where the file goes and its format: a relative path stays inside the project folder; an
    absolute path the user typed is taken as it is."""
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise RatError(f"cannot export to '{path}': the file name must end in .csv, .parquet or .json")
    expanded = Path(path).expanduser()
    target = expanded if expanded.is_absolute() else inside(root, path, "export file", "the project folder")
    if target.is_dir():
        raise RatError(f"cannot export to '{path}': it is a folder")
    return target, fmt


def watch_tasks(spark, group: str, done: threading.Event, progress: Progress) -> None:
    """Tasks done of the export's Spark jobs, twice a second, until the write ends."""
    tracker = spark.sparkContext.statusTracker()
    while not done.wait(0.5):
        finished = total = 0
        for job_id in tracker.getJobIdsForGroup(group):
            job = tracker.getJobInfo(job_id)
            for stage_id in job.stageIds if job else ():
                stage = tracker.getStageInfo(stage_id)
                if stage is not None:
                    finished, total = finished + stage.numCompletedTasks, total + stage.numTasks
        if total:
            progress("computing", finished, total)


def merge_parts(parts: list[Path], target: Path, fmt: str) -> int:
    import duckdb
    import pyarrow.parquet as pq

    rows = sum(pq.ParquetFile(p).metadata.num_rows for p in parts)
    temp = target.with_name(f".{target.name}.rat-tmp-{secrets.token_hex(4)}")
    options = {"csv": "FORMAT csv, HEADER true", "parquet": "FORMAT parquet", "json": "FORMAT json"}[fmt]
    files = ", ".join("'" + str(p).replace("'", "''") + "'" for p in parts)
    con = duckdb.connect()
    try:
        con.execute("SET preserve_insertion_order = true")
        quoted = str(temp).replace("'", "''")
        con.execute(f"COPY (SELECT * FROM read_parquet([{files}])) TO '{quoted}' ({options})")
    finally:
        con.close()
    temp.replace(target)  # readers never see half a file
    return rows
