"""The managed SparkSession: started once in the background, shared by every run and query."""
from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import threading
import time
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..errors import RatError
from ..events import EventBus, SessionStateChanged
from ..project.model import Project
from .class_sharing import archive_path, make_in_background, sharing_options
from .java import LOCAL_FILE_SYSTEM, driver_class_path, find_java_home, iceberg_jar
from .jvm_exit import LaunchedJvm, survived_out_of_memory
from .jvm_names import java_class, static_method
from .run_session import RunSession
from .scratch_space import process_scratch
from .spark_errors import summarise

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)

_LOG4J = """\
rootLogger.level = {level}
rootLogger.appenderRef.file.ref = file
appender.file.type = File
appender.file.name = file
appender.file.fileName = {path}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{{yy/MM/dd HH:mm:ss}} %p %c{{1}}: %m%n
"""


class SessionState(str, Enum):
    STOPPED = "stopped"
    STARTING = "starting"
    READY = "ready"
    BUSY = "busy"
    FAILED = "failed"


def catalog_conf(namespace: str, warehouse: str, catalog_type: str, properties: dict[str, str]) -> dict[str, str]:
    """Spark settings registering one Iceberg catalog named after the namespace (`warehouse` is a URI)."""
    prefix = f"spark.sql.catalog.{namespace}"
    conf = {prefix: "org.apache.iceberg.spark.SparkCatalog", f"{prefix}.cache-enabled": "false",
            f"{prefix}.warehouse": warehouse}
    if catalog_type == "jdbc":
        # One catalog name per namespace in one database keeps tables `ns.layer.name`.
        conf[f"{prefix}.catalog-impl"] = "org.apache.iceberg.jdbc.JdbcCatalog"
    else:
        conf[f"{prefix}.type"] = catalog_type
    for key, value in properties.items():
        conf[f"{prefix}.{key}"] = expand_environment(value.replace("{namespace}", namespace), key)
    return conf


S3_CLASSES = {
    # S3FileIO itself ships in the runtime jar; the AWS SDK it needs comes with the bundle.
    "software.amazon.awssdk.services.s3.S3Client": "org.apache.iceberg:iceberg-aws-bundle:1.10.2",
    "org.apache.hadoop.fs.s3a.S3AFileSystem": "org.apache.hadoop:hadoop-aws:3.3.4",
}


def check_s3_jars(spark: "SparkSession", conf: dict[str, str]) -> None:
    """A catalog that keeps data on S3 needs Spark's S3 jars: say exactly that, before any query."""
    on_s3 = sorted(k.rsplit(".", 1)[0].removeprefix("spark.sql.catalog.") for k, v in conf.items()
                   if k.endswith(".warehouse") and v.startswith(("s3://", "s3a://")))
    if not on_s3:
        return
    jvm = spark.sparkContext._jvm
    loader = jvm.Thread.currentThread().getContextClassLoader()
    missing = []
    for name, package in S3_CLASSES.items():
        try:
            jvm.Class.forName(name, False, loader)
        except Exception:
            missing.append(package)
    if missing:
        raise RatError(
            f"the catalog of {', '.join(on_s3)} keeps data on S3, but Spark's S3 jars are missing: add "
            f"{' and '.join(missing)} to spark.jars_packages in rat.yaml (or their jar files to spark.extra_jars)")


def expand_environment(value: str, key: str) -> str:
    """`${NAME}` from the environment, so credentials never live in rat.yaml."""
    def lookup(match: re.Match) -> str:
        name = match.group(1)
        if name not in os.environ:
            raise RatError(f"rat.yaml catalog property {key} uses ${{{name}}}, which is not set in the environment")
        return os.environ[name]

    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", lookup, value)


class WarehouseStorage(Protocol):
    """What the session needs of the storage seam (core/storage.py): where tables live, and its settings."""

    def warehouse_uri(self, namespace: str) -> str: ...

    def spark_conf(self) -> dict[str, str]: ...


