"""What every group of commands may use; `Workbench.__init__` builds it, bottom-up."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..events import EventBus
from ..lake.session import SparkManager
from ..project.model import PipelineRef, Project
from ..remote.config import s3_config
from ..run.runner import Runner
from ..storage import Storage
from ..store.state import StateDB
from ..store.versions import VersionStore

if TYPE_CHECKING:
    from ..remote.storage import BucketStorage
    from .run_results import RunResult, SelectionResult


def open_storage(project: Project, state: StateDB) -> tuple[Storage, VersionStore]:
    """The project's storage and version store, from `storage:` in rat.yaml: the one place that knows
    which. A bucket keeps file versions as its object versions, so it builds the store it serves."""
    objects = project.state_dir / "objects"
    config = s3_config(project.settings)
    if config is None:
        return Storage(project), VersionStore(state, objects)
    from ..remote.storage import BucketStorage  # boto3 is imported only for a project on a bucket

    storage = BucketStorage(project, state, config, objects)
    return storage, storage.versions


class WorkbenchParts:
    project: Project
    events: EventBus
    state: StateDB
    spark: SparkManager
    runner: Runner
    versions: VersionStore
    storage: Storage
    remote: BucketStorage | None  # the storage, when it is a bucket

    run: Callable[..., RunResult | SelectionResult]  # commands/workbench.py
    table_refs: Callable[[], list[PipelineRef]]  # commands/tables.py
    stale_downstream: Callable[[PipelineRef, int], list[str]]  # commands/graph_commands.py
    rebuild_stale: Callable[[list[str]], SelectionResult]  # commands/graph_commands.py
    set_main: Callable[[PipelineRef, int], None]  # commands/tables.py
    key_diff: Callable[..., dict]  # commands/review_commands.py
