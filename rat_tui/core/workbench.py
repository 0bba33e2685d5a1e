"""The command layer: every action the TUI and `--script` offer, as plain methods returning data."""
from __future__ import annotations

import hashlib
import os
import re
import secrets
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

from .build import build
from .catalog import IcebergTable
from .doctor import Doctor
from .errors import RatError
from .events import EventBus
from .executor import RunOptions
from .landing_preview import read_head
from .pipeline_source import load_pipeline
from .project import LANDING_EXTENSIONS, PipelineRef, Project, active_landing_files
from .purge import PurgePlan, Reaper, needs_spark
from .quality import json_value as row_value
from .quality import row_values
from .recovery import drop_leftovers, mark_orphans
from .run_context import RunContext
from .run_log import RunLog
from .s3.config import s3_config
from .s3.remote import Remote
from .runner import RunHandle, Runner
from .settings import target_file_size
from .settings_edit import set_values
from .spark_errors import summarise
from .spark_session import SparkManager
from .state import StateDB
from .table_metadata import load_table, schema_diff, snapshots, table_stats
from .uploads import create_zone, upload
from .validate import validate
from .versions import VersionStore

QUERY_ROW_LIMIT = 1000
_READ_ONLY = re.compile(r"^\s*(select|with|show|describe|desc|explain|values|table)\b", re.I)
_COMMENTS = re.compile(r"(--[^\n]*\n?)|(/\*.*?\*/)", re.S)


