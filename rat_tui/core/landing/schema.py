"""The schema of a zone's CSV files, inferred by Spark from a bounded sample instead of a full pass.

Spark's `inferSchema` reads every byte once just to decide the types, then the run reads them
again: on a 232 MB file that first pass was half the load. Here Spark infers from the first
megabytes of each file (its own rules, so a file within the sample gets exactly the types a
full pass would give); the run then reads with that schema in FAILFAST mode, so a later value
that does not fit fails the run with Spark's sentence, never a silent NULL. Schemas are cached
by the files' name, size and modification time.
"""
from __future__ import annotations

import json
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from pyspark.sql.types import StructType

SAMPLE_BYTES_PER_FILE = 4 << 20
SAMPLE_BYTES_TOTAL = 16 << 20
_CACHE_SIZE = 256
_cache: OrderedDict[tuple, str] = OrderedDict()
_lock = threading.Lock()


def _head_lines(path: Path, limit: int) -> list[str]:
    """Whole lines of the file's first `limit` bytes (a line cut by the limit is left out)."""
    with path.open("rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        data = data[:limit]
        data = data[: data.rfind(b"\n") + 1]
    return data.decode("utf-8", errors="replace").splitlines()


def sampled_csv_schema(spark: "SparkSession", files: list[Path]) -> "StructType":
    from pyspark.sql.types import StructType

    key = tuple((str(f), f.stat().st_size, f.stat().st_mtime_ns) for f in files)
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return StructType.fromJson(json.loads(_cache[key]))
    per_file = max(SAMPLE_BYTES_TOTAL // max(len(files), 1), 64 << 10)
    lines: list[str] = []
    for index, path in enumerate(files):
        head = _head_lines(path, min(per_file, SAMPLE_BYTES_PER_FILE))
        lines += head if index == 0 else head[1:]  # one header line: the others would read as data
    sample = spark.sparkContext.parallelize(lines, 1)
    # PERMISSIVE here: the sample only decides types; the real read is FAILFAST
    schema = spark.read.options(header=True, inferSchema=True, mode="PERMISSIVE").csv(sample).schema
    with _lock:
        _cache[key] = schema.json()
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return schema
