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
from .zone_read import FileGroup, ZoneReader, csv_frame

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

CORRUPT = "_rat_corrupt_record"
REJECTED_FOLDER = "_rejected"


def read_setting_aside(reader: ZoneReader, group: FileGroup, uris: list[str]) -> "DataFrame":
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    from .widening import widen

    assert group.schema is not None and group.dialect is not None
    # The rows loaded are those the rejects file lacks, whatever columns the pipeline reads (the run's
    # session is its own: this touches no other run)
    reader.spark.conf.set("spark.sql.csv.parser.columnPruning.enabled", "false")
    schema = StructType([*group.schema.fields, StructField(CORRUPT, StringType())])
    df = csv_frame(reader.spark, uris, group.dialect, schema, "PERMISSIVE", columnNameOfCorruptRecord=CORRUPT)
    # Every column goes along: Spark parses only the columns a query reads, so a row that lacks a column
    # nobody reads would not be corrupt (and a query of only the corrupt-record column is refused)
    probe = [F.col(CORRUPT), F.input_file_name().alias("file"), *(F.col(f"`{f.name}`") for f in group.schema.fields)]
    rejected = df.where(F.col(CORRUPT).isNotNull()).select(*probe).collect()
    if rejected and not group.full_pass and widen(reader):
        return read_setting_aside(reader, group, uris)
    if rejected:
        reader.rejected_rows += len(rejected)
        where = _write_rejected(reader, group, [(r["file"], r[CORRUPT]) for r in rejected])
        reader.note(f"{len(rejected)} row(s) of {group.names()} did not parse and were set aside"
                    + (f" in {where}" if where else ""))
    return df.where(F.col(CORRUPT).isNull()).drop(CORRUPT)


def _write_rejected(reader: ZoneReader, group: FileGroup, rows: list[tuple[str, str]]) -> str | None:
    if reader.run_id is None:
        return None
    from urllib.parse import unquote

    by_file: dict[str, list[str]] = {}
    for uri, record in rows:
        by_file.setdefault(unquote(uri.rsplit("/", 1)[-1]), []).append(record)
    folder = reader.zone_dir / REJECTED_FOLDER / reader.run_id
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "rejected.jsonl"
    temp = folder / ".rejected.jsonl.tmp"
    with temp.open("a", encoding="utf-8") as out:
        for path in group.files:
            records = by_file.get(path.name)
            if not records:
                continue
            lines = _lines(path, group.dialect.encoding, records)
            for record, line in zip(records, lines):
                out.write(json.dumps({"file": path.relative_to(reader.zone_dir).as_posix(), "line": line,
                                      "record": record}, ensure_ascii=False) + "\n")
    if target.exists():  # a second group of the same run: appended
        with target.open("a", encoding="utf-8") as out:
            out.write(temp.read_text(encoding="utf-8"))
        temp.unlink()
    else:
        os.replace(temp, target)
    return f"{REJECTED_FOLDER}/{reader.run_id}/rejected.jsonl"


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
