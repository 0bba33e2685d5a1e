"""Where OpenLineage events go: always the file; an HTTP endpoint too when rat.yaml names one, and a
down endpoint loses nothing and raises nothing. No JVM: the events are built as a run would."""
from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from rat_tui.core.lineage.openlineage_events import run_event
from rat_tui.core.lineage.run_facts import RunFacts
from rat_tui.core.lineage.run_lineage import RunLineage
from rat_tui.core.lineage.run_store import LineageStore
from rat_tui.core.lineage.schemas import SchemaReader
from rat_tui.core.project.graph import GraphCache
from rat_tui.core.lineage.service import ColumnLineage
from rat_tui.core.project.model import Project
from rat_tui.core.store.state import StateDB
from rat_tui.core.store.versions import VersionStore

from .lineage_project import write_project
from .openlineage_schema import event_problems


def listener(root, url: str | None) -> RunLineage:
    if url:
        (root / "rat.yaml").write_text(f"lineage:\n  transport: http\n  url: {url}\n  timeout_seconds: 1\n")
    project = write_project(root)
    state = StateDB(project.state_dir / "state.db")
    schemas = SchemaReader(project)
    return RunLineage(project, state, ColumnLineage(project, GraphCache(project), schemas), schemas, LineageStore(state),
                      VersionStore(state, project.state_dir / "objects"))


def an_event(root):
    return run_event(root.as_uri(), RunFacts("r1", "shop.gold.big_orders", "start", 1.7e9, "sql", "SELECT 1"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def lines(root) -> list[dict]:
    return [json.loads(line) for line in (root / ".rat" / "lineage" / "events.jsonl").read_text().splitlines()]


def test_the_file_gets_every_event_by_default(tmp_path):
    listener(tmp_path, None).emit(an_event(tmp_path))
    [event] = lines(tmp_path)
    assert event["eventType"] == "START" and event_problems(event) == []


def test_an_http_endpoint_gets_the_event_too(tmp_path):
    received = []

    class Collector(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            received.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(201)
            self.end_headers()

        def log_message(self, *args) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        listener(tmp_path, f"http://127.0.0.1:{server.server_port}/api/v1/lineage").emit(an_event(tmp_path))
    finally:
        server.shutdown()
    assert received == lines(tmp_path)


def test_a_down_endpoint_raises_nothing_and_the_event_stays_in_the_file(tmp_path, caplog):
    url = f"http://127.0.0.1:{free_port()}/api/v1/lineage"
    listener(tmp_path, url).emit(an_event(tmp_path))
    assert len(lines(tmp_path)) == 1
    assert f"OpenLineage endpoint {url} did not take an event" in caplog.text


@pytest.mark.parametrize("text, problem", [
    ("lineage:\n  transport: kafka\n", "lineage.transport must be file or http, not 'kafka'"),
    ("lineage:\n  transport: http\n", "lineage.transport http needs lineage.url"),
])
def test_lineage_settings_are_checked(tmp_path, text, problem):
    (tmp_path / "rat.yaml").write_text(text)
    assert any(problem in p.message for p in Project(tmp_path).settings_problems)
