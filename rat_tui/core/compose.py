"""The composition root: `open_project(root)` builds a project's services bottom-up, each from the
collaborators it names, and hands the faces a `Workbench` that holds them (and closes them)."""
from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .automation.service import Automation
from .automation.store import TickStore
from .background.outside import OutsideChanges
from .background.settings_watch import SettingsWatch
from .background.warm_up import start_warm_up
from .background.watching import Watching
from .commands.browse import Browse
from .commands.bucket import Bucket
from .commands.console import Console
from .commands.files import Files
from .commands.intervals_commands import Intervals
from .commands.landing_commands import Landing
from .commands.lineage_commands import Lineage
from .commands.previews import Previews
from .commands.review_commands import Review
from .commands.runs import Runs
from .commands.tables import Tables
from .commands.unit_tests import UnitTests
from .commands.upkeep import Upkeep
from .commands.versions import Versions
from .events import EventBus
from .freshness.service import FreshnessService
from .lake.session import SparkManager
from .lineage.null_columns import NullColumns
from .lineage.run_lineage import RunLineage
from .lineage.run_store import LineageStore
from .lineage.schemas import SchemaReader
from .lineage.service import ColumnLineage
from .project.graph import GraphCache
from .project.model import Project
from .remote.config import s3_config
from .run.recovery import mark_orphans
from .run.run_log import RunLog
from .run.runner import Runner
from .storage import Storage
from .store.presence import OpenMark
from .store.state import StateDB
from .store.versions import VersionStore
from .unittests.scratch import ScratchCatalog

if TYPE_CHECKING:
    from .remote.storage import BucketStorage


@dataclass(eq=False)  # one open project is itself, not equal to another holding equal parts
class Workbench:
    """One open project: what it stands on (project, state, Spark, the runner, the event stream) and the
    services the faces call (`wb.runs.run(...)`, `wb.tables.snapshots(...)`); nothing here runs a command."""

    project: Project
    events: EventBus
    state: StateDB
    storage: Storage
    version_store: VersionStore
    open_mark: OpenMark
    spark: SparkManager
    runner: Runner
    graph_cache: GraphCache
    lineage_store: LineageStore
    column_lineage: ColumnLineage
    run_log: RunLog
    recovered: list
    unit_catalog: ScratchCatalog
    freshness: FreshnessService
    automation: Automation
    browse: Browse
    lineage: Lineage
    runs: Runs
    tables: Tables
    versions: Versions
    landing: Landing
    console: Console
    upkeep: Upkeep
    files: Files
    bucket: Bucket
    unit_tests: UnitTests
    review: Review
    intervals: Intervals
    watching: Watching
    outside: OutsideChanges
    settings_watch: SettingsWatch

    @property
    def remote(self) -> BucketStorage | None:
        """The bucket, for what only a bucket offers (push, pull, its status)."""
        return self.bucket.remote

    def close(self) -> None:
        self.events.settle()  # the last run's lineage reaches events.jsonl before the process ends
        self.outside.stop()
        self.watching.stop()
        self.spark.stop()
        self.unit_catalog.close()
        self.open_mark.close()

    def warm_up(self) -> threading.Thread:
        """Start Spark in the background, then warm it on a run's paths out of sight (warm_up.py)."""
        self.spark.start_background()
        return start_warm_up(self.spark)


def open_storage(project: Project, state: StateDB) -> tuple[Storage, VersionStore]:
    """The project's storage and version store, from `storage:` in rat.yaml: the one place that knows
    which. A bucket keeps file versions as its object versions, so it builds the store it serves."""
    objects = project.state_dir / "objects"
    config = s3_config(project.settings)
    if config is None:
        return Storage(project), VersionStore(state, objects)
    from .remote.storage import BucketStorage  # boto3 is imported only for a project on a bucket

    storage = BucketStorage(project, state, config, objects)
    return storage, storage.versions


def open_project(root: Path | str, one_shot: bool = False) -> Workbench:
    """`one_shot`: this process runs one script and exits (Spark starts tuned for that)."""
    project = Project(root)
    events = EventBus()
    state = StateDB(project.state_dir / "state.db")
    storage, version_store = open_storage(project, state)
    open_mark = OpenMark(project.state_dir)  # so `generate.py --all` refuses while this runs
    spark = SparkManager(project, events, storage, one_shot)
    graph_cache = GraphCache(project)
    lineage_store = LineageStore(state)
    schemas = SchemaReader(project)
    column_lineage = ColumnLineage(project, graph_cache, schemas, lineage_store)
    runner = Runner(project, spark, state, events, storage, NullColumns(column_lineage, state))
    events.subscribe(RunLineage(project, state, column_lineage, schemas, lineage_store, version_store,
                                lambda run_id: automation.cause_of(run_id)),  # automation is built below
                     background=True)  # its sqlglot parse and files are no part of a run's time
    run_log = RunLog(project.state_dir / "logs" / "runs.jsonl")
    events.subscribe(run_log)
    recovered = mark_orphans(state, project, storage.landing_archive)
    unit_catalog = ScratchCatalog()
    freshness = FreshnessService(project, state, spark)

    previews = Previews(project, state, spark, storage)
    unit_tests = UnitTests(project, spark, storage, graph_cache, previews, unit_catalog)
    review = Review(project, state, events, spark, storage, column_lineage)
    runs = Runs(project, state, events, spark, runner, storage, version_store, graph_cache, unit_tests, review)
    automation = Automation(project, TickStore(state), events,
                            lambda pipeline, kind: runs.submit(pipeline, trigger=kind), graph_cache.graph, freshness)
    versions = Versions(project, version_store, storage)
    files = Files(project, version_store, storage)
    landing = Landing(project, state, storage, spark)
    bucket = Bucket(storage if storage.is_bucket else None)  # type: ignore[arg-type]
    return Workbench(
        project=project, events=events, state=state, storage=storage, version_store=version_store,
        open_mark=open_mark, spark=spark, runner=runner, graph_cache=graph_cache, lineage_store=lineage_store,
        column_lineage=column_lineage, run_log=run_log, recovered=recovered, unit_catalog=unit_catalog,
        freshness=freshness, automation=automation,
        browse=Browse(project, state, storage, version_store, versions, automation, column_lineage),
        lineage=Lineage(project, state, graph_cache),
        runs=runs,
        tables=Tables(project, state, spark, graph_cache, runs, review),
        versions=versions,
        landing=landing,
        console=Console(project, spark, previews),
        upkeep=Upkeep(project, state, version_store, storage, spark, runs),
        files=files,
        bucket=bucket,
        unit_tests=unit_tests,
        review=review,
        intervals=Intervals(project, state, runner, runs),
        watching=Watching(project, events, spark, runner, automation, runs, files, landing),  # off until a face turns it on
        # other processes' runs, state deleted under the app: a face starts it
        outside=OutsideChanges(project, events, state, runner, open_mark),
        # rat.yaml and config.yaml saves take effect while a face is open: the face starts it
        settings_watch=SettingsWatch(project, events, project.settings.watch_debounce_ms / 1000),
    )
