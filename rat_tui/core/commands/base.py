"""What every group of commands may use; `Workbench.__init__` sets it up."""
from __future__ import annotations

from ..events import EventBus
from ..project import Project
from ..runner import Runner
from ..s3.remote import Remote
from ..spark_session import SparkManager
from ..state import StateDB
from ..versions import VersionStore


class WorkbenchParts:
    project: Project
    events: EventBus
    state: StateDB
    spark: SparkManager
    runner: Runner
    versions: VersionStore
    remote: Remote | None
