"""Running a part of the graph: `NAME+`, `+NAME`, `+NAME+`, or a whole build, in dependency order.

A pipeline runs only once everything it reads (within the selection) succeeded; when an
upstream fails, is cancelled or fails its gate, the pipeline is recorded as skipped, naming
that upstream, and never runs on stale inputs. Independent pipelines run side by side.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import RatError
from ..events import EventBus, RunFinished, RunQueued
from ..project.graph import ProjectGraph
from ..store.state import RunRecord, StateDB
from ..lake.table import run_branch
from .runner import RunHandle, new_run_id

# How many pipelines of a selection run at once: bench/build_graph.py on 2 cores, 20 tiny pipelines,
# 3 at a time 6.1 s, 2 at a time 6.8 s, 1 at a time 10.8 s.
MAX_PARALLEL = 3
# A run held for review counts as done: what runs after it reads its branch (and is held with it).
DONE = ("success", "awaiting_review")


def check_namespaces(graph: ProjectGraph, namespaces: list[str]) -> None:
    """RatError unless each of `namespaces` holds a pipeline (what `build NS …` takes)."""
    known = {graph.nodes[n].namespace for n in graph.pipelines()}
    unknown = sorted(set(namespaces) - known)
    if unknown:
        selectors = [u for u in unknown if "." in u or "+" in u]  # `build 'x+'`: a pipeline's selector
        hint = f"; build takes namespaces: run a selector with run '{selectors[0]}'" if selectors else ""
        raise RatError(f"no pipelines in namespace {', '.join(unknown)} (namespaces: {', '.join(sorted(known))})"
                       f"{hint}")


@dataclass(frozen=True)
class Selector:
    name: str
    upstream: bool = False
    downstream: bool = False

    @classmethod
    def parse(cls, text: str) -> "Selector":
        name = text.strip().removeprefix("+").removesuffix("+")
        return cls(name, upstream=text.strip().startswith("+"), downstream=text.strip().endswith("+"))

    @property
    def is_graph(self) -> bool:
        return self.upstream or self.downstream

    def select(self, graph: ProjectGraph) -> list[str]:
        if graph.nodes.get(self.name) is None or graph.nodes[self.name].kind != "pipeline":
            raise RatError(f"no pipeline {self.name} in this project")
        chosen = {self.name}
        if self.upstream:
            chosen |= graph.upstream_of(self.name)
        if self.downstream:
            chosen |= graph.downstream_of(self.name)
        return graph.order(n for n in chosen if graph.nodes[n].kind == "pipeline")


class SelectionRun:
    """One run of several pipelines; `cancel()` stops the whole selection."""

    def __init__(self, graph: ProjectGraph, names: list[str], submit: Callable[[str], RunHandle],
                 state: StateDB, events: EventBus, cancel_run: Callable[[str], bool],
                 max_parallel: int | None = None):
        self.graph, self.names, self.submit, self.cancel_run = graph, names, submit, cancel_run
        self.state, self.events = state, events
        self.max_parallel = max_parallel or MAX_PARALLEL
        self.records: dict[str, RunRecord] = {}
        self.active: dict[str, RunHandle] = {}
        self.cancelled = threading.Event()
        self._changed = threading.Condition()

    def cancel(self) -> None:
        self.cancelled.set()
        for handle in list(self.active.values()):
            self.cancel_run(handle.run_id)
        with self._changed:
            self._changed.notify_all()

    def run(self) -> list[RunRecord]:
        """Blocks until every pipeline of the selection has succeeded, failed or been skipped."""
        pending = list(self.names)
        while pending or self.active:
            for name in list(pending):
                blocker = self._blocker(name)
                if blocker is not None:
                    pending.remove(name)
                    self._skip(name, blocker)
                elif self._ready(name) and len(self.active) < self.max_parallel and not self.cancelled.is_set():
                    pending.remove(name)
                    self._start(name)
            if self.cancelled.is_set():
                for name in pending:
                    self._skip(name, None)
                pending.clear()
            with self._changed:
                if self.active:
                    self._changed.wait(0.2)
            for name, handle in list(self.active.items()):
                if handle.done.is_set():
                    self.records[name] = handle.record
                    del self.active[name]
        return [self.records[name] for name in self._execution_order()]

    def _inside(self, name: str) -> set[str]:
        return self.graph.upstream.get(name, set()) & set(self.names)

    def _ready(self, name: str) -> bool:
        return all(self.records.get(up) is not None and self.records[up].status in DONE for up in self._inside(name))

    def _blocker(self, name: str) -> str | None:
        for up in sorted(self._inside(name)):
            record = self.records.get(up)
            if record is not None and record.status not in DONE:
                return up
        return None

    def held_upstream(self, name: str) -> dict[str, str]:
        """The branches of this pipeline's upstream runs (in the selection) that await review."""
        return {up: run_branch(self.records[up].run_id) for up in self._inside(name)
                if up in self.records and self.records[up].status == "awaiting_review"}

    def _start(self, name: str) -> None:
        try:
            handle = self.submit(name)
        except RatError as exc:  # e.g. no published version: a failed run of its own, never a crash
            record = RunRecord(new_run_id(), name, "failed", error=exc.sentence(), finished_at=time.time())
            self.state.insert_run(record)
            self.records[name] = record
            return
        self.active[name] = handle
        handle_done = handle.done

        def notify() -> None:
            handle_done.wait()
            with self._changed:
                self._changed.notify_all()

        threading.Thread(target=notify, daemon=True).start()

    def _skip(self, name: str, blocker: str | None) -> None:
        if blocker is None:
            error = "skipped: the selection was cancelled"
        else:
            status = self.records[blocker].status
            error = f"skipped: upstream {blocker} {'was ' + status if status in ('cancelled', 'skipped') else status}"
        record = RunRecord(new_run_id(), name, "skipped", trigger="selection", error=error, finished_at=time.time())
        self.state.insert_run(record)
        self.records[name] = record
        self.events.publish(RunQueued(record.run_id, name))
        self.events.publish(RunFinished.of(record))

    def _execution_order(self) -> list[str]:
        """Names in the order their runs began (skips where they were decided)."""
        return sorted(self.records, key=lambda n: (self.records[n].started_at or self.records[n].queued_at))
