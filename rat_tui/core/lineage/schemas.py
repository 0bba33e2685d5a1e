"""The columns of a pipeline's inputs, read without a JVM: a table's from its Iceberg metadata
(PyIceberg), a landing zone's from one of its files through DuckDB (a sample first, the files a run
reads otherwise), plus the `_source_file` column every landing view adds. Cached by file identity."""
from __future__ import annotations

import re
import threading
from pathlib import Path

from ..errors import RatError
from ..lake.metadata import current_metadata_file, load_table
from ..landing.preview import read_head
from ..landing.zone_settings import ZoneReadSettings
from ..project.model import PipelineRef, Project, active_landing_files, landing_format

# The column the run's landing view adds to every zone read (run/context.py names it too).
ZONE_FILE_COLUMN = "_source_file"
Columns = dict[str, str]  # column -> type, in table order
ZONE_FILES_READ = 16  # a zone's files whose columns lineage unites: its latest (each read once, then cached)
_DECIMAL = re.compile(r"decimal\((\d+),\s*(\d+)\)")


def decimal_of(iceberg_type: str) -> tuple[int, int] | None:
    """(precision, scale) of a decimal as `Columns` name its type (`decimal(10, 2)`), else None."""
    found = _DECIMAL.fullmatch(iceberg_type)
    return (int(found.group(1)), int(found.group(2))) if found else None


def _identity(path: Path) -> tuple[str, int, int] | None:
    """None for a file listed but gone (a dangling link, a file moved away since the listing)."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return str(path), stat.st_mtime_ns, stat.st_size


class SchemaReader:
    """Columns of tables and zones as they are on disk now; None when there are none to read yet."""

    def __init__(self, project: Project):
        self.project = project
        self._cache: dict[tuple, Columns | None] = {}
        self._lock = threading.Lock()

    def table(self, ref: PipelineRef) -> Columns | None:
        path = current_metadata_file(self.project.table_dir(ref))
        identity = _identity(path) if path is not None else None
        if identity is None:
            return None
        return self._cached(identity, lambda: self._iceberg_columns(ref))

    def _iceberg_columns(self, ref: PipelineRef) -> Columns | None:
        try:
            schema = load_table(self.project.table_dir(ref), ref.fqn).schema()
        except (RatError, OSError, ValueError):
            return None
        return {field.name: str(field.field_type) for field in schema.fields}

    def table_at(self, ref: PipelineRef, snapshot_id: int | None = None, branch: str | None = None) -> Columns:
        """The columns of the table's schema when that snapshot (or the branch's head) was written."""
        meta = load_table(self.project.table_dir(ref), ref.fqn).metadata
        if branch is not None:
            snapshot_id = meta.refs[branch].snapshot_id
        snapshot = meta.snapshot_by_id(snapshot_id) if snapshot_id is not None else None
        schema_id = snapshot.schema_id if snapshot is not None and snapshot.schema_id is not None \
            else meta.current_schema_id
        schema = next(s for s in meta.schemas if s.schema_id == schema_id)
        return {field.name: str(field.field_type) for field in schema.fields}

    def zone(self, namespace: str, zone: str) -> Columns | None:
        """The columns of the zone's files as a run unites them by name: a later file that renamed `user` to
        `username` adds a column (read from the newest ZONE_FILES_READ of its samples and files, oldest first)."""
        zone_dir = self.project.zone_dir(namespace, zone)
        samples = zone_dir / "_samples"
        files = [p for p in samples.iterdir() if landing_format(p)] if samples.is_dir() else []
        stamped = [(identity, path) for path in [*files, *active_landing_files(zone_dir)]
                   if (identity := _identity(path)) is not None]
        stamped = sorted(stamped, key=lambda found: (found[0][1], str(found[1])))[-ZONE_FILES_READ:]
        # Its own label, so what lineage sniffs (without the zone's settings and remembered date orders) never
        # becomes the dialect a run takes for a file with the same header (the header cache is per label).
        settings = ZoneReadSettings(label=f"lineage of {namespace}/{zone}")
        united: Columns = {}
        for identity, path in stamped:
            united |= {name: kind for name, kind in (self._cached(identity, lambda: self._file_columns(path, settings))
                                                     or {}).items() if name not in united}
        if not united:
            return None
        united[ZONE_FILE_COLUMN] = united.pop(ZONE_FILE_COLUMN)  # last, as the run's view adds it
        return united

    @staticmethod
    def _file_columns(path: Path, settings: ZoneReadSettings) -> Columns | None:
        try:
            columns, _ = read_head(path, 0, settings)
        except (RatError, OSError, ValueError):  # a file DuckDB cannot read offers no columns
            return None
        return {**{name: "" for name in columns}, ZONE_FILE_COLUMN: "string"}

    def _cached(self, key: tuple, read) -> Columns | None:
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        value = read()
        with self._lock:
            self._cache[key] = value
        return value
