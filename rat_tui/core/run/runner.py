"""Queues runs, one thread each (run_threads.py): different pipelines run concurrently, the same pipeline in turn."""
from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from ..errors import RatError, RunCancelled
from ..events import EventBus, RunFinished, RunQueued, RunStarted
from ..lake.job_cancel import cancel_until_stopped
from ..lake.jvm_exit import exception_text
from ..lake.session import SparkManager
from ..lineage.null_columns import NullColumns
from ..project.model import PipelineRef, Project
from ..storage import Storage
from ..store.intervals import IntervalStore
from ..store.state import RunRecord, StateDB
from .across_processes import join_covering_run, pipeline_held, wait_out
from .phases import Execution, RunOptions
from .run_threads import RunThreads
from .recovery import mark_orphans

log = logging.getLogger(__name__)


def new_run_id() -> str:
    return secrets.token_hex(4)


@dataclass
class RunHandle:
    record: RunRecord
    ref: PipelineRef
    options: RunOptions
    cancelled: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    join_since: float | None = None  # a save's run: when the files changed (across_processes.py)
    settle: Callable[[float | None], object] = lambda timeout: None  # the bus's: see wait

    @property
    def run_id(self) -> str:
        return self.record.run_id

    def wait(self, timeout: float | None = None) -> RunRecord:
        """The record once the run has ended and what listens to its end in the background (its lineage)
        has written, or as it stands after `timeout`."""
        if self.done.wait(timeout):
            self.settle(timeout)
        return self.record


MAX_WAIT_FOR_CHANGE = 1.0  # a file stamped in the future (a skewed clock) delays its run no longer


