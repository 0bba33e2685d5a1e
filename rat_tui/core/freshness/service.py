"""Freshness of the project's tables at a moment: the commit time of each pipeline's last successful run on
`main` (state.db's run, the commit time from the table's Iceberg metadata), or the newest value of
`freshness.column` on main (one Spark query per table, made again only when main moves)."""
from __future__ import annotations

import threading
from dataclasses import replace
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..errors import Problem, RatError
from ..lake.metadata import load_table
from ..lake.spark_errors import summarise
from ..lake.table import quote
from ..project.freshness_config import FreshnessPolicy
from ..project.model import PipelineRef, Project
from ..store.state import StateDB
from .policy import config_path, pipeline_policy, policies, selected
from .status import Freshness, before_its_data, judged, warn_moment

if TYPE_CHECKING:
    from ..lake.session import SparkManager


class FreshnessService:
    def __init__(self, project: Project, state: StateDB, spark: "SparkManager"):
        self.project, self.state, self.spark = project, state, spark
        self._newest: dict[tuple[str, str, int], float | None] = {}  # (table, column, main snapshot) -> max
        self._lock = threading.Lock()

    def report(self, selector: str | None = None, at: float | None = None) -> list[Freshness]:
        """Every selected pipeline that has a policy, its age as if the clock read `at` (default now); the runs
        and tables are read as they are. The first column that cannot be read is the error."""
        found = []
        for judged_or_error in self._each(selector, at):
            if isinstance(judged_or_error, RatError):
                raise judged_or_error
            found.append(judged_or_error)
        return found

    def survey(self, selector: str | None = None, at: float | None = None) -> tuple[list[Freshness], list[str]]:
        """As `report`, for a face that shows the rest when one column cannot be read: (found, why not)."""
        found, failed = [], []
        for judged_or_error in self._each(selector, at):
            if isinstance(judged_or_error, RatError):
                failed.append(judged_or_error.sentence())
            else:
                found.append(judged_or_error)
        return found, failed

    def _each(self, selector: str | None, at: float | None) -> Iterator[Freshness | RatError]:
        asked, at = at is not None, time.time() if at is None else at
        chosen = policies(self.project, selector)
        if selector and not chosen and not any(selected(ref, selector) for ref in self.project.scan().pipelines()):
            raise RatError(f"no pipeline {selector} in this project (a selector is ns, ns.layer or ns.layer.name)")
        for ref, policy in chosen:
            if isinstance(policy, Problem):  # a broken policy is no pass: the gate says so
                yield RatError(f"{policy.message}, so {ref.fqn}'s freshness cannot be judged", policy.path, policy.line)
                continue
            try:
                found = judged(ref.fqn, policy, self.last_success(ref),
                               self.since(ref, policy) if policy.column else None, at)
            except RatError as exc:
                yield exc
                continue
            if found.age_s is None or found.age_s >= 0:
                yield found
            elif asked:
                yield before_its_data(found, at)
            else:  # data newer than now: a commit stamped by a clock a moment ahead of this one (another machine's)
                yield replace(found, age_s=0.0)

    def warn_at(self, pipeline: str) -> float | None:
        """When the pipeline's data turned (or turns) warn; None without a policy or a successful run, or when
        its column cannot be read (`freshness` says why; one such pipeline must not stop every trigger's
        evaluation). A `stale` trigger fires at this moment."""
        ref = PipelineRef.parse(pipeline)
        policy, _ = pipeline_policy(self.project, ref)
        if policy is None:
            return None
        try:
            return warn_moment(policy, self.since(ref, policy))
        except RatError:
            return None

    def since(self, ref: PipelineRef, policy: FreshnessPolicy) -> float | None:
        """The moment its age counts from: the newest value of its column, else its last commit."""
        last = self.last_success(ref)
        if not policy.column or last is None:
            return last
        return self.newest_value(ref, policy.column)

    def last_success(self, ref: PipelineRef) -> float | None:
        """The commit time on main of the pipeline's last successful run (its end, if the table no longer holds
        that snapshot)."""
        row = self.state.query_one("SELECT snapshot_id, finished_at FROM runs WHERE pipeline = ? AND status = 'success'"
                                   " ORDER BY finished_at DESC LIMIT 1", (ref.fqn,))
        if row is None:
            return None
        if row["snapshot_id"] is not None:
            try:
                snapshot = load_table(self.project.table_dir(ref), ref.fqn).metadata.snapshot_by_id(row["snapshot_id"])
            except (RatError, OSError, ValueError):
                snapshot = None
            if snapshot is not None:
                return snapshot.timestamp_ms / 1000
        return row["finished_at"]

    def newest_value(self, ref: PipelineRef, column: str) -> float | None:
        """max(column) on main as seconds since the epoch (dates at midnight UTC); None for an empty table."""
        try:
            main = load_table(self.project.table_dir(ref), ref.fqn).metadata.current_snapshot_id
        except RatError:
            return None
        key = (ref.fqn, column, main or 0)
        with self._lock:
            if key in self._newest:
                return self._newest[key]
        self.spark.ensure_catalog(ref.namespace)
        sql = (f"SELECT unix_micros(CAST(max({quote(column)}) AS TIMESTAMP)) AS newest "
               f"FROM {quote(ref.namespace, ref.layer, ref.name)}")
        with self.spark.using(isolated=True) as spark:
            try:
                micros = spark.sql(sql).collect()[0][0]
            except Exception as exc:
                message, _ = summarise(exc)
                raise RatError(f"freshness.column '{column}' of {ref.fqn} cannot be read as a time: {message}",
                               config_path(ref)) from None
        newest = None if micros is None else micros / 1_000_000
        with self._lock:
            self._newest[key] = newest
        return newest
