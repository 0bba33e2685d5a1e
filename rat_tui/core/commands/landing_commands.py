"""Landing zones: samples, settings, new zones, uploads."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from ..errors import RatError, did_you_mean
from ..landing.dialect import detect, zone_dialects
from ..landing.preview import read_head
from ..landing import load_history
from ..landing.load_history import LoadHistory
from ..landing.twins import NotTyped, TwinsMade, files_without_twin, make_twins
from ..landing.uploads import Expected, create_zone, upload
from ..landing.zone_settings import ZoneReadSettings
from ..lake.session import SparkManager
from ..project.model import Project, active_landing_files, landing_format
from ..project.settings import ZoneSettings, zone_settings, zone_settings_problem
from ..project.settings_edit import set_values
from ..storage import Storage
from ..store.state import StateDB
from .browse_results import FileSample
from .landing_results import DetectedDialect, UploadResult, ZoneCreated


def zone_read_settings(project: Project, state: StateDB, namespace: str, zone: str) -> ZoneReadSettings:
    """How the zone's files are read: rat.yaml's settings and the date orders its earlier loads had."""
    return load_history.zone_read_settings(project, LoadHistory(state), namespace, zone)


class Landing:
    def __init__(self, project: Project, state: StateDB, storage: Storage, spark: SparkManager):
        self.project, self.state, self.storage, self.spark = project, state, storage, spark

    def sample(self, namespace: str, zone: str, file: str | None = None, limit: int = 20) -> FileSample:
        """First rows of a landing file with DuckDB (no JVM); without FILE, the zone's first sample."""
        base = self.existing_zone(namespace, zone)
        if file is None:
            candidates = sorted((base / "_samples").glob("*")) or active_landing_files(base)
            candidates = [c for c in candidates if landing_format(c) is not None]
            if not candidates:
                raise RatError(f"landing zone {namespace}/landing/{zone} has no files to sample")
            path = candidates[0]
        else:
            path = (base / file).resolve()
            if base.resolve() not in path.parents or not path.is_file():
                raise RatError(f"no file {file} in landing zone {namespace}/landing/{zone}")
        columns, rows = read_head(path, limit, zone_read_settings(self.project, self.state, namespace, zone))  # as a run reads it
        return FileSample(path.relative_to(base.resolve() if file else base).as_posix(), columns, rows)

    def zone_settings(self, namespace: str, zone: str) -> ZoneSettings:
        return zone_settings(self.project.settings, namespace, zone)

    def set_zone_settings(self, namespace: str, zone: str, **values) -> ZoneSettings:
        """Change a zone's settings in rat.yaml (comments kept) and use them from now on."""
        problem = zone_settings_problem(values)
        if problem:
            raise RatError(problem)
        self.existing_zone(namespace, zone)
        set_values(self.project.root / "rat.yaml", ["zones", f"{namespace}/{zone}"], values)
        self.project.reload_settings()
        return self.zone_settings(namespace, zone)

    def existing_zone(self, namespace: str, zone: str) -> Path:
        base = self.project.zone_dir(namespace, zone)
        if not base.is_dir():
            known = sorted(p.name for p in base.parent.glob("*") if p.is_dir()) if base.parent.is_dir() else []
            raise RatError(f"landing zone {namespace}/landing/{zone} does not exist{did_you_mean(zone, known)}")
        return base

    def detected_dialect(self, namespace: str, zone: str, file: str | None = None) -> DetectedDialect:
        """What pinning FILE's dialect writes under the zone's `csv:` in rat.yaml (`csv`), and the zone's
        other active text files that are detected otherwise (`differs`): pinned, they read FILE's way.
        Without FILE, the zone's first active text file whose dialect is detected (the one the zone panel offers)."""
        base = self.existing_zone(namespace, zone)
        settings = zone_read_settings(self.project, self.state, namespace, zone)
        file = file if file is not None else self._first_detected(base, settings, f"{namespace}/landing/{zone}")
        path = (base / file).resolve()
        if base.resolve() not in path.parents or not path.is_file() or landing_format(path) != "csv":
            raise RatError(f"no delimited text file {file} in landing zone {namespace}/landing/{zone}")
        # the zone's dialects: how its numbers are written is read over all its files
        dialects = {p.resolve(): d for p, d in zone_dialects(base, settings).items()}
        pinned = (dialects.get(path) or detect(path, settings)).pinned()
        differs = []
        for other in active_landing_files(base):
            if other.resolve() != path and landing_format(other) == "csv":
                dialect = dialects.get(other.resolve())
                if dialect is None or dialect.pinned() != pinned:  # None: it cannot be read as it is
                    differs.append(other.relative_to(base).as_posix())
        return DetectedDialect(settings.label, file, pinned, differs)

    @staticmethod
    def _first_detected(base: Path, settings: ZoneReadSettings, where: str) -> str:
        for path in active_landing_files(base):
            if landing_format(path) == "csv":
                try:
                    detect(path, settings)
                except RatError:
                    continue
                return path.relative_to(base).as_posix()
        raise RatError(f"{where} has no active delimited text file whose dialect was detected")

    def pin_dialect(self, namespace: str, zone: str, file: str | None = None) -> DetectedDialect:
        """Write the dialect detected for FILE into the zone's `csv:` settings in rat.yaml (comments kept):
        from then on every file of the zone is read that way instead of being detected."""
        detected = self.detected_dialect(namespace, zone, file)
        set_values(self.project.root / "rat.yaml", ["zones", detected.zone, "csv"], detected.csv)
        self.project.reload_settings()
        return dataclasses.replace(detected, written="rat.yaml")

    def create_zone(self, namespace: str, zone: str) -> ZoneCreated:
        return ZoneCreated(self.project.rel(create_zone(self.project, namespace, zone)))

    def upload(self, namespace: str, zone: str, paths: list[str], as_name: str | None = None,
               replace: bool = False, progress=None) -> UploadResult:
        zone_dir = create_zone(self.project, namespace, zone)
        settings = zone_read_settings(self.project, self.state, namespace, zone)
        files = upload(zone_dir, [Path(p).expanduser().resolve() for p in paths], as_name, replace,
                       self.expected_columns(zone_dir, settings), progress, settings)
        self.storage.zone_changed(namespace, zone)
        twins = self.make_typed_twins(namespace, zone)
        return UploadResult(files, twins.typed, twins.not_typed)

    def expected_columns(self, zone_dir: Path, settings: ZoneReadSettings) -> Expected | None:
        """The columns an upload must have: the zone's `schema:`, else, once every earlier file was archived,
        those of the files a run loaded last from it (the load history keeps them)."""
        if settings.expected:
            return Expected(list(settings.expected), "the zone's expected column(s)")
        if active_landing_files(zone_dir):
            return None  # files read together are joined by column name: one lacking a column reads NULL
        last = LoadHistory(self.state).last_columns(self.project.rel(zone_dir) + "/")
        if last is None:
            return None
        columns, run_id = last
        return Expected(columns, f"column(s) the files run {run_id} loaded last from the zone had",
                        f"; set the zone's schema: in rat.yaml to the columns it takes now ({settings.key('schema')})")

    def make_typed_twins(self, namespace: str, zone: str) -> TwinsMade:
        """Typed Parquet twins of the zone's CSV files that have none, so runs read Parquet (landing/twins.py)."""
        zone_dir = self.project.zone_dir(namespace, zone)
        settings = zone_read_settings(self.project, self.state, namespace, zone)
        files = files_without_twin(zone_dir, self.storage.landing_uri, settings)
        if not files:  # nothing to convert: no Spark session needed
            return TwinsMade([], [])
        try:
            with self.spark.using() as spark:
                return make_twins(spark, zone_dir, files, self.storage.landing_uri, settings)
        except RatError as exc:  # no session (it failed to start): the files are in, runs read them as CSV
            return TwinsMade([], [NotTyped(f.relative_to(zone_dir).as_posix(), exc.sentence()) for f in files])
