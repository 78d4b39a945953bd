"""Red team: the smaller findings of the security review (issue 24, item 10) that go through the
server, against a real `toolkiln serve` process on 127.0.0.1.

A lone surrogate (`"\\ud800"` in JSON text) answered 500 on ten routes, and an n8n answer without
`id` answered 500 from the deploy route; on the main of 2026-11-24 each test here failed. (wget's
findings are not reachable through the server: tests/unit/llm/test_wget.py and
test_public_addresses.py hold their reproducers, against real sockets on 127.0.0.1.)"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from test_server_support import ServerProcess, compute_tool, make_tokens

LONE = "\\ud800"  # as JSON text: the escape of half a UTF-16 pair
TEXT_TOOL = 'tool doubled(x: number) description "Dou@bles" {\n  return x * 2\n}'
WORKFLOW = 'workflow hook\ndescription "A hook"\non webhook POST "/hook-@"\n'
# One request per route that answered 500: method, path, and the body with @ where the surrogate goes.
ROUTES = [
    ("POST", "/api/v1/tools", {"definition": {**compute_tool("made"), "@notes": "a key"}}),
    ("POST", "/api/v1/tools", {"definition": TEXT_TOOL}),
    ("POST", "/api/v1/tools/test", {"definition": TEXT_TOOL, "args": {"x": 1}}),
    ("POST", "/api/v1/tools/validate", {"definition": {**compute_tool("checked"), "@notes": "a key"}}),
    ("POST", "/api/v1/check", {"source": TEXT_TOOL}),
    ("PATCH", "/api/v1/tools/ship", {"changes": {"@description": "New"}}),
    ("POST", "/api/v1/tools/ship/execute", {"args": {"@x": 1}}),
    ("POST", "/api/v1/workflows/compile", {"source": WORKFLOW}),
    ("POST", "/api/v1/workflows/deploy", {"source": WORKFLOW}),
    ("POST", "/api/tools", {**compute_tool("seeded"), "@notes": "a key"}),
    ("PUT", "/api/tools/ship", compute_tool("@ship")),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    registry = tmp_path_factory.mktemp("small") / "registry"
    tokens = make_tokens(registry)
    process = ServerProcess(registry)
    with process.client(tokens["admin"]) as client:
        assert client.post("/api/v1/tools", json={"definition": compute_tool("ship")}).status_code == 201
    process.tokens = tokens
    yield process
    process.stop()


@pytest.mark.parametrize(("method", "path", "body"), ROUTES, ids=[f"{m} {p}" for m, p, _ in ROUTES])
def test_a_lone_surrogate_in_a_definition_is_a_coded_4xx_not_a_500(
    server: ServerProcess, method: str, path: str, body: dict[str, Any]
) -> None:
    text = json.dumps(body).replace("@", LONE)
    with server.client(server.tokens["admin"]) as client:
        answer = client.request(method, path, content=text, headers={"Content-Type": "application/json"})
        assert client.get("/health").status_code == 200
    assert answer.status_code < 500 or answer.status_code == 503, answer.text[:300]  # 503: no n8n configured
    if answer.status_code >= 400:
        problem = answer.json()
        assert problem["code"] and problem["code"] != "R0508" and problem["status"] == answer.status_code
        assert "\\ud800" in answer.text  # quoted back as the escape the client sent


class NoIdN8n(BaseHTTPRequestHandler):
    """An "n8n" whose answer to creating a workflow has no `id` (a proxy, another server, a future
    version): the deploy route indexed it and answered 500."""

    created: list[dict[str, Any]] = []

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:  # the list by name: none yet
        self.answer({"data": [], "nextCursor": None})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        NoIdN8n.created.append(body)
        self.answer({"name": body.get("name"), "active": False})

    def answer(self, data: Any) -> None:
        raw = json.dumps(data).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


def test_an_n8n_answer_without_id_is_r0402_not_a_500(tmp_path: Path) -> None:
    n8n = ThreadingHTTPServer(("127.0.0.1", 0), NoIdN8n)
    threading.Thread(target=n8n.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    registry = tmp_path / "registry"
    tokens = make_tokens(registry)
    url = f"http://127.0.0.1:{n8n.server_address[1]}"
    process = ServerProcess(registry, env={"TOOLKILN_N8N_URL": url, "TOOLKILN_N8N_API_KEY": "k"})
    try:
        with process.client(tokens["write"]) as client:
            answer = client.post("/api/v1/workflows/deploy", json={"source": WORKFLOW.replace("@", "1")})
    finally:
        process.stop()
        n8n.shutdown()
        n8n.server_close()
    assert NoIdN8n.created, "the deploy did not reach the fake n8n"
    assert answer.status_code == 502, answer.text[:300]
    problem = answer.json()
    assert problem["code"] == "R0402" and "no `id`" in problem["detail"]
