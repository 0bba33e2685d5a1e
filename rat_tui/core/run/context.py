"""What a pipeline sees while it runs: ref(), landing_zone(), this, watermarks (SQL and Python alike)."""
from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from ..errors import RatError
from ..lake.metadata import load_table
from ..lake.spark_errors import summarise
from ..lake.table import IcebergTable, quote
from ..landing.load_history import LoadHistory
from ..landing.file_read import FileRead
from ..project.model import PipelineRef, Project
from ..project.partitions import Interval
from ..project.pipeline_config import MergeStrategy, PipelineConfig
from .landing_input import LandingInput

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

    from ..storage import Storage

SOURCE_FILE_COLUMN = "_source_file"
INCREMENTAL_STRATEGIES = (MergeStrategy.INCREMENTAL, MergeStrategy.DELETE_INSERT)


def run_timestamp(when: datetime) -> str:
    """`run_started_at` as pipelines see it: UTC with microseconds, so the scd2 validity of two
    runs within one second never ties (and a preview renders it exactly as a run would)."""
    return when.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")


@dataclass
class RunContext:
    spark: "SparkSession"
    project: Project
    ref: PipelineRef
    config: PipelineConfig
    run_id: str
    run_started_at: str  # ISO 8601 UTC
    table: IcebergTable
    table_exists: bool
    storage: Storage
    full_refresh: bool = False
    log: Callable[..., None] = lambda message, level="info": None
    ensure_catalog: Callable[[str], None] = lambda namespace: None
    history: LoadHistory | None = None  # the pipeline's load history (config.loads_files_once)
    memory: LoadHistory | None = None  # the zones' earlier date orders, for every pipeline and preview
    reload_files: bool = False  # read files the load history says were loaded already
    preview: bool = False
    interval: Interval | None = None  # of a partitioned pipeline: the interval being built (run/intervals.py)
    inputs: dict[str, int | None] = field(default_factory=dict)  # tables read: fqn -> main's snapshot then
    upstream_branches: dict[str, str] = field(default_factory=dict)  # fqn -> a held upstream run's branch, read instead of main
    # Whether `this` has rows, when the caller knows it (a unit test's `this:` rows); None: asked of the table
    # once, when a pipeline first asks is_incremental().
    has_rows: bool | None = None
    _views: list[str] = field(default_factory=list)
    _watermark: tuple[bool, str | None] | None = None
    _this: str | None = None  # what `this` reads instead of the table (see reading_this)
    _text_columns: frozenset[str] | None = None  # _text_in_table's answer, once asked
    landing: LandingInput = field(init=False)

    def __post_init__(self) -> None:
        self.landing = LandingInput(self.spark, self.project, self.ref.namespace, self.storage, self.ref.fqn,
                                    self.run_id, self.table_exists, self.history, self.memory, self.reload_files,
                                    self.preview, archives=self.config.archive_landing_zones,
                                    appends=self.config.merge_strategy == MergeStrategy.APPEND_ONLY,
                                    rebuild=self.full_refresh and self.config.merge_strategy != MergeStrategy.FULL_REFRESH,
                                    text_in_table=self._text_in_table)

    def _text_in_table(self) -> frozenset[str]:
        """The existing table's text columns, which a run reads as text (landing_input.py): asked of one load
        of the table, once a run, however many zones it reads. None for a run that replaces every row: a
        full_refresh pipeline kept `1,000.00` as text after its zone's settings said how to read it, and its
        note said it read 1000.00."""
        from pyspark.sql.types import StringType

        if self._text_columns is None:
            self._text_columns = frozenset()
            replaces = self.full_refresh or self.config.merge_strategy == MergeStrategy.FULL_REFRESH
            loaded = None if not self.table_exists or self.preview or replaces else self.table.loaded()
            # a table of no rows holds no type (a header-only first file made every column text)
            if loaded is not None and not self.table.holds_no_rows("main", loaded):
                self._text_columns = frozenset(f.name for f in self.table.spark_schema(loaded).fields
                                               if isinstance(f.dataType, StringType))
        return self._text_columns

    @property
    def files_read(self) -> dict[tuple[str, str], list[FileRead]]:
        return self.landing.files_read

    @property
    def this(self) -> str:
        """The pipeline's own table as its SQL names it (`{{ this }}`): what it reads of its earlier runs."""
        return self._this if self._this is not None else self.table.ident

    @contextlib.contextmanager
    def reading_this(self, ident: str) -> Iterator[None]:
        """For unit tests (unittests/execute.py), whose table's schema comes from a build: inside, `this` reads
        `ident` (a view of the test's rows); after, the table again, and a watermark read inside is forgotten."""
        self._this = ident
        try:
            yield
        finally:
            self._this, self._watermark = None, None

    @contextlib.contextmanager
    def building(self, interval: Interval) -> Iterator[None]:
        """Inside, the pipeline builds one interval (`{{ interval_start }}`, `{{ interval_end }}`: run/intervals.py);
        after, none: quality tests read the whole branch."""
        self.interval = interval
        try:
            yield
        finally:
            self.interval = None

    # -- shared by SQL and Python pipelines --------------------------------------
    def is_incremental(self) -> bool:
        """Incremental strategy, a table with rows (and, with a watermark column, a watermark):
        after a first run that wrote nothing, `watermark_value` would otherwise render as None."""
        if self.config.merge_strategy not in INCREMENTAL_STRATEGIES or not self.table_exists or self.full_refresh:
            return False
        if self.config.watermark_column:
            return self.watermark_value() is not None
        if self.has_rows is None:
            self.has_rows = bool(self.spark.sql(f"SELECT 1 FROM {self.this} LIMIT 1").collect())
        return self.has_rows

    def is_scd2(self) -> bool:
        return self.config.merge_strategy == MergeStrategy.SCD2

    def watermark_value(self) -> str | None:
        """MAX(watermark_column) on main as text, or None when the table has no rows yet."""
        if self._watermark is None:
            column = self.config.watermark_column
            if not column:
                raise RatError("watermark_value is used but the pipeline sets no watermark_column")
            try:
                row = self.spark.sql(
                    f"SELECT CAST(MAX({quote(column)}) AS STRING) AS w FROM {self.this}").collect()[0]
            except Exception as exc:
                raise RatError(f"cannot read watermark column '{column}' of {self.ref.fqn}: {exc}") from None
            self._watermark = (True, row.w)
        return self._watermark[1]

    def resolve_ref(self, name: str) -> PipelineRef:
        target = self.ref.resolve(name)
        if target is None:
            raise RatError(f"ref('{name}') must be 'layer.name' or 'namespace.layer.name'")
        if not self.project.pipeline_dir(target).is_dir():
            raise RatError(self.ref.unknown_ref(name, self.project.scan().pipelines()))
        if target == self.ref:  # validate reports the cycle; a run would read its own main
            raise RatError(f"ref('{name}') is this pipeline's own table; use {{{{ this }}}} to read it")
        self.ensure_catalog(target.namespace)
        if not IcebergTable(self.spark, target).exists():
            raise RatError(f"ref('{name}'): table {target.fqn} does not exist yet; run {target.fqn} first")
        self.inputs[target.fqn] = self._read_snapshot(target)
        return target

    def _read_snapshot(self, target: PipelineRef) -> int | None:
        """The snapshot of `target` this run reads (provenance), from its metadata file: no JVM round trip."""
        try:
            meta = load_table(self.project.table_dir(target), target.fqn).metadata
        except RatError:
            return None
        branch = self.upstream_branches.get(target.fqn)
        return meta.current_snapshot_id if branch is None else meta.refs[branch].snapshot_id

    def ref_ident(self, name: str) -> str:
        """The table ref() names; in a reviewed selection, its run's branch awaiting review."""
        target = self.resolve_ref(name)
        branch = self.upstream_branches.get(target.fqn)
        table = IcebergTable(self.spark, target)
        return table.ident if branch is None else table.branch_ident(branch)

    def arrival(self) -> "Column | None":
        """For a keyed pipeline, each row's landing file's place in the order the run's files arrived: its last
        row of a key is then the one of the latest file (strategies.output_order)."""
        return self.landing.arrival() if self.config.unique_key else None

    def landing_df(self, zone: str) -> "DataFrame":
        return self._read_landing(zone)[0]

    def _read_landing(self, zone: str) -> tuple["DataFrame", "Column"]:
        label = f"{self.ref.namespace}/landing/{zone}"
        try:
            return self.landing.read(zone, self.log)
        except RatError:
            raise
        except FileNotFoundError as exc:  # vanished since the zone was listed (or a link to nowhere)
            raise RatError(f"cannot read landing zone {label}: Path does not exist: {exc.filename}") from None
        except Exception as exc:  # a file that vanished or cannot be parsed while Spark lists it
            why = self.landing.explain(exc) or summarise(exc)[0]  # the file and line, where they can be found
            raise RatError(f"cannot read landing zone {label}: {why}") from None

    def landing_view(self, zone: str) -> str:
        """A temp view over the zone's active files, plus `_source_file` for per-row lineage.

        Spark's `_metadata` column does not survive a view, so the file name is copied in.
        """
        view = f"landing_{zone.replace('-', '_')}_{self.run_id}"
        df, source_file = self._read_landing(zone)
        df.select("*", source_file.alias(SOURCE_FILE_COLUMN)).createOrReplaceTempView(view)
        self._views.append(view)
        return quote(view)

    def temp_view(self, df: "DataFrame", role: str) -> str:
        """`df` as a view of this run (dropped at cleanup), by its quoted name."""
        view = f"rat_{role}_{self.run_id}"
        df.createOrReplaceTempView(view)
        self._views.append(view)
        return quote(view)

    def jinja_context(self, this: str) -> dict[str, Any]:
        context: dict[str, Any] = {
            "ref": self.ref_ident,
            "landing_zone": self.landing_view,
            "this": this,
            "run_started_at": self.run_started_at,
            "is_incremental": self.is_incremental,
            "is_scd2": self.is_scd2,
            "config": self.config.as_dict(),
        }
        if self.interval is not None:
            context["interval_start"], context["interval_end"] = self.interval.start_text, self.interval.end_text
        # Only defined when incremental, so `{% if is_incremental() %}` guards it on a first run.
        if self.is_incremental() and self.config.watermark_column:
            context["watermark_value"] = self.watermark_value()
        return context

    def cleanup(self) -> None:
        for view in self._views:
            try:
                self.spark.catalog.dropTempView(view)
            except Exception:
                logging.getLogger(__name__).warning("could not drop temp view %s", view)
        self._views.clear()


class PythonContext:
    """The `ctx` argument of a Python pipeline's `run(spark, ctx)`."""

    def __init__(self, run: RunContext):
        self._run = run
        self.this = run.this
        self.run_started_at = run.run_started_at
        self.config = run.config.as_dict()
        interval = run.interval  # of a partitioned pipeline; None otherwise
        self.interval_start = interval.start_text if interval else None
        self.interval_end = interval.end_text if interval else None

    def ref(self, name: str) -> "DataFrame":
        return self._run.spark.table(self._run.ref_ident(name))

    def landing_zone(self, zone: str) -> "DataFrame":
        return self._run.landing_df(zone)

    def is_incremental(self) -> bool:
        return self._run.is_incremental()

    @property
    def watermark_value(self) -> str | None:
        return self._run.watermark_value() if self._run.is_incremental() else None

    def log(self, message: str) -> None:
        self._run.log(str(message))
