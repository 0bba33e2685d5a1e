"""A local Spark standalone cluster (one master, one worker, bound to 127.0.0.1) for trying the distributed path.

    rat-tui cluster start [PROJECT_DIR]    # then set spark.master in rat.yaml to the printed URL
    rat-tui cluster status [PROJECT_DIR]
    rat-tui cluster stop [PROJECT_DIR]

The processes run detached; their pids and ports live in `.rat/cluster.json`, their logs
in `.rat/logs/cluster-*.log`.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

from ..errors import RatError
from ..project.model import Project
from .java import find_java_home

HOST = "127.0.0.1"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _state_file(project: Project) -> Path:
    return project.state_dir / "cluster.json"


def _master_json(webui_port: int) -> dict | None:
    try:
        with urllib.request.urlopen(f"http://{HOST}:{webui_port}/json/", timeout=2) as response:
            return json.load(response)
    except OSError:
        return None


def _spark_class() -> tuple[Path, dict[str, str]]:
    import pyspark

    spark_home = Path(pyspark.__file__).parent
    env = {**os.environ, "SPARK_HOME": str(spark_home), "JAVA_HOME": str(find_java_home()), "SPARK_LOCAL_IP": HOST}
    return spark_home / "bin" / "spark-class", env


def start(project: Project, cores: int = 2, memory: str = "2g", timeout: float = 90) -> dict:
    current = status(project)
    if current["running"]:
        return current
    spark_class, env = _spark_class()
    logs = project.state_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    port, webui, worker_ui, worker_port = (_free_port() for _ in range(4))
    master_url = f"spark://{HOST}:{port}"
    commands = {
        "master": [str(spark_class), "org.apache.spark.deploy.master.Master", "--host", HOST, "--port", str(port),
                   "--webui-port", str(webui)],
        "worker": [str(spark_class), "org.apache.spark.deploy.worker.Worker", master_url, "--host", HOST,
                   "--port", str(worker_port), "--cores", str(cores), "--memory", memory, "--webui-port", str(worker_ui)],
    }
    pids = {}
    for name, command in commands.items():
        with (logs / f"cluster-{name}.log").open("ab") as log_file:
            pids[name] = subprocess.Popen(command, stdout=log_file, stderr=log_file, stdin=subprocess.DEVNULL, env=env,
                                          start_new_session=True).pid
        if name == "master":
            time.sleep(0.5)
    info = {"master_url": master_url, "webui_port": webui, "pids": pids}
    _state_file(project).write_text(json.dumps(info))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        master = _master_json(webui)
        if master and master.get("aliveworkers", 0) >= 1:
            return status(project)
        if not all(_alive(pid) for pid in pids.values()):
            break
        time.sleep(0.3)
    stop(project)
    raise RatError(f"the local cluster did not come up within {timeout:g} s; see .rat/logs/cluster-master.log "
                   "and cluster-worker.log")


def status(project: Project) -> dict:
    path = _state_file(project)
    if not path.exists():
        return {"running": False}
    info = json.loads(path.read_text())
    alive = {name: _alive(pid) for name, pid in info["pids"].items()}
    master = _master_json(info["webui_port"]) if alive.get("master") else None
    return {
        "running": all(alive.values()) and master is not None,
        "master_url": info["master_url"],
        "processes": alive,
        "workers": master.get("aliveworkers", 0) if master else 0,
        "cores": master.get("cores", 0) if master else 0,
        "memory_mb": master.get("memory", 0) if master else 0,
    }


def stop(project: Project) -> dict:
    path = _state_file(project)
    if not path.exists():
        return {"running": False, "stopped": []}
    info = json.loads(path.read_text())
    stopped = []
    for name, pid in info["pids"].items():
        if _alive(pid):
            try:
                os.killpg(pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            stopped.append(name)
    deadline = time.monotonic() + 15
    while any(_alive(pid) for pid in info["pids"].values()) and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in info["pids"].values():
        if _alive(pid):
            os.killpg(pid, signal.SIGKILL)
    path.unlink()
    return {"running": False, "stopped": stopped}
