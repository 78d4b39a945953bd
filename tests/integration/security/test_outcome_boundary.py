"""Red team: the registry's one door. Whatever a client sends to change a tool through a real
`toolkiln serve` (REST, the seed's routes, the web page), a refusal is the Outcome of
`Registry.apply`: problem details whose every error has a code and a hint, one message, and
nothing written. On the main before `apply` a definition's diagnostics reached a client
without a hint where the checker gave none (E0301 here), and each route said its own detail."""

from __future__ import annotations

import json

import pytest
from test_server_support import ServerProcess, compute_tool, make_token, make_tokens

UNCHECKED = compute_tool("lists", "[1, 2] * x")  # E0301: the checker gives no hint of its own


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    registry = tmp_path_factory.mktemp("outcome") / "registry"
    tokens = make_tokens(registry)
    tokens["model"] = make_token(registry, "agent", "admin", "model")
    process = ServerProcess(registry)
    process.tokens = tokens
    with process.client(tokens["admin"]) as http:
        assert http.post("/api/v1/tools", json={"definition": compute_tool("double")}).status_code == 201
    yield process
    process.stop()


def refused(answer, status: int, code: str, tool: str) -> dict:
    body = answer.json()
    assert (answer.status_code, body["code"]) == (status, code), answer.text
    assert body["detail"].startswith(f"`{tool}` failed"), body["detail"]
    assert body["diagnostics"] and all(len(d) == 16 and d["code"] and d["hint"] for d in body["diagnostics"])
    return body


def test_every_refused_change_is_coded_hinted_and_writes_nothing(server):
    audit = server.registry / "audit.jsonl"
    before = audit.read_text()
    with server.client(server.tokens["admin"]) as http:
        refused(http.post("/api/v1/tools", json={"definition": UNCHECKED}), 422, "E0301", "lists")
        refused(http.post("/api/tools", json=UNCHECKED), 422, "E0301", "lists")  # the seed's create
        refused(http.put("/api/tools/double", json={**UNCHECKED, "name": "double"}), 422, "E0301", "double")
        refused(http.post("/api/v1/tools", json={"definition": compute_tool("double")}), 409, "R0103", "double")
        refused(http.patch("/api/v1/tools/nothing", json={"changes": {"description": "x"}}), 404, "R0102", "nothing")
        refused(http.post("/api/v1/tools/double/approve"), 409, "R0202", "double")
        refused(http.post("/api/v1/tools/double/rollback", json={"version": 5}), 404, "R0102", "double")
    with server.client(server.tokens["model"]) as http:
        refused(http.delete("/api/v1/tools/double"), 403, "R0201", "double")  # a person's tool
        refused(http.delete("/api/tools/double"), 403, "R0201", "double")
        refused(http.post("/api/v1/tools/double/disable"), 403, "R0201", "double")
    with server.client(server.tokens["admin"]) as http:
        shown = http.get("/api/v1/tools/double").json()
    assert (shown["version"], shown["status"]) == (1, "active")
    assert audit.read_text() == before  # not one line: nothing was changed


def test_a_refused_save_on_the_web_page_shows_the_outcomes_errors(server):
    with server.client() as browser:
        page = browser.get("/ui/sign-in")
        csrf = page.text.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
        assert (
            browser.post("/ui/sign-in", data={"token": server.tokens["write"], "csrf_token": csrf}).status_code == 303
        )
        editor = browser.get("/ui/new").text
        csrf = editor.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
        saved = browser.post("/ui/new", data={"definition": json.dumps(UNCHECKED), "csrf_token": csrf})
    assert saved.status_code == 422 and "E0301" in saved.text and "hint" in saved.text
    with server.client(server.tokens["admin"]) as http:
        assert http.get("/api/v1/tools/lists").status_code == 404


def test_every_problem_the_server_answers_has_a_coded_hinted_diagnostic(server):
    with server.client(server.tokens["admin"]) as http:
        answers = [
            http.get("/api/v1/tools/nothing"),  # a registry error a route raised
            http.get("/api/v1/no-such-route"),  # the server's own 404
            http.post("/api/v1/tools", json={"definition": UNCHECKED, "extra": 1}),  # a body off the route
            http.post("/api/v1/tools/test", json={"definition": UNCHECKED}),  # a check that saves nothing
        ]
    for answer in answers:
        body = answer.json()
        assert answer.status_code >= 400 and body["diagnostics"], answer.text
        assert all(len(d) == 16 and d["code"] and d["hint"] for d in body["diagnostics"]), answer.text
