"""Which landing file a row came from, and where that file stands in the order the zone's files arrived.

Spark reads the files of one reader largest first, and a zone's readers (one per dialect) one after the
other, so the order rows leave a zone follows file size, dialect and name. A keyed pipeline keeps the last
row of each key; for that to be the row of the file that arrived last (a correction file named `a_fix.csv`
sent after `sales_5.csv`), each row carries its file's place in the arrival order: modification time, then
name, as the load history sees it. Both are read from the file Spark reports while it reads the row
(`input_file_name()`), which it no longer knows after a shuffle: rows of a join, an aggregate or an ORDER BY
get no place and keep the query's own order.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import Column

# A file's place, shifted past the part a twin's row came from: a twin of a large CSV is a folder of Parquet
# parts, numbered in the order of the CSV's splits, which Spark too reads largest first.
PART_BITS = 24


def file_name(twins: Sequence[Any] = ()) -> "Column":
    """The base name of the file Spark is reading the row from; for a typed twin's part, its CSV's name."""
    from pyspark.sql import functions as F

    # input_file_name(), not `_metadata`: Spark 3.5 keeps reading `_metadata` (a struct built per row, 5% of a
    # 5M-row load) even when no query reads the column; this one is dropped then. The path is %-encoded
    # (`my%20file.csv`); url_decode would read a literal '+' as a space.
    parts = F.split(F.input_file_name(), "/")
    name = F.url_decode(F.regexp_replace(F.element_at(parts, -1), r"\+", "%2B"))
    if not twins:
        return name
    by_folder = F.create_map(*(F.lit(x) for t in twins for x in (t.folder.name, t.source.name)))
    return F.coalesce(F.element_at(by_folder, F.element_at(parts, -2)), name)


def arrival_place(files: Sequence[tuple[Path, float]], twins: Sequence[Any] = ()) -> "Column":
    """Each row's file's place in the arrival order of `files` (path, modification time), the later the
    higher, then its twin part; -1 for a row Spark reads from no file of them (a table's, or after a shuffle).
    Files of one base name in two folders share the later one's place: their rows keep the query's order."""
    from pyspark.sql import functions as F

    ranks: dict[str, int] = {}
    for place, (path, _) in enumerate(sorted(files, key=lambda f: (f[1], f[0].name, str(f[0])))):
        ranks[path.name] = place
    if not ranks:
        return F.lit(-1).cast("long")
    by_name = F.create_map(*(F.lit(x) for name, place in ranks.items() for x in (name, place)))
    place = F.element_at(by_name, file_name(twins)).cast("long")
    # '0' first: ANSI mode refuses to cast the '' that a name without a part number gives
    part = F.concat(F.lit("0"), F.regexp_extract(F.element_at(F.split(F.input_file_name(), "/"), -1),
                                                 r"^part-(\d+)", 1)).cast("long")
    return F.coalesce(F.shiftleft(place, PART_BITS) + part, F.lit(-1).cast("long"))