# A process that runs one script and exits spends a cold start's CPU largely in C2 compiling methods that
# were hot only while Spark started. Later C2 thresholds (about 10x) cut the JVM's CPU for a cold query by
# a fifth and did not slow a 200M-row aggregate (measured: docs/performance.md); a long-lived engine (the
# TUI, `serve`) keeps the defaults, which reach peak speed sooner. C1 alone (TieredStopAtLevel=1) starts
# faster still but made that aggregate 2.7x slower, so it is not used.
ONE_SHOT_JIT = ("-XX:Tier4InvocationThreshold=50000", "-XX:Tier4MinInvocationThreshold=20000",
                "-XX:Tier4CompileThreshold=60000")
# `RAT_TUI_JIT=quick` (a CI machine, a test suite: many short sessions on small data, every core busy):
# C1 alone, whatever the process. The suite's Spark JVMs spent three quarters of their CPU in C2
# compiling; with C1 alone they used a quarter less CPU (measured: docs/performance.md). C1 alone also
# shrinks the code cache to 48 MB (tiered's is 240 MB): Spark's generated code filled it, and the JDK 17
# code sweeper, flushing to make room, became a worker JVM's busiest thread (48 s of its 285 s of CPU);
# tiered's size back stopped that and cut a subset's JVM CPU by 40 %.
SPARE_DELAY = 0.2  # seconds after a run session is given back, the next one is made (_spare_later)
QUICK_JIT = ("-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=240m")


def jit_options(one_shot: bool) -> tuple[str, ...]:
    if os.environ.get("RAT_TUI_JIT", "").strip().lower() == "quick":
        return QUICK_JIT
    return ONE_SHOT_JIT if one_shot else ()


def write_no_checksum_files(spark: "SparkSession") -> None:
    """Local files without Hadoop's `.crc` sidecars. Its local file system checksums every byte written and
    writes a second file for each data, manifest and metadata file (a warm 10k-row run spent about a sixth
    of its time so); Iceberg keeps each file's size in its metadata, and no other engine reads them. The
    switch is on the file system instance Hadoop caches for the JVM, the one Spark's and Iceberg's writes
    get (`fs.file.impl` = RawLocalFileSystem instead fails Spark's local checkpoints: it has no scheme)."""
    local = static_method(spark, "org.apache.hadoop.fs.FileSystem.getLocal")(spark._jsc.hadoopConfiguration())
    local.setWriteChecksum(False)


