"""A throw-away PostgreSQL server for the JDBC-catalog tests, from Debian's packages.

The packages are installed when missing (the test machines run as root with apt); a
machine where that is impossible fails the test with the reason, never skips it.
"""
from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

JDBC_JAR = Path("/usr/share/java/postgresql.jar")
PACKAGES = ["postgresql", "libpostgresql-jdbc-java"]


def _bin_dir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def ensure_installed() -> Path:
    if _bin_dir() is None or not JDBC_JAR.exists():
        if os.geteuid() != 0 or shutil.which("apt-get") is None:
            raise RuntimeError(f"PostgreSQL and its JDBC driver are missing; install the Debian packages {PACKAGES}")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env, capture_output=True)
        subprocess.run(["apt-get", "install", "-y", "-qq", *PACKAGES], check=True, env=env, capture_output=True)
    bin_dir = _bin_dir()
    if bin_dir is None or not JDBC_JAR.exists():
        raise RuntimeError(f"installing {PACKAGES} did not provide initdb and {JDBC_JAR}")
    return bin_dir


class PostgresServer:
    def __init__(self) -> None:
        self.bin = ensure_installed()
        # Outside pytest's tmp tree: that is private to root, and the server runs as `postgres`.
        self.base = Path(tempfile.mkdtemp(prefix="rat-pg-"))
        self.data = self.base / "pgdata"
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def _run(self, *command: str) -> None:
        subprocess.run([*self.as_user, *command], check=True, capture_output=True, text=True)

    def start(self) -> "PostgresServer":
        self.data.mkdir(parents=True)
        if self.as_user:
            os.chmod(self.base, 0o755)
            shutil.chown(self.data, "postgres", "postgres")
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres")
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.data / "server.log"), "-w", "-o",
                  f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1", "start")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-c",
                               "CREATE DATABASE rat"], capture_output=True).returncode == 0:
                return self
            time.sleep(0.3)
        raise RuntimeError("PostgreSQL did not accept connections")

    def stop(self) -> None:
        subprocess.run([*self.as_user, str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop"],
                       capture_output=True)
        shutil.rmtree(self.base, ignore_errors=True)

    @property
    def jdbc_url(self) -> str:
        return f"jdbc:postgresql://127.0.0.1:{self.port}/rat"