class Runner:
    def __init__(self, project: Project, spark: SparkManager, state: StateDB, events: EventBus,
                 storage: Storage, null_columns: NullColumns | None = None):
        self.project, self.spark, self.state, self.events = project, spark, state, events
        self.storage, self.null_columns = storage, null_columns
        self.intervals = IntervalStore(state)
        self._pipeline_locks: dict[PipelineRef, threading.Lock] = defaultdict(threading.Lock)
        self._lock = threading.Lock()
        self.active: dict[str, RunHandle] = {}
        self.threads = RunThreads()

    def submit(self, ref: PipelineRef, options: RunOptions | None = None, version: str = "draft", trigger: str = "manual",
               join_since: float | None = None) -> RunHandle:
        record = RunRecord(new_run_id(), ref.fqn, "queued", version=version, trigger=trigger)
        self.state.insert_run(record)
        handle = RunHandle(record, ref, options or RunOptions(), join_since=join_since, settle=self.events.settle)
        with self._lock:
            self.active[record.run_id] = handle
        self.events.publish(RunQueued(record.run_id, ref.fqn))
        self.threads.start(lambda: self._work(handle), f"run-{record.run_id}")
        return handle

    def queued_run(self, ref: PipelineRef) -> RunHandle | None:
        """A run of this pipeline that has not started yet (it will read the files when it does)."""
        with self._lock:
            return next((h for h in self.active.values() if h.ref == ref and h.record.status == "queued"), None)

    def cancel(self, run_id: str) -> bool:
        with self._lock:
            handle = self.active.get(run_id)
        if handle is None:
            return False
        handle.cancelled.set()
        if self.spark.state.value in ("ready", "busy"):
            # The run clears its job group before cleaning up, so the repeats never cancel the cleanup.
            cancel_until_stopped(self.spark.session, run_id, handle.done.is_set)
        return True

    def queued_and_running(self) -> tuple[int, int]:
        with self._lock:
            statuses = [h.record.status for h in self.active.values()]
        return statuses.count("queued"), statuses.count("running")

    def wait_idle(self, timeout: float | None = None) -> list[RunRecord]:
        deadline = None if timeout is None else time.monotonic() + timeout
        finished = []
        while True:
            with self._lock:
                handles = list(self.active.values())
            if not handles:
                return finished
            for handle in handles:
                remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
                if not handle.done.wait(remaining):
                    raise RatError(f"runs still going after {timeout:g} s")
                finished.append(handle.record)

    @contextmanager
    def _across_processes(self, handle: RunHandle, serialise: bool) -> Iterator[None]:
        """One run of the pipeline at a time in every process on the project (across_processes.py)."""
        if not serialise:
            yield
            return
        with pipeline_held(self.project.state_dir, handle.record, handle.cancelled, self.events) as last:
            if last is not None:  # the holder may have been killed: its run is no longer live, its files go back
                wait_out(self.state, last)
                mark_orphans(self.state, self.project, self.storage.landing_archive)
            yield

    def _work(self, handle: RunHandle) -> None:
        record = handle.record
        serialise = self.project.settings.serialise_same_pipeline
        lock = self._pipeline_locks[handle.ref] if serialise else threading.Lock()
        try:
            with lock, self._across_processes(handle, serialise):
                try:
                    if handle.cancelled.is_set():
                        raise RunCancelled()
                    joined = join_covering_run(self.state, self.events, record, handle.join_since)
                    if joined is not None:
                        record.status, record.snapshot_id, record.rows_written = "success", joined.snapshot_id, 0
                        record.landing = {"note": joined.note, "joined": joined.run_id}
                        return
                    # A save's run counts as started no sooner than the moment its files count as changed, and
                    # reads them no sooner (Execution.load): a later request for the same save (another app's, the
                    # editor touching the file) finds it covering. The wait overlaps the run's first phase.
                    changed = handle.join_since
                    if changed is not None and changed - time.time() >= MAX_WAIT_FOR_CHANGE:
                        changed = None
                    record.status, record.started_at = "running", max(time.time(), changed or 0.0)
                    self.state.update_run(record.run_id, status="running", started_at=record.started_at)
                    self.events.publish(RunStarted(record.run_id, record.pipeline, record.version))
                    waiting = time.monotonic()
                    self.spark.session()  # Spark may still be starting: that wait is no phase's
                    record.waited_for_spark_ms = int((time.monotonic() - waiting) * 1000)
                    if record.waited_for_spark_ms:  # kept: a run read back (`runs`, a held run's review) says it too
                        self.state.update_run(record.run_id, waited_for_spark_ms=record.waited_for_spark_ms)
                    self.storage.prepare_run(handle.ref)  # e.g. the landing cache matches the bucket
                    with self.spark.using(isolated=True) as spark:  # user code: its own SQL conf, no stop()
                        execution = Execution(
                            spark, self.project, record, handle.ref, replace(handle.options, read_not_before=changed),
                            self.state, self.events,
                            handle.cancelled, self.spark.ensure_catalog, self.storage, self.null_columns,
                        )
                        execution.run()
                    record.status = "awaiting_review" if execution.held else "success"
                finally:  # stamped before the lock frees: the next run of the pipeline starts after it
                    record.finished_at = time.time()
        except RunCancelled:
            record.status, record.error = "cancelled", "cancelled by the user"
        except RatError as exc:
            record.status, record.error = "failed", exc.sentence()
        except Exception as exc:
            log.exception("run %s crashed", record.run_id)
            record.status, record.error = "failed", (f"internal error ({type(exc).__name__}: {exception_text(exc)}); "
                                                     "see .rat/logs/app.log")
        finally:
            record.finished_at = record.finished_at or time.time()
            try:  # whatever happens to the state file, the run ends: its handle, its event
                self.state.update_run(
                    record.run_id, status=record.status, finished_at=record.finished_at, error=record.error,
                    rows_written=record.rows_written, snapshot_id=record.snapshot_id,
                )
                self.intervals.settle(record.run_id, record.status, record.snapshot_id)
            except Exception:
                log.exception("could not record the end of run %s", record.run_id)
            with self._lock:
                self.active.pop(record.run_id, None)
            self.events.publish(RunFinished.of(record))
            handle.done.set()
