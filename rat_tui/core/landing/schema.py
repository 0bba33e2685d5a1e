"""The schema of a zone's CSV files, inferred by Spark from a bounded sample instead of a full pass.

Spark's `inferSchema` reads every byte once just to decide the types, then the run reads them
again: on a 232 MB file that first pass was half the load. Here Spark infers from the first
megabytes of each file (its own rules, so a file within the sample gets exactly the types a
full pass would give); the run then reads with that schema in FAILFAST mode. A later value that
does not fit makes the run infer over the whole files once (`full_csv_schema`) and read again
(widening.py). The sample is the files' text decoded (gzip, any encoding) and written as UTF-8,
read with the files' dialect. Schemas are cached by the files' identities and dialect.
"""
from __future__ import annotations

import json
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

from .dialect import Dialect, body_text
from .identity import FileIdentity
from .spark_reader import list_locally

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from pyspark.sql.types import StructType

SAMPLE_BYTES_PER_FILE = 4 << 20
SAMPLE_BYTES_TOTAL = 16 << 20
SAMPLE_BYTES_MIN = 64 << 10
# A zone of hourly exports: 2,000 files of 1 KB sampled whole cost Spark an inference job over all their
# rows (3-12 s, as much as the load); files spread over the zone decide the types as well (a later value
# that does not fit is widened, as past any sample)
SAMPLE_FILES_MAX = 64
_CACHE_SIZE = 256
_cache: OrderedDict[tuple, str] = OrderedDict()
_lock = threading.Lock()


def _reader_options(dialect: Dialect) -> dict[str, str]:
    return {**dialect.spark_options(), "mode": "PERMISSIVE", "inferSchema": "true"}


def sampled_csv_schema(spark: "SparkSession", files: list[Path], dialect: Dialect | None = None) -> "StructType":
    from pyspark.sql.types import StructType

    dialect = dialect or Dialect()
    key = (tuple((str(f), FileIdentity.of(f)) for f in files), dialect.read_key())
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return StructType.fromJson(json.loads(_cache[key]))
    sampled = spread(files, SAMPLE_FILES_MAX)
    per_file = max(SAMPLE_BYTES_TOTAL // max(len(sampled), 1), SAMPLE_BYTES_MIN)
    # The sample goes to Spark as a file: handing it over as an RDD of Python strings started
    # Python workers and cost twice as long (1.8 s against 1.0 s for 4 MB, on a busy machine).
    with tempfile.NamedTemporaryFile(prefix="rat-sample-", suffix=".csv", mode="w", encoding="utf-8",
                                     newline="") as sample:
        for index, path in enumerate(sampled):
            head = body_text(path, dialect, "", min(per_file, SAMPLE_BYTES_PER_FILE))
            if index and dialect.header:  # one header line: the others would read as data
                head = head.partition("\n")[2]
            if head and not head.endswith("\n"):
                head += "\n"
            sample.write(head)
        sample.flush()
        # PERMISSIVE here: the sample only decides types; the real read is FAILFAST
        options = {**_reader_options(dialect), "encoding": "UTF-8"}
        schema = spark.read.options(**options).csv("file:" + sample.name).schema
    with _lock:
        _cache[key] = schema.json()
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return schema


def spread(files: list[Path], most: int) -> list[Path]:
    """At most `most` of the files, evenly spread from the first to the last (all when they are fewer)."""
    if len(files) <= most:
        return files
    step = (len(files) - 1) / (most - 1)
    return [files[round(i * step)] for i in range(most)]


def full_csv_schema(spark: "SparkSession", uris: list[str], dialect: Dialect) -> "StructType":
    """Spark's inference over every byte of the files: what a read without a sample would give."""
    list_locally(spark, uris)
    return spark.read.options(**_reader_options(dialect)).csv(uris).schema
