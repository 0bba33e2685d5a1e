"""`bad_rows: quarantine`: rows that do not parse go to `_rejected/<run_id>/`, the rest load.

Spark's PERMISSIVE mode with a corrupt-record column gives the raw line of every row that does
not parse (a ragged row, a value its column's type cannot hold). Before any row is set aside,
the types get the full pass a FAILFAST read would get (widening.py): a row a full pass would
read is loaded, never rejected. Rejected rows are written as JSON Lines (file, line, record)
when the zone is read for a run; the run reports `rejected_rows`.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from .dialect import text_lines
from .spark_reader import FileGroup, csv_frame

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

CORRUPT = "_rat_corrupt_record"
REJECTED_FOLDER = "_rejected"


def read_setting_aside(spark: "SparkSession", group: FileGroup, uris: list[str]) -> tuple["DataFrame", list]:
    """The group's rows that parse, and the (file URI, raw record) of those that do not."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    assert group.schema is not None and group.dialect is not None
    # The rows loaded are those the rejects file lacks, whatever columns the pipeline reads (the run's
    # session is its own: this touches no other run)
    spark.conf.set("spark.sql.csv.parser.columnPruning.enabled", "false")
    schema = StructType([*group.schema.fields, StructField(CORRUPT, StringType())])
    df = csv_frame(spark, uris, group.dialect, schema, "PERMISSIVE", columnNameOfCorruptRecord=CORRUPT)
    # Every column goes along: Spark parses only the columns a query reads, so a row that lacks a column
    # nobody reads would not be corrupt (and a query of only the corrupt-record column is refused)
    probe = [F.col(CORRUPT), F.input_file_name().alias("file"), *(F.col(f"`{f.name}`") for f in group.schema.fields)]
    rejected = [(r["file"], r[CORRUPT]) for r in df.where(F.col(CORRUPT).isNotNull()).select(*probe).collect()]
    return df.where(F.col(CORRUPT).isNull()).drop(CORRUPT), rejected


def write_rejected(zone_dir: Path, run_id: str | None, group: FileGroup, rows: list[tuple[str, str]]) -> str | None:
    """`_rejected/<run_id>/rejected.jsonl`: file, line and record of each row set aside (a preview
    writes nothing)."""
    if run_id is None:
        return None
    from urllib.parse import unquote

    assert group.dialect is not None
    by_file: dict[str, list[str]] = {}
    for uri, record in rows:
        by_file.setdefault(unquote(uri.rsplit("/", 1)[-1]), []).append(record)
    folder = zone_dir / REJECTED_FOLDER / run_id
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "rejected.jsonl"
    temp = folder / ".rejected.jsonl.tmp"
    with temp.open("w", encoding="utf-8") as out:
        for path in group.files:
            records = by_file.get(path.name)
            if not records:
                continue
            lines = _lines(path, group.dialect.encoding, records)
            for record, line in zip(records, lines):
                out.write(json.dumps({"file": path.relative_to(zone_dir).as_posix(), "line": line,
                                      "record": record}, ensure_ascii=False) + "\n")
    if target.exists():  # a second group of the same run: appended
        with target.open("a", encoding="utf-8") as out:
            out.write(temp.read_text(encoding="utf-8"))
        temp.unlink()
    else:
        os.replace(temp, target)
    return f"{REJECTED_FOLDER}/{run_id}/rejected.jsonl"


def _lines(path: Path, encoding: str, records: list[str]) -> list[int | None]:
    """The line of each rejected record (its first line), in the order Spark gave them (file order)."""
    wanted: dict[str, list[int]] = {}
    for index, record in enumerate(records):
        wanted.setdefault(record.split("\n", 1)[0].rstrip("\r"), []).append(index)
    found: list[int | None] = [None] * len(records)
    for number, line in enumerate(text_lines(path, encoding), start=1):
        waiting = wanted.get(line.rstrip("\r\n"))
        if waiting:
            found[waiting.pop(0)] = number
    return found
