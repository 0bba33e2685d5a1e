"""Each run's lineage, from the run's events (no phase is touched): at its start, the pipeline's column
lineage is kept with the run in state.db (under the code version); at its start and end, an
OpenLineage event goes to `.rat/lineage/events.jsonl`, and to an HTTP endpoint when rat.yaml sets one.
The file is written first: a down endpoint loses no event and never fails a run."""
from __future__ import annotations

import logging
import threading
import urllib.error
import urllib.request
from collections.abc import Callable


from ..errors import RatError
from ..events import Event, RunFinished, RunStarted
from ..project.graph import ZONE_LAYER, pipeline_inputs, zone_node
from ..project.model import PipelineRef, Project
from ..project.pipeline_source import LoadedPipeline, load_pipeline
from ..store.state import RunRecord, StateDB
from ..store.versions import VersionStore
from .compiled import compiled_sql
from .model import PipelineLineage
from .run_facts import InputRead, RunCause, RunFacts, RunParent
from .plan_handoff import take
from .run_store import LineageStore
from .schemas import SchemaReader
from .service import ColumnLineage

log = logging.getLogger(__name__)

START_DELAY = 0.5  # seconds


class RunLineage:
    """An EventBus listener: `bus.subscribe(RunLineage(...))`."""

    def __init__(self, project: Project, state: StateDB, lineage: ColumnLineage, schemas: SchemaReader,
                 store: LineageStore, versions: VersionStore,
                 causes: Callable[[str], RunCause | None] = lambda run_id: None):
        """`versions`: the published versions a `run --published` ran; `causes`: what fired a run (the
        automation's record of its tick), for its nominal time and parent."""
        self.project, self.state, self.lineage, self.schemas, self.store = project, state, lineage, schemas, store
        self.versions, self.causes = versions, causes
        self.path = project.state_dir / "lineage" / "events.jsonl"
        self._lock = threading.Lock()
        self._order = threading.Lock()  # a run's START is written whole before its end's event
        self._starts: dict[str, tuple[float, RunRecord | None, threading.Timer]] = {}

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            # The START waits START_DELAY, or for the run's end: its parse and files (Python, a few ms) held
            # the GIL while the run made its session and first phases, and made a short run 10-20 ms slower.
            timer = threading.Timer(START_DELAY, self._start, (event.run_id,))
            timer.daemon = True
            with self._lock:
                self._starts[event.run_id] = (event.at, self.state.get_run(event.run_id), timer)
            timer.start()
        elif isinstance(event, RunFinished):  # its record comes with it
            self._start(event.run_id)
            with self._order:
                self._on_run(event.run_id, event.status, event.at, event.record or self.state.get_run(event.run_id))

    def _start(self, run_id: str) -> None:
        with self._order:
            with self._lock:
                at, record, timer = self._starts.pop(run_id, (0.0, None, None))
            if timer is None:  # written already
                return
            timer.cancel()
            try:
                self._on_run(run_id, "start", at, record)
            except Exception:  # on the timer's thread, no bus logs it
                log.exception("the START lineage event of run %s failed", run_id)

    def _on_run(self, run_id: str, status: str, at: float, record: RunRecord | None) -> None:
        if record is None:
            return
        ref = PipelineRef.parse(record.pipeline)
        pipeline = load_pipeline(ref, self._files(ref, record.version))[0]
        if pipeline is None:
            return
        lineage = self.lineage.one(pipeline)
        if status == "start" and not lineage.problem:
            self.store.save(run_id, pipeline.source, lineage)
        planned = take(run_id) if status != "start" else None  # a Python pipeline's, from Spark's plan
        if planned is not None:
            self.store.save(run_id, pipeline.source, planned)
        stored = self.store.for_run(run_id)
        from .openlineage_events import run_event  # the client loads with the first run, not at start

        self.emit(run_event(self.project.root.as_uri(), self._facts(record, pipeline, status, at, stored or lineage)))

    def _facts(self, record: RunRecord, pipeline: LoadedPipeline, status: str, at: float,
               lineage: PipelineLineage | None) -> RunFacts:
        ended = status != "start"
        cause = self.causes(record.run_id) or RunCause()
        group = record.review.get("group")
        parent = cause.parent or (RunParent(f"{record.trigger}.{group}", group) if group else None)
        columns = tuple((self.schemas.table(pipeline.ref) or {}).items()) if ended else ()
        return RunFacts(
            run_id=record.run_id, pipeline=record.pipeline, status=status, at=at, kind=pipeline.kind,
            source=pipeline.source, compiled=self._compiled(pipeline), trigger=record.trigger,
            nominal_time=cause.nominal_time, parent=parent, inputs=self._inputs(record, pipeline),
            columns=columns, lineage=lineage, snapshot_id=record.snapshot_id if ended else None,
            rows_written=record.rows_written if ended else None, quality=tuple(record.quality) if ended else (),
            error=record.error)

    def _files(self, ref: PipelineRef, version: str) -> dict[str, bytes]:
        """The code the run ran: a published version's pinned files, else the working copy."""
        published = next((v for v in self.versions.published(ref) if str(v.version) == version), None)
        if published is None:
            return self.project.read_pipeline_files(ref)
        return self.versions.read_pinned(ref, published)

    @staticmethod
    def _compiled(pipeline: LoadedPipeline) -> str | None:
        if pipeline.kind != "sql":
            return None
        try:
            return compiled_sql(pipeline)
        except RatError:
            return None

    def _inputs(self, record: RunRecord, pipeline: LoadedPipeline) -> tuple[InputRead, ...]:
        """The tables the run read (with the snapshot, once it has read them) and the zones it reads,
        each with the quality tests of its last finished run."""
        tables, zones = pipeline_inputs(pipeline)
        names = sorted(set(record.inputs) | (tables - {record.pipeline})
                       | {zone_node(pipeline.ref.namespace, zone) for zone in zones})
        reads = []
        for name in names:
            last = [] if name.split(".")[1] == ZONE_LAYER else [
                r for r in self.state.runs(name, limit=5) if r.finished_at and r.run_id != record.run_id][:1]
            reads.append(InputRead(name, record.inputs.get(name), tuple(last[0].quality) if last else ()))
        return tuple(reads)

    def emit(self, event) -> None:
        from openlineage.client.serde import Serde

        text = Serde.to_json(event)
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as out:
                out.write(text + "\n")
        settings = self.project.settings
        if settings.lineage_transport == "http" and settings.lineage_url:
            self._post(settings.lineage_url, text, settings.lineage_timeout_seconds)

    @staticmethod
    def _post(url: str, text: str, timeout: float) -> None:
        request = urllib.request.Request(url, data=text.encode("utf-8"), method="POST",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                response.read()
        except (urllib.error.URLError, OSError, ValueError) as exc:
            log.warning("OpenLineage endpoint %s did not take an event (%s); it stays in .rat/lineage/events.jsonl",
                        url, exc)
