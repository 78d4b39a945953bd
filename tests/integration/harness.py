"""What the real-n8n tests share: the deployed server's handle, deploying DSL and fixtures,
creating credentials, waiting for n8n's background work, and a fake JSON API on 127.0.0.1.

The `n8n` fixture itself (one server for the whole session) is in conftest.py.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from n8n_server import OWNER, N8nServer

from toolkiln.n8n.client import N8nClient
from toolkiln.n8n.errors import N8nBadRequest
from toolkiln.workflow import compile_workflow

FIXTURES = Path(__file__).with_name("fixtures")
WAIT = 30.0  # seconds, for anything n8n does in the background (saving executions, schedules)


class PatientClient(N8nClient):
    """The tests' client: a create that n8n answers with "SQLITE_CONSTRAINT: FOREIGN KEY
    constraint failed" is sent once more. Seen in two full CI runs (2026-11-24), each time on a
    different, well-formed workflow that n8n then took when the test ran alone: n8n's own
    SQLite write, not the workflow. Any other refusal, or a second one, fails the test."""

    def create_workflow(self, workflow: Mapping[str, Any]) -> dict[str, Any]:
        try:
            return super().create_workflow(workflow)
        except N8nBadRequest as error:
            if "SQLITE_CONSTRAINT" not in str(error):
                raise
            time.sleep(0.5)
            return super().create_workflow(workflow)


class Deployed:
    """The running server, a client with a key, and the ids to delete at the end."""

    def __init__(self, server: N8nServer, client: N8nClient, key: str) -> None:
        self.server = server
        self.client = client
        self.key = key
        self.created: list[str] = []

    def create(self, workflow: dict, *, activate: bool = False) -> dict:
        """Create the workflow under a unique name and unique webhook paths (tests share one
        server); activate it if asked. The stored workflow; `webhook_path` gives the paths."""
        workflow = json.loads(json.dumps(workflow))
        tag = uuid.uuid4().hex[:8]
        workflow["name"] = f"{workflow['name']} {tag}"
        for node in workflow["nodes"]:
            if node["type"] == "n8n-nodes-base.webhook":
                node["parameters"]["path"] = f"{node['parameters']['path']}-{tag}"
                node["webhookId"] = str(uuid.uuid4())
        created = self.client.create_workflow(workflow)
        self.created.append(created["id"])
        return self.client.activate_workflow(created["id"]) if activate else created

    def deploy(self, fixture: str, *, activate: bool = False) -> tuple[dict, str | None]:
        """A fixture of fixtures/, created (and activated); the workflow and its webhook path."""
        created = self.create(load(fixture), activate=activate)
        return created, webhook_path(created)

    def deploy_source(self, source: str) -> tuple[dict, str]:
        """Workflow DSL compiled, created and activated; the workflow and its webhook path."""
        created = self.create(compile_workflow(source).to_n8n(), activate=True)
        return created, webhook_path(created)

    def create_credential(self, type_: str, name: str, data: dict[str, Any]) -> str:
        """A credential through n8n's public API; its id."""
        created = httpx.post(
            f"{self.server.url}/api/v1/credentials",
            headers={"X-N8N-API-KEY": self.key},
            json={"name": name, "type": type_, "data": data},
            timeout=30,
        )
        assert created.status_code == 200, created.text
        return created.json()["id"]

    def credentials_named(self, name: str) -> set[str]:
        """The ids of the credentials of that name, through the owner's session: the public
        API of n8n 1.x cannot list credentials (405), 2.x's can."""
        with httpx.Client(base_url=self.server.url, timeout=30) as http:
            login = {"emailOrLdapLoginId": OWNER["email"], "password": OWNER["password"]}
            assert http.post("/rest/login", json=login).status_code == 200
            listed = http.get("/rest/credentials")
        assert listed.status_code == 200, listed.text
        return {str(c["id"]) for c in listed.json()["data"] if c["name"] == name}


def webhook_path(workflow: dict) -> str | None:
    return next(
        (node["parameters"]["path"] for node in workflow["nodes"] if node["type"] == "n8n-nodes-base.webhook"), None
    )


def load(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


def wait_for(what: str, probe: Callable[[], Any], timeout: float = WAIT) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        result = probe()
        if result:
            return result
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.5)


def webhook_removed(client: N8nClient, path: str) -> bool:
    """Whether the webhook answers 404 "not registered": n8n 2.x removes a deactivated
    workflow's webhook shortly after it answers the deactivation (until then a call runs it)."""
    return client.trigger_webhook(path, {}, raise_for_status=False).status == 404


class FakeApi:
    """A JSON API on 127.0.0.1 for n8n's http steps to call. Every request is kept in
    `received` as {method, path, query, token (the X-Token header), authorization, body}; `reply(request)`
    gives the JSON answer, None for a 404."""

    def __init__(self, reply: Callable[[dict], Any]) -> None:
        self.received: list[dict] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.answer(None)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.answer(json.loads(self.rfile.read(length) or b"null"))

            def answer(self, body: object) -> None:
                url = urlsplit(self.path)
                request = {
                    "method": self.command,
                    "path": url.path,
                    "query": {k: v[0] for k, v in parse_qs(url.query).items()},
                    "token": self.headers.get("X-Token"),
                    "authorization": self.headers.get("Authorization"),
                    "body": body,
                }
                api.received.append(request)
                answer = reply(request)
                data = json.dumps(answer).encode()
                self.send_response(404 if answer is None else 200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
