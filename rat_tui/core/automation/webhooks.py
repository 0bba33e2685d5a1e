"""`POST /hooks/NS.LAYER.NAME` with `Authorization: Bearer TOKEN`: the webhook trigger, on stdlib http.server.

Answers JSON `{"ok", "message", "run_id"}`: 202 run queued, 401 missing or wrong token (no run), 404 no such
webhook, 405 not a POST, 409 overlap, 429 inside the cooldown. Binds 127.0.0.1 unless told otherwise.
"""
from __future__ import annotations

import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .service import Automation

log = logging.getLogger(__name__)
PREFIX = "/hooks/"


def _handler(automation: Automation) -> type[BaseHTTPRequestHandler]:
    class Hooks(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(min(length, 1 << 20))  # a body is allowed and ignored
            if not self.path.startswith(PREFIX):
                self._answer(404, "webhooks are at POST /hooks/NS.LAYER.NAME")
                return
            auth = self.headers.get("Authorization") or ""
            token = auth[len("Bearer "):].strip() if auth.startswith("Bearer ") else None
            answer = automation.webhook(self.path[len(PREFIX):].strip("/"), token)
            self._answer(answer.status, answer.message, answer.run_id)

        def _not_post(self) -> None:  # http.server's own answer was an HTML page saying 501
            self._answer(405, "webhooks take POST: POST /hooks/NS.LAYER.NAME with Authorization: Bearer TOKEN",
                         allow="POST")

        do_GET = do_PUT = do_DELETE = do_PATCH = _not_post  # noqa: N815 (http.server's names)

        def _answer(self, status: int, message: str, run_id: str | None = None, allow: str | None = None) -> None:
            body = json.dumps({"ok": status == 202, "message": message, "run_id": run_id}).encode()
            self.send_response(status)
            if allow:
                self.send_header("Allow", allow)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (http.server's name)
            log.info("webhook %s", format % args)

    return Hooks


class WebhookServer:
    def __init__(self, automation: Automation, bind: str = "127.0.0.1", port: int = 8765):
        self.server = ThreadingHTTPServer((bind, port), _handler(automation))
        self.server.daemon_threads = True

    @property
    def address(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> None:
        threading.Thread(target=self.server.serve_forever, name="webhooks", daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