class Workbench:
    """One open project and the services built on it. Faces call these methods; nothing here renders."""

    def __init__(self, root: Path | str):
        self.project = Project(root)
        self.events = EventBus()
        self.state = StateDB(self.project.state_dir / "state.db")
        self.spark = SparkManager(self.project, self.events)
        config = s3_config(self.project.settings)
        self.remote = Remote(self.project, self.state, config) if config else None
        self.runner = Runner(self.project, self.spark, self.state, self.events,
                             self.remote.landing_archive if self.remote else None,
                             self.remote.prepare_run if self.remote else None)
        self.versions = VersionStore(self.state, self.project.state_dir / "objects",
                                     remote=self.remote.sync if self.remote else None)
        if self.remote:
            self.remote.attach(self.versions)
        self.run_log = RunLog(self.project.state_dir / "logs" / "runs.jsonl")
        self.events.subscribe(self.run_log)
        self.recovered = mark_orphans(self.state, self.project, self.runner.landing_archive)
        self._cleanup_lock = threading.Lock()

    def close(self) -> None:
        self.spark.stop()

    # -- recovery -----------------------------------------------------------------------
    def needs_cleanup(self) -> bool:
        return bool(self.state.unresolved_branches())

    def cleanup_leftovers(self) -> list[str]:
        """Drop branches of crashed runs (needs Spark; the TUI calls this from a worker)."""
        with self._cleanup_lock:
            if not self.needs_cleanup():
                return []
            with self.spark.using() as spark:
                return drop_leftovers(self.state, spark, self.spark.ensure_catalog)

    # -- browsing -------------------------------------------------------------------
    def ls(self) -> dict:
        scan = self.project.scan()
        return {
            "namespaces": [
                {"name": ns.name, "pipelines": [p.fqn for p in ns.pipelines], "zones": [z.name for z in ns.zones]}
                for ns in scan.namespaces
            ]
        }

    def overview(self) -> dict:
        """Everything the project tree shows, in one pass over disk and state (no Spark)."""
        scan = self.project.scan()
        tables = {ref.fqn: ref for ref in self.table_refs()}
        namespaces = []
        for ns in scan.namespaces:
            pipelines = []
            for ref in ns.pipelines:
                last = self.state.runs(ref.fqn, limit=1)
                pipelines.append({"ref": ref, "last_status": last[0].status if last else None,
                                  "published": self.versions.current(ref) is not None, "drift": self.drift(ref),
                                  "remote": self.remote.pipeline_state(ref) if self.remote else None})
            zones = [{"name": z.name, "files": len(z.active_files())} for z in ns.zones]
            ns_tables = []
            for fqn, ref in tables.items():
                if ref.namespace == ns.name:
                    try:
                        stats = table_stats(load_table(self.project.table_dir(ref), fqn))
                    except Exception:  # a damaged table still shows, with its name
                        stats = {"snapshot_id": None, "rows": None}
                    ns_tables.append({"ref": ref, **stats})
            namespaces.append({"name": ns.name, "pipelines": pipelines, "zones": zones, "tables": ns_tables})
        return {"namespaces": namespaces, "problems": [p.sentence() for p in scan.problems if p.is_error]}

    def drift(self, ref: PipelineRef) -> bool:
        """Whether the working copy differs from the current published version."""
        current = self.versions.current(ref)
        if current is None:
            return False
        working = self.project.read_pipeline_files(ref)
        if set(working) != set(current.files):
            return True
        return any(hashlib.sha256(working[name]).hexdigest() != self.versions.get(vid).sha256
                   for name, vid in current.files.items())

    def validate(self, pipeline: str | None = None) -> dict:
        only = self.project.find_pipeline(pipeline) if pipeline else None
        problems = validate(self.project, only)
        errors = [p for p in problems if p.is_error]
        result = {"problems": [p.as_dict() for p in problems]}
        if errors:
            raise RatError.with_result(f"{len(errors)} problem(s) found; first: {errors[0].sentence()}", result)
        return result

    def resolve(self, text: str) -> PipelineRef:
        return self.project.find_pipeline(text)

    def table_refs(self) -> list[PipelineRef]:
        """Tables on disk (hadoop catalog layout), whether or not a pipeline still produces them."""
        found = []
        for ns in self.project.scan().namespaces:
            warehouse = self.project.warehouse_dir(ns.name)
            for layer_dir in sorted(warehouse.glob("*")) if warehouse.is_dir() else []:
                for table_dir in sorted(layer_dir.glob("*")):
                    if (table_dir / "metadata").is_dir():
                        found.append(PipelineRef(ns.name, layer_dir.name, table_dir.name))
        return found

    def tables(self) -> dict:
        rows = []
        for ref in self.table_refs():
            table = load_table(self.project.table_dir(ref), ref.fqn)
            rows.append({"name": ref.fqn, **table_stats(table)})
        return {"tables": rows}

    def snapshots(self, pipeline: str) -> dict:
        ref = PipelineRef.parse(pipeline)
        table = load_table(self.project.table_dir(ref), ref.fqn)
        found, refs = snapshots(table)
        by_snapshot = {r.snapshot_id: r.run_id for r in self.state.runs(ref.fqn, limit=10_000) if r.snapshot_id}
        return {
            "snapshots": [{**s.as_dict(), "run_id": s.run_id or by_snapshot.get(s.snapshot_id)} for s in found],
            "refs": refs,
        }

    def runs(self, pipeline: str | None = None, limit: int = 20) -> dict:
        name = PipelineRef.parse(pipeline).fqn if pipeline else None
        return {"runs": [r.as_dict() for r in self.state.runs(name, limit)]}

    # -- running --------------------------------------------------------------------
    def submit(self, pipeline: str, full_refresh: bool = False, published: bool = False, trigger: str = "manual") -> RunHandle:
        ref = self.resolve(pipeline)
        options, version = RunOptions(full_refresh=full_refresh), "draft"
        if published:
            self._pull_published()
            pinned = self.versions.current(ref)
            if pinned is None:
                raise RatError(f"{ref.fqn} has no published version yet; publish it first or run the working copy")
            options.files, version = self.versions.read_pinned(ref, pinned), str(pinned.version)
        if self.needs_cleanup():
            self.cleanup_leftovers()
        return self.runner.submit(ref, options, version=version, trigger=trigger)

    def request_run(self, ref: PipelineRef, trigger: str) -> RunHandle:
        """A draft run for a save: a burst of saves, or saves during a run, give one more run, not many."""
        return self.runner.queued_run(ref) or self.submit(ref.fqn, trigger=trigger)

    def run(self, pipeline: str, full_refresh: bool = False, published: bool = False) -> dict:
        record = self.submit(pipeline, full_refresh, published).wait()
        result = {"run": record.as_dict()}
        if record.status != "success":
            raise RatError.with_result(f"run {record.run_id} of {record.pipeline} {record.status}: {record.error}", result)
        return result

    def cancel(self, run_id: str) -> bool:
        return self.runner.cancel(run_id)

    def wait_idle(self, timeout: float | None = None) -> dict:
        return {"runs": [r.as_dict() for r in self.runner.wait_idle(timeout)]}

    def preview(self, pipeline: str, limit: int = 20) -> dict:
        """Phases 1-2 only: compile and execute, write nothing."""
        ref = self.resolve(pipeline)
        loaded, problems = load_pipeline(ref, self.project.read_pipeline_files(ref))
        errors = [p for p in problems if p.is_error]
        if loaded is None or errors:
            raise RatError.from_problem(errors[0])
        with self.spark.using() as spark:
            self.spark.ensure_catalog(ref.namespace)
            table = IcebergTable(spark, ref)
            started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
            ctx = RunContext(
                spark, self.project, ref, loaded.config, f"preview_{secrets.token_hex(3)}", started, table,
                table.exists(), ensure_catalog=self.spark.ensure_catalog,
            )
            try:
                df = build(ctx, loaded)
                rows = self._collect(df, limit, loaded.source_relpath)
            finally:
                ctx.cleanup()
        return {"columns": df.columns, "rows": [row_values(r) for r in rows]}

    def query(self, sql: str) -> dict:
        if not _READ_ONLY.match(_COMMENTS.sub(" ", sql)):
            raise RatError("query is read-only: start with SELECT, WITH, SHOW, DESCRIBE or EXPLAIN")
        with self.spark.using() as spark:
            try:
                df = spark.sql(sql)
            except Exception as exc:
                message, line = summarise(exc)
                raise RatError(f"SQL error{f' on line {line}' if line else ''}: {message}") from None
            rows = self._collect(df, QUERY_ROW_LIMIT + 1, "query")
        result = {"columns": df.columns, "rows": [row_values(r) for r in rows[:QUERY_ROW_LIMIT]]}
        if len(rows) > QUERY_ROW_LIMIT:
            result["truncated"] = True
        return result

    @staticmethod
    def _collect(df, limit: int, where: str) -> list:
        try:
            return df.limit(limit).collect()
        except Exception as exc:
            message, _ = summarise(exc)
            raise RatError(f"query failed: {message}", where) from None

    # -- table history ------------------------------------------------------------------
    def _table(self, pipeline: str):
        ref = PipelineRef.parse(pipeline)
        return ref, load_table(self.project.table_dir(ref), ref.fqn)

    def table_schema(self, pipeline: str) -> str:
        ref, table = self._table(pipeline)
        return ", ".join(f"{f.name} {f.field_type}" for f in table.schema().fields)

    def rollback_table(self, pipeline: str, snapshot_id: int) -> dict:
        """Point main at any snapshot still in history (so a rollback can be undone)."""
        ref, table = self._table(pipeline)
        if table.metadata.snapshot_by_id(snapshot_id) is None:
            raise RatError(f"table {ref.fqn} has no snapshot {snapshot_id} (see `snapshots {ref.fqn}`)")
        with self.spark.using() as spark:
            self.spark.ensure_catalog(ref.namespace)
            IcebergTable(spark, ref).set_current(snapshot_id)
        return {"snapshot_id": snapshot_id}

    def table_preview(self, pipeline: str, snapshot_id: int | None = None, limit: int = 20) -> dict:
        """First rows at a snapshot, with that snapshot's schema; PyIceberg, no JVM."""
        ref, table = self._table(pipeline)
        snapshot = table.metadata.snapshot_by_id(snapshot_id) if snapshot_id else table.metadata.current_snapshot()
        if snapshot is None:
            raise RatError(f"table {ref.fqn} has no snapshot {snapshot_id}" if snapshot_id else f"table {ref.fqn} is empty")
        arrow = table.scan(snapshot_id=snapshot.snapshot_id, limit=limit).to_arrow()
        rows = [[row_value(v) for v in record.values()] for record in arrow.to_pylist()]
        return {"snapshot_id": snapshot.snapshot_id, "columns": arrow.column_names, "rows": rows}

    def diff_snapshots(self, pipeline: str, old: int, new: int, limit: int = 20) -> dict:
        """Rows added and removed between two snapshots, and schema changes."""
        ref, table = self._table(pipeline)
        meta = table.metadata
        snaps = {}
        for snapshot_id in (old, new):
            snaps[snapshot_id] = meta.snapshot_by_id(snapshot_id)
            if snaps[snapshot_id] is None:
                raise RatError(f"table {ref.fqn} has no snapshot {snapshot_id}")
        changes = schema_diff(meta, snaps[old].schema_id, snaps[new].schema_id)
        before = {f.name for f in meta.schema_by_id(snaps[old].schema_id).fields}
        common = ", ".join(f"`{f.name}`" for f in meta.schema_by_id(snaps[new].schema_id).fields if f.name in before)
        with self.spark.using() as spark:
            self.spark.ensure_catalog(ref.namespace)
            ident = IcebergTable(spark, ref).ident
            side = {sid: f"SELECT {common} FROM {ident} VERSION AS OF {sid}" for sid in (old, new)}
            added = spark.sql(f"{side[new]} EXCEPT ALL {side[old]}")
            removed = spark.sql(f"{side[old]} EXCEPT ALL {side[new]}")
            result = {
                "columns": added.columns,
                "added": added.count(), "removed": removed.count(),
                "added_rows": [row_values(r) for r in added.limit(limit).collect()],
                "removed_rows": [row_values(r) for r in removed.limit(limit).collect()],
            }
        return {**result, "schema_changes": changes}

    def compact(self, pipeline: str) -> dict:
        """Rewrite small data files into target-sized ones, as a snapshot of its own."""
        ref, table = self._table(pipeline)
        before = table_stats(table)
        target = target_file_size(self.project.settings, ref.fqn)
        with self.spark.using() as spark:
            self.spark.ensure_catalog(ref.namespace)
            try:
                IcebergTable(spark, ref).rewrite_data_files(target)
            except Exception as exc:
                message, _ = summarise(exc)
                raise RatError(f"compacting {ref.fqn} failed: {message}") from None
        after = table_stats(load_table(self.project.table_dir(ref), ref.fqn))
        return {"files_before": before["data_files"], "files_after": after["data_files"],
                "snapshot_id": after["snapshot_id"], "rows": after["rows"]}

    def doctor(self, fix: bool = False, namespace: str | None = None) -> dict:
        doctor = Doctor(self, namespace)
        findings = doctor.check()
        if fix and findings:
            doctor.fix(findings)
        result = {"findings": [f.as_dict() for f in findings]}
        unfixed = [f for f in findings if not f.fixed]
        if unfixed:
            raise RatError.with_result(
                f"{len(unfixed)} finding(s){' not fixed' if fix else ''}; first: {unfixed[0].kind} {unfixed[0].object}", result)
        return result

    # -- landing files -------------------------------------------------------------------
    def sample(self, namespace: str, zone: str, file: str | None = None, limit: int = 20) -> dict:
        """First rows of a landing file with DuckDB (no JVM); without FILE, the zone's first sample."""
        base = self.project.zone_dir(namespace, zone)
        if not base.is_dir():
            raise RatError(f"landing zone {namespace}/landing/{zone} does not exist")
        if file is None:
            candidates = sorted((base / "_samples").glob("*")) or active_landing_files(base)
            candidates = [c for c in candidates if c.suffix.lower() in LANDING_EXTENSIONS]
            if not candidates:
                raise RatError(f"landing zone {namespace}/landing/{zone} has no files to sample")
            path = candidates[0]
        else:
            path = (base / file).resolve()
            if base.resolve() not in path.parents or not path.is_file():
                raise RatError(f"no file {file} in landing zone {namespace}/landing/{zone}")
        columns, rows = read_head(path, limit)
        return {"file": path.relative_to(base.resolve() if file else base).as_posix(), "columns": columns, "rows": rows}

    def zone_settings(self, namespace: str, zone: str) -> dict:
        settings = self.project.settings
        own = settings.zones.get(f"{namespace}/{zone}") or settings.zones.get(zone) or {}
        return {"processed_max_age_days": own.get("processed_max_age_days", settings.processed_max_age_days),
                "auto_purge": bool(own.get("auto_purge", False)), "schema": own.get("schema")}

    def set_zone_settings(self, namespace: str, zone: str, **values) -> dict:
        """Change a zone's settings in rat.yaml (comments kept) and use them from now on."""
        if "processed_max_age_days" in values and not float(values["processed_max_age_days"]) > 0:
            raise RatError("processed_max_age_days must be a positive number of days")
        if not self.project.zone_dir(namespace, zone).is_dir():
            raise RatError(f"landing zone {namespace}/landing/{zone} does not exist")
        set_values(self.project.root / "rat.yaml", ["zones", f"{namespace}/{zone}"], values)
        self.project.reload_settings()
        return self.zone_settings(namespace, zone)

    def create_zone(self, namespace: str, zone: str) -> dict:
        return {"zone": self.project.rel(create_zone(self.project, namespace, zone))}

    def upload(self, namespace: str, zone: str, paths: list[str], as_name: str | None = None,
               replace: bool = False, progress=None) -> dict:
        zone_dir = create_zone(self.project, namespace, zone)
        expected = self.zone_settings(namespace, zone)["schema"]
        columns = list(expected) if isinstance(expected, dict) else expected
        files = upload(zone_dir, [Path(p).expanduser().resolve() for p in paths], as_name, replace, columns, progress)
        if self.remote:  # the file and its sample go to the bucket, where the team's runs read them
            self.remote.ensure_connected()
            self.remote.sync.sync_zone(namespace, zone)
        return {"files": files}

    def auto_purge(self, now: float | None = None) -> dict:
        """Old `_processed/` files of zones with `auto_purge: true` (at start-up and daily in the TUI)."""
        reaper = Reaper(self.project, self.state, self.versions, [], bucket=self._bucket())
        now = time.time() if now is None else now
        def wanted(zone) -> bool:
            return self.zone_settings(zone.namespace, zone.name)["auto_purge"]

        plan = PurgePlan(processed_files=reaper.processed_files(now, wanted),
                         bucket_processed_files=reaper.bucket_processed_files(now, wanted))
        reaper.apply(plan)
        counts = plan.counts()
        return {"purged": counts["processed_files"] + counts["bucket_processed_files"]}

    def _bucket(self):
        return self.remote.bucket if self.remote else None

    # -- purge -----------------------------------------------------------------------
    def purge(self, dry_run: bool = False, now: float | None = None, namespace: str | None = None) -> dict:
        reaper = Reaper(self.project, self.state, self.versions, self.table_refs(), namespace, self._bucket())
        plan = reaper.plan(now)
        if not dry_run:
            if needs_spark(plan):
                with self.spark.using() as spark:
                    reaper.apply(plan, spark, self.spark.ensure_catalog)
            else:
                reaper.apply(plan)
        return {"purged": plan.counts(), "items": plan.as_dict(), "dry_run": dry_run}

    # -- versions -----------------------------------------------------------------------
    def record_working_copy(self, ref: PipelineRef) -> dict[str, str]:
        """Version every file of the pipeline as it is now; {name: version_id}."""
        base = ref.relpath.as_posix()
        return {name: self.versions.record(f"{base}/{name}", data)
                for name, data in self.project.read_pipeline_files(ref).items()}

    def publish(self, pipeline: str, message: str = "") -> dict:
        ref = self.resolve(pipeline)
        errors = [p for p in validate(self.project, ref) if p.is_error]
        if errors:
            raise RatError(f"cannot publish {ref.fqn}: {errors[0].sentence()}")
        files = self.record_working_copy(ref)
        version = self._pin(ref, files, message, None)
        return {"version": version.version, "files": version.files}

    def list_versions(self, pipeline: str) -> dict:
        """What this folder knows (no network: the TUI calls it while browsing; with a bucket,
        colleagues' versions arrive with every check and before publish, rollback and run --published)."""
        ref = self.resolve(pipeline)
        published = self.versions.published(ref)
        return {"versions": [v.as_dict() for v in published], "current": published[-1].version if published else None}

    def rollback(self, pipeline: str, version: int | None = None, restore: bool = False) -> dict:
        ref = self.resolve(pipeline)
        self._pull_published()
        published = {v.version: v for v in self.versions.published(ref)}
        current = max(published) if published else None
        if current is None:
            raise RatError(f"{ref.fqn} has no published version to roll back")
        target = version if version is not None else current - 1
        if target not in published:
            known = ", ".join(str(v) for v in sorted(published))
            raise RatError(f"{ref.fqn} has no published version {target} (kept versions: {known})")
        chosen = published[target]
        files = self.versions.read_pinned(ref, chosen)  # fails before anything changes if a blob is bad
        pinned = self._pin(ref, chosen.files, f"rollback to version {target}", target)
        if restore:  # after the pin stands: a refused pin leaves the working folder as it was
            self.restore_files(ref, files)
        return {"version": pinned.version, "pinned_from": target}

    def _pull_published(self) -> None:
        """With a bucket: versions colleagues published since the last look (one listing)."""
        if self.remote:
            self.remote.ensure_connected()
            assert self.remote.published is not None
            self.remote.published.pull()

    def _pin(self, ref: PipelineRef, files: dict[str, str], message: str, pinned_from: int | None):
        """A new published version; with a bucket it is shared there too (or not made at all)."""
        def pin():
            return self.versions.pin(ref, files, message, pinned_from)

        keep = self.project.settings.max_versions
        version = self.remote.publish(ref, pin, keep) if self.remote else pin()
        self.versions.prune(ref, keep)  # only once the version stands (shared, with a bucket)
        return version

    def restore_files(self, ref: PipelineRef, files: dict[str, bytes]) -> None:
        """Make the working folder hold exactly `files`; the working copy is versioned first."""
        self.record_working_copy(ref)
        base = self.project.pipeline_dir(ref)
        for name in self.project.read_pipeline_files(ref):
            if name not in files:
                (base / name).unlink()
                if self.remote:
                    self.remote.sync.delete(f"{ref.relpath.as_posix()}/{name}")
        for name, data in files.items():
            self._atomic_write(base / name, data)
            if self.remote:  # the bucket's working copy follows, as a new object version
                self.versions.record(f"{ref.relpath.as_posix()}/{name}", data)

    # -- the bucket ---------------------------------------------------------------------
    def _remote(self) -> Remote:
        if self.remote is None:
            raise RatError("this project has no bucket: set storage.type: s3 (and storage.bucket) in rat.yaml")
        return self.remote

    def connect_remote(self) -> dict:
        return self._remote().connect()

    def remote_status(self) -> dict:
        remote = self._remote()
        remote.ensure_connected()
        return {"bucket": remote.bucket.where, "changes": [c.as_dict() for c in remote.status()]}

    def pull(self, paths: list[str] | None = None, force: bool = False) -> dict:
        remote = self._remote()
        remote.ensure_connected()
        return {"pulled": remote.pull(paths, force)}

    def push(self) -> dict:
        """Upload the working folder's pipelines and landing zones (e.g. a project moving to a bucket)."""
        remote = self._remote()
        remote.bucket.check()
        return remote.push()

    # -- files ----------------------------------------------------------------------
    def write(self, relpath: str, content: str) -> dict:
        """Write a project file atomically (temp file, then rename), as an editor save would."""
        target = (self.project.root / relpath).resolve()
        if self.project.root not in target.parents:
            raise RatError(f"'{relpath}' is outside the project folder")
        self._atomic_write(target, content.encode("utf-8"))
        relpath = self.project.rel(target)
        owner = self.pipeline_of(relpath)
        if owner is not None:
            self.versions.record(relpath, target.read_bytes())
        return {"path": relpath}

    def record_saves(self, relpaths: list[str]) -> dict[str, str]:
        """Version saved pipeline files (with a bucket: upload them); {path: problem} for those that failed."""
        problems = {}
        for relpath in relpaths:
            file = self.project.root / relpath
            try:
                if file.is_file():
                    self.versions.record(relpath, file.read_bytes())
                elif self.remote:  # deleted in the editor: deleted in the bucket too
                    self.remote.sync.delete(relpath)
            except RatError as exc:
                problems[relpath] = exc.sentence()
        return problems

    def pipeline_of(self, relpath: str) -> PipelineRef | None:
        """The pipeline a project file belongs to, when it is one of its versioned files."""
        parts = relpath.split("/")
        if len(parts) >= 5 and parts[1] == "pipelines":
            name = "/".join(parts[4:])
            if name in ("pipeline.sql", "pipeline.py", "config.yaml") or (
                    name.startswith("tests/quality/") and name.endswith(".sql")):
                return PipelineRef(parts[0], parts[2], parts[3])
        return None

    @staticmethod
    def _atomic_write(target: Path, data: bytes) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        temp = target.with_name(f".{target.name}.rat-tmp-{os.getpid()}")
        temp.write_bytes(data)
        os.replace(temp, target)

