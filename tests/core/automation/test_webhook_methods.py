"""What the webhook server answers a request that is not a POST: JSON that says how, not http.server's page."""
from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from rat_tui.core.automation.webhooks import WebhookServer

@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
def test_a_request_that_is_not_a_post_is_a_405_in_json_that_says_how(method: str):
    server = WebhookServer(automation=None, port=0)  # type: ignore[arg-type]  (never reached without a POST)
    server.start()
    try:
        request = urllib.request.Request(f"{server.address}/hooks/shop.bronze.orders", method=method)
        with pytest.raises(urllib.error.HTTPError) as raised:
            urllib.request.urlopen(request, timeout=10)
        answer = raised.value
        assert answer.code == 405 and answer.headers["Allow"] == "POST"
        assert answer.headers["Content-Type"] == "application/json"
        assert json.loads(answer.read()) == {"ok": False, "run_id": None, "message": (
            "webhooks take POST: POST /hooks/NS.LAYER.NAME with Authorization: Bearer TOKEN")}
    finally:
        server.stop()
