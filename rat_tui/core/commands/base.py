"""What every group of commands may use; `Workbench.__init__` sets it up."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..events import EventBus
from ..lake.session import SparkManager
from ..project.model import PipelineRef, Project
from ..run.runner import Runner
from ..storage import Storage
from ..store.state import StateDB
from ..store.versions import VersionStore

if TYPE_CHECKING:
    from ..remote.storage import BucketStorage


class WorkbenchParts:
    project: Project
    events: EventBus
    state: StateDB
    spark: SparkManager
    runner: Runner
    versions: VersionStore
    storage: Storage
    remote: BucketStorage | None  # the storage, when it is a bucket

    stale_downstream: Callable[[PipelineRef, int], list[str]]  # commands/graph.py
