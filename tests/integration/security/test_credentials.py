"""The n8n credentials of a server reach no caller and no log: neither the password of
TOOLKILN_N8N_URL nor the API key an n8n echoes back, in a deploy's answer or in the server's
own output (httpx logs every request's URL at INFO). On the main of 2026-11-28 both were in
the 502's detail, and the password in the log."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from test_server_support import ServerProcess, free_port, make_tokens

PASSWORD = "n8n-pw-do-not-show-3141"
KEY = "n8n-key-do-not-show-2718"
WORKFLOW = 'workflow hook\ndescription "A hook"\non webhook POST "/hook-1"\n'


def deploy_through_a_server(tmp_path: Path, n8n_url: str) -> tuple[int, str, str]:
    registry = tmp_path / "registry"
    tokens = make_tokens(registry)
    process = ServerProcess(registry, env={"TOOLKILN_N8N_URL": n8n_url, "TOOLKILN_N8N_API_KEY": KEY})
    try:
        with process.client(tokens["write"]) as client:
            answer = client.post("/api/v1/workflows/deploy", json={"source": WORKFLOW})
    finally:
        process.stop()
    return answer.status_code, answer.text, process.log.read_text(errors="replace")


def test_an_unreachable_n8n_shows_no_password_to_the_caller_or_in_the_log(tmp_path: Path) -> None:
    nothing_listens = free_port()
    status, body, log = deploy_through_a_server(tmp_path, f"http://admin:{PASSWORD}@127.0.0.1:{nothing_listens}")
    assert status == 502 and json.loads(body)["code"] == "R0402", body[:300]
    assert "cannot connect" in body and f"127.0.0.1:{nothing_listens}" in body
    assert PASSWORD not in body and KEY not in body
    assert PASSWORD not in log and KEY not in log


class EchoingN8n(BaseHTTPRequestHandler):
    """An n8n that quotes the key it was sent in its 401, as some proxies and old versions do."""

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        raw = json.dumps({"message": f"unauthorized: {self.headers.get('X-N8N-API-KEY')}"}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


def test_a_key_an_n8n_echoes_back_reaches_no_caller(tmp_path: Path) -> None:
    n8n = ThreadingHTTPServer(("127.0.0.1", 0), EchoingN8n)
    threading.Thread(target=n8n.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        status, body, log = deploy_through_a_server(
            tmp_path, f"http://admin:{PASSWORD}@127.0.0.1:{n8n.server_address[1]}"
        )
    finally:
        n8n.shutdown()
        n8n.server_close()
    assert status == 502 and "unauthorized: ***" in body, body[:300]
    assert PASSWORD not in body and KEY not in body
    assert PASSWORD not in log and KEY not in log