class SparkManager:
    """Owns the one SparkSession of the process and reports its state on the event bus.

    `one_shot`: the process runs one script and exits (its JVM is tuned to start, see ONE_SHOT_JIT)."""

    def __init__(self, project: Project, events: EventBus, storage: WarehouseStorage, one_shot: bool = False):
        self.project = project
        self.one_shot = one_shot
        self.events = events
        self.storage = storage
        self.state = SessionState.STOPPED
        self.reason = ""
        self._spark: SparkSession | None = None
        self._jvm: LaunchedJvm | None = None
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._starter: threading.Thread | None = None
        self._catalogs: set[str] = set()
        self._active = 0
        # SQL settings every run session starts from (launch settings plus catalogs registered
        # since), and the run sessions alive now, which a newly registered catalog must reach.
        self._sql_conf: dict[str, str] = {}
        self._local_resources: tuple[SparkSession, tuple[int, int]] | None = None
        # _sql_conf as a Java Properties on the JVM of the session it was made for (see _run_session)
        self._run_settings: tuple[SparkSession, object] | None = None
        self._children: list[SparkSession] = []
        self._kept: dict[str, SparkSession] = {}  # isolated sessions reused by name (`using(keep=…)`)
        self._conf_lock = threading.Lock()
        self._idle: tuple[str, threading.Event] | None = None  # work nobody waits for: (job group, stop)
        # A run session made ahead, while nothing waits (see _run_session); among _children, so catalogs
        # registered meanwhile reach it. (parent, session).
        self._spare: tuple[SparkSession, SparkSession] | None = None
        self._spare_timer: threading.Timer | None = None
        self.start_seconds: float | None = None

    # -- state ------------------------------------------------------------------
    def _set_state(self, state: SessionState, reason: str = "") -> None:
        self.state, self.reason = state, reason
        self.events.publish(SessionStateChanged(state.value, reason, self.project.settings.spark_master,
                                                *self.resources))

    @property
    def resources(self) -> tuple[int, int]:
        """(executors besides the driver, total cores), as Spark sees them now. A local session's never
        change: asked once per session, not at every state change (six JVM round trips, twice a run)."""
        spark = self._spark
        if spark is None:
            return 0, 0
        known = self._local_resources
        if known is not None and known[0] is spark:
            return known[1]
        try:
            sc = spark.sparkContext
            figures = max(sc._jsc.sc().getExecutorMemoryStatus().size() - 1, 0), sc.defaultParallelism
        except Exception:  # the gateway is going away
            return 0, 0
        if sc.master.startswith("local"):
            self._local_resources = (spark, figures)
        return figures

    def start_background(self) -> None:
        """Start the session in a thread unless it is already starting or running."""
        with self._lock:
            if self._starter is not None and (self._starter.is_alive() or self._spark is not None):
                return
            self._ready.clear()
            self._starter = threading.Thread(target=self._start, name="spark-start", daemon=True)
            self._set_state(SessionState.STARTING)
            self._starter.start()

    def session(self, timeout: float | None = None) -> "SparkSession":
        """The ready session, starting it if needed (again, when its JVM died since); raises RatError when
        it failed to start."""
        jvm = self._jvm
        if jvm is not None and jvm.exit_code() is not None:
            self._forget(jvm)
        if self._spark is None:
            if self.state in (SessionState.STOPPED, SessionState.FAILED):
                self.start_background()
            if not self._ready.wait(timeout):
                raise RatError(f"the Spark session did not start within {timeout:.0f} s")
        if self._spark is None:
            raise RatError(f"the Spark session failed to start: {self.reason}")
        return self._spark

    @contextlib.contextmanager
    def using(self, isolated: bool = False, keep: str | None = None) -> Iterator["SparkSession"]:
        """The session, marked busy while the block runs.

        `isolated=True` gives the block a session of its own for user code (a run, a preview,
        a query): it shares the JVM, cache and catalogs but not SQL settings or temp views, so
        a pipeline's `spark.conf.set(...)` never reaches another run, and its `stop()` is refused.
        `keep=NAME` gives an isolated session made once and reused under that name: only for SQL
        that cannot change a session (the console's read-only statements), where a new session
        per statement cost a fresh catalog and its settings each time.
        """
        spark, jvm = self.session(), self._jvm
        with self._lock:
            self._active += 1
            if self._active == 1:
                self._set_state(SessionState.BUSY)
            idle, self._idle = self._idle, None
        if idle is not None:  # a real run or query never waits behind the warm-up
            idle[1].set()
            spark.sparkContext.cancelJobGroup(idle[0])
        child = self._kept_session(spark, keep) if keep else self._run_session(spark) if isolated else None
        try:
            yield child or spark
        except Exception as exc:
            # Once the JVM is gone every call fails with "Connection refused": say what happened to it
            if jvm is not None and jvm.died_of(exc):
                self._forget(jvm)
                raise RatError(jvm.sentence(self.project.settings.spark_driver_memory)) from exc
            out_of_memory = survived_out_of_memory(exc, self.project.settings.spark_driver_memory)
            if out_of_memory is not None:
                raise RatError(out_of_memory) from exc
            raise
        finally:
            if child is not None and not keep:
                with self._conf_lock:
                    self._children.remove(child)
                self._spare_later(spark)
            with self._lock:
                self._active -= 1
                if self._active == 0 and self._spark is not None:
                    self._set_state(SessionState.READY)

    @contextlib.contextmanager
    def idle_work(self, group: str) -> Iterator[tuple["SparkSession", threading.Event]]:
        """A session of its own for work nobody waits for (the warm-up), its jobs in `group`. The
        event is set, and the group's jobs cancelled, as soon as anything enters `using()`; the
        session stays READY (not BUSY) meanwhile, so the status bar says nothing of it."""
        spark = self.session()
        stop = threading.Event()
        child = RunSession(spark)  # not among _children: the catalogs it needs are set on it alone
        with self._lock:
            if self._active:
                stop.set()
            else:
                self._idle = (group, stop)
        child.sparkContext.setJobGroup(group, "rat idle work", interruptOnCancel=True)
        try:
            yield child, stop
        finally:
            child.sparkContext.setLocalProperty("spark.jobGroup.id", None)
            with self._lock:
                if self._idle is not None and self._idle[1] is stop:
                    self._idle = None

    def _kept_session(self, spark: "SparkSession", name: str) -> "SparkSession":
        with self._lock:
            child = self._kept.get(name)
        if child is None:
            made = self._run_session(spark)
            with self._lock:
                child = self._kept.setdefault(name, made)
            if child is not made:  # another thread made one meanwhile: that one is kept
                with self._conf_lock:
                    self._children.remove(made)
        return child

    def _run_session(self, spark: "SparkSession") -> "SparkSession":
        """A session of its own: the one made ahead when there is one. Made as a run starts, after the JVM sat
        idle, it cost a warm save's run 15-25 ms (an idle JVM answers its first calls slowly); made ahead, the
        run's first call is its table's load."""
        with self._conf_lock:
            spare, self._spare = self._spare, None
            if spare is not None and spare[0] is not spark:  # made on a JVM since replaced
                self._children.remove(spare[1])
                spare = None
        return spare[1] if spare is not None else self._new_run_session(spark)

    def _spare_later(self, spark: "SparkSession") -> None:
        """Make the next run session SPARE_DELAY after this one ends (its run's last events are out by then)."""
        if self.one_shot:  # one script, one run: nothing would take it
            return
        with self._conf_lock:
            if self._spare is not None or self._spare_timer is not None:
                return
            self._spare_timer = timer = threading.Timer(SPARE_DELAY, self._make_spare, (spark,))
        timer.daemon = True
        timer.start()

    def _make_spare(self, spark: "SparkSession") -> None:
        made = None
        try:
            if self._spark is spark:  # not stopped, nor its JVM dead, meanwhile
                made = self._new_run_session(spark)
        except Exception:  # the JVM going away under it: a run makes its own session then
            log.debug("making a run session ahead failed", exc_info=True)
        with self._conf_lock:
            self._spare_timer = None
            if made is not None and self._spare is None and self._spark is spark:
                self._spare, made = (spark, made), None
            if made is not None:  # another was made meanwhile, or the session went
                self._children.remove(made)

    def _new_run_session(self, spark: "SparkSession") -> "SparkSession":
        """A session of its own with every SQL setting of the root's (launch settings and catalogs registered
        since), copied in one call on the JVM's side: one `conf.set` per setting was a round trip each, about
        17 a run with a few namespaces and more with every namespace registered."""
        child = RunSession(spark)
        with self._conf_lock:
            child._jsparkSession.sessionState().conf().setConf(self._run_settings_of(spark))
            self._children.append(child)
        return child

    def _run_settings_of(self, spark: "SparkSession"):  # -> java.util.Properties (py4j)
        """What a run session starts from, made once per JVM (ensure_catalog adds to it); under _conf_lock.
        Static settings (fixed at launch, shared by every session) are left out: setting one is refused."""
        if self._run_settings is not None and self._run_settings[0] is spark:
            return self._run_settings[1]
        settings = java_class(spark, "java.util.Properties")()
        is_static = static_method(spark, "org.apache.spark.sql.internal.SQLConf.isStaticConfigKey")
        for key, value in self._sql_conf.items():
            if not is_static(key):
                settings.setProperty(key, value)
        settings.setProperty("spark.sql.runSQLOnFiles", "false")  # no `text.\`/etc/passwd\`` from user SQL
        self._run_settings = (spark, settings)
        return settings

    def ensure_catalog(self, namespace: str) -> None:
        """Register the namespace's Iceberg catalog (namespaces may appear while the app runs)."""
        if namespace in self._catalogs:
            return
        spark = self.session()
        settings = self.project.settings
        with self._conf_lock:
            for key, value in catalog_conf(
                namespace, self.storage.warehouse_uri(namespace), settings.catalog_type, settings.catalog_properties
            ).items():
                spark.conf.set(key, value)
                self._sql_conf[key] = value
                if self._run_settings is not None and self._run_settings[0] is spark:
                    self._run_settings[1].setProperty(key, value)
                for child in self._children:
                    child.conf.set(key, value)
            self._catalogs.add(namespace)

    # -- start and stop -----------------------------------------------------------
    def _conf(self, logs: Path, java_home: Path) -> dict[str, str]:
        settings = self.project.settings
        log4j = logs / "log4j2.properties"
        log4j.write_text(_LOG4J.format(level=settings.spark_log_level.lower(), path=logs / "spark.log"))
        jars = ",".join(settings.spark_jars) if settings.spark_jars is not None else str(iceberg_jar())
        jars = ",".join([jars, *settings.spark_extra_jars]) if settings.spark_extra_jars else jars
        class_path = driver_class_path(settings.spark_conf.get("spark.driver.extraClassPath"))
        sharing = sharing_options(archive_path(java_home, jars, class_path)) if settings.spark_class_sharing else []
        local = settings.spark_master.startswith("local")
        # a cluster's executors keep their scratch on their machines
        scratch = process_scratch() if local else None
        java_opts = " ".join([f"-Dlog4j2.configurationFile={log4j.as_uri()}", *sharing,
                              *jit_options(self.one_shot), *([f"-Djava.io.tmpdir={scratch}"] if scratch else [])])
        conf = {
            "spark.app.name": f"rat-tui {self.project.root.name}",
            "spark.master": settings.spark_master,
            "spark.jars": jars,
            "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.session.timeZone": "UTC",
            "spark.driver.host": "127.0.0.1",
            "spark.driver.bindAddress": "127.0.0.1",
            "spark.sql.shuffle.partitions": "8",
            # A bad number in the data is an error, not a silent NULL (TRY_CAST stays lenient).
            "spark.sql.ansi.enabled": "true",
            # User SQL reads tables, never files by path (``SELECT * FROM text.`/etc/passwd` ``).
            "spark.sql.runSQLOnFiles": "false",
            "spark.driver.extraJavaOptions": java_opts,
            "spark.executor.extraJavaOptions": java_opts,
            "spark.sql.warehouse.dir": (self.project.state_dir / "spark-warehouse").as_uri(),
            # Executors of a cluster run Python pipeline code with the driver's interpreter.
            "spark.pyspark.python": sys.executable,
        }
        if scratch is not None:
            conf["spark.local.dir"] = str(scratch)
        if local:  # a cluster's executors have no such class; a local session's run in this JVM
            conf["spark.hadoop.fs.file.impl"] = LOCAL_FILE_SYSTEM
        if settings.spark_jars_packages:
            conf["spark.jars.packages"] = ",".join(settings.spark_jars_packages)
        if settings.spark_driver_memory:
            conf["spark.driver.memory"] = settings.spark_driver_memory
        for ns in self.project.scan().namespaces:
            conf.update(
                catalog_conf(ns.name, self.storage.warehouse_uri(ns.name), settings.catalog_type, settings.catalog_properties)
            )
        conf.update(self.storage.spark_conf())
        conf.update(settings.spark_conf)
        conf["spark.driver.extraClassPath"] = class_path
        return conf

    def _start(self) -> None:
        began = time.monotonic()
        try:
            java_home = find_java_home()
            os.environ["JAVA_HOME"] = str(java_home)
            logs = self.project.state_dir / "logs"
            logs.mkdir(parents=True, exist_ok=True)
            conf = self._conf(logs, java_home)
            spark_log = logs / "spark.log"
            log_since = spark_log.stat().st_size if spark_log.exists() else 0
            spark = _launch(conf, spark_log)
            process = getattr(spark.sparkContext._gateway, "proc", None)
            self._jvm = LaunchedJvm(process, spark_log, log_since) if process is not None else None
            check_s3_jars(spark, conf)
            write_no_checksum_files(spark)
            spark.sparkContext.setLogLevel(self.project.settings.spark_log_level.upper())
            self._catalogs = {k.split(".")[3] for k in conf if k.count(".") == 3 and k.startswith("spark.sql.catalog.")}
            self._sql_conf = {k: v for k, v in conf.items() if k.startswith("spark.sql.")}
            self._spark = spark
            self.start_seconds = time.monotonic() - began
            log.info("Spark session ready in %.1f s (master %s)", self.start_seconds, conf["spark.master"])
            self._set_state(SessionState.READY)
            if self.project.settings.spark_class_sharing:  # after the start, so it never delays one
                class_path = conf["spark.driver.extraClassPath"]
                make_in_background(archive_path(java_home, conf["spark.jars"], class_path), conf["spark.jars"],
                                   class_path, java_home)
        except RatError as exc:
            self._set_state(SessionState.FAILED, exc.sentence())
        except Exception as exc:
            log.exception("Spark session failed to start")
            self._set_state(SessionState.FAILED, f"{type(exc).__name__}: {summarise(exc)[0]}; see .rat/logs/spark.log")
        finally:
            self._ready.set()

    def stop(self) -> None:
        with self._lock:
            spark, self._spark = self._spark, None
        if spark is not None:
            try:
                spark.stop()
            except Exception:
                log.exception("stopping Spark failed")
        self._drop_sessions()
        self._set_state(SessionState.STOPPED)

    def _forget(self, jvm: LaunchedJvm) -> None:
        """Drop a session whose JVM died, so the next `session()` launches a new JVM: PySpark would
        otherwise hand out the dead one's gateway again."""
        from pyspark import SparkContext
        from pyspark.sql import SparkSession

        with self._lock:
            if self._jvm is not jvm:  # another thread forgot it already
                return
            self._jvm, self._spark = None, None
        log.error("Spark's JVM exited with code %s", jvm.exit_code())
        context = SparkContext._active_spark_context
        server = getattr(context, "_accumulatorServer", None)
        if server is not None:
            server.shutdown()
        with SparkContext._lock:
            gateway = SparkContext._gateway
            SparkContext._active_spark_context = SparkContext._gateway = SparkContext._jvm = None
        SparkSession._instantiatedSession = SparkSession._activeSession = None
        if gateway is not None:
            try:
                gateway.shutdown()
            except Exception:  # its sockets lead nowhere now
                log.debug("closing the dead JVM's gateway", exc_info=True)
        self._drop_sessions()
        self._set_state(SessionState.STOPPED, jvm.sentence(self.project.settings.spark_driver_memory))

    def _drop_sessions(self) -> None:
        self._catalogs.clear()
        with self._conf_lock:
            spare = [self._spare[1]] if self._spare is not None else []
            self._children = [c for c in self._children if c not in self._kept.values() and c not in spare]
            self._kept.clear()
            self._spare = None
        self._starter = None
        self._ready.clear()


def _launch(conf: dict[str, str], log_path: Path) -> "SparkSession":
    """Start the JVM with its stdout and stderr in the log file.

    The JVM inherits the terminal otherwise, and its start-up chatter would draw over the
    TUI (Textual itself writes to stderr, so redirecting our own fd 2 is no option).
    """
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway
    from pyspark.sql import SparkSession

    if SparkContext._active_spark_context is not None or SparkContext._gateway is not None:
        # A second Workbench in one process (tests), or a restart: PySpark reuses its JVM.
        builder = SparkSession.builder
        for key, value in conf.items():
            builder = builder.config(key, value)
        return builder.getOrCreate()
    spark_conf = SparkConf(loadDefaults=False).setAll(list(conf.items()))
    with log_path.open("ab") as log_file:
        gateway = launch_gateway(spark_conf, popen_kwargs={"stdout": log_file, "stderr": log_file})
    context = SparkContext(conf=spark_conf, gateway=gateway)
    return SparkSession(context)
