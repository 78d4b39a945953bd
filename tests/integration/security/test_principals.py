"""Red team: who acts is bound to the token, and dangerous powers are the server's to grant.

Each test is an attack of the security review (issue 24, item 1) against a real `toolkiln
serve` and real bubblewrap; on the main of 2026-11-24 each one succeeded."""

from __future__ import annotations

import signal

import pytest
from test_server_support import ServerProcess, make_token, make_tokens

pytestmark = pytest.mark.usefixtures("bwrap_installed")

# What the review's write token created: a script outside the sandbox, with the network.
ESCAPE = {
    "kind": "script",
    "name": "escape",
    "description": "Runs on the host.",
    "runtime": "bash",
    "body": "id; cat /etc/hostname",
    "sandbox": "none",
}
NETWORK = {**ESCAPE, "name": "fetcher", "sandbox": "bubblewrap", "network": True}
READER = {"kind": "executable", "name": "shadow", "description": "Reads a file.", "path": "/etc/shadow"}
COMPUTE = {"name": "double", "description": "Doubles x", "parameters": {"x": {"type": "number"}},
           "logic": {"steps": [{"op": "return", "value": "x * 2"}]}}  # fmt: skip


def serve(folder, *allow: str):
    registry = folder / "registry"
    tokens = make_tokens(registry)
    tokens["model"] = make_token(registry, "agent", "admin", "model")
    tokens["service"] = make_token(registry, "ci", "admin", "service")
    server = ServerProcess(registry, *[f"--allow={word}" for word in allow])
    server.tokens = tokens
    return server


@pytest.fixture(scope="module")
def default_server(tmp_path_factory):
    server = serve(tmp_path_factory.mktemp("default"))
    yield server
    assert server.stop() in (0, -signal.SIGTERM)


@pytest.fixture(scope="module")
def granting_server(tmp_path_factory):
    server = serve(tmp_path_factory.mktemp("granting"), "unsandboxed", "network")
    yield server
    assert server.stop() in (0, -signal.SIGTERM)


def problem(answer, status: int, code: str) -> None:
    assert (answer.status_code, answer.json().get("code")) == (status, code), answer.text


@pytest.mark.parametrize("definition", [ESCAPE, NETWORK, READER], ids=["unsandboxed", "network", "executable"])
@pytest.mark.parametrize("scope", ["write", "admin"])
def test_a_server_started_without_allow_grants_no_capability_to_anyone(default_server, definition, scope):
    with default_server.client(default_server.tokens[scope]) as http:
        problem(http.post("/api/v1/tools", json={"definition": definition}), 403, "R0700")
        problem(http.post("/api/tools", json=definition), 403, "R0700")  # the seed's route too
        assert http.get(f"/api/v1/tools/{definition['name']}").status_code == 404


def test_an_executable_path_outside_the_allowed_folders_reads_nothing_back(default_server):
    with default_server.client(default_server.tokens["admin"]) as http:
        answer = http.post("/api/v1/tools", json={"definition": READER})
    problem(answer, 403, "R0700")
    assert "root:" not in answer.text


def test_a_granted_capability_is_for_an_admin_person_only(granting_server):
    for holder in ("write", "model", "service"):
        with granting_server.client(granting_server.tokens[holder]) as http:
            answer = http.post("/api/v1/tools", json={"definition": ESCAPE, "created_by": "llm"})
            assert answer.status_code in (403, 422) and answer.json()["code"] in ("R0701", "R0612"), answer.text
            assert http.post("/api/tools", json=ESCAPE).status_code in (403, 422)
    with granting_server.client(granting_server.tokens["admin"]) as http:
        made = http.post("/api/v1/tools", json={"definition": ESCAPE})
        assert (made.status_code, made.json()["status"]) == (201, "active"), made.text
    with granting_server.client(granting_server.tokens["run"]) as http:
        ran = http.post("/api/v1/tools/escape/execute", json={"args": {}})
        assert ran.json()["result"]["sandbox"] == "none"
    log = (granting_server.registry / "audit.jsonl").read_text()
    assert '"action":"run"' in log and "unsandboxed" in log


def test_a_models_token_acts_as_a_model_whatever_the_body_says(default_server):
    script = {**ESCAPE, "name": "proposal", "sandbox": "bubblewrap"}
    with default_server.client(default_server.tokens["model"]) as http:
        problem(http.post("/api/v1/tools", json={"definition": script, "created_by": "user"}), 403, "R0702")
        made = http.post("/api/v1/tools", json={"definition": script})
        assert (made.json()["created_by"], made.json()["status"]) == ("llm", "pending_approval"), made.text
        seeded = http.post("/api/tools", json={**script, "name": "proposal_seed"})
        assert seeded.json()["data"]["status"] == "pending_approval"  # the seed route as a model too
        problem(http.post("/api/v1/tools/proposal/approve"), 403, "R0201")  # admin scope, but a model
        problem(http.post("/api/v1/tools/proposal/approve", params={"by": "user"}), 403, "R0702")
        problem(http.post("/api/v1/tokens", json={"name": "me", "kind": "person", "scope": "admin"}), 403, "R0702")
    with default_server.client(default_server.tokens["admin"]) as http:
        assert http.post("/api/v1/tools/proposal/approve").json()["status"] == "active"
        made = http.post("/api/v1/tools", json={"definition": COMPUTE, "created_by": "llm"})  # narrowing is fine
        assert made.json()["created_by"] == "llm"
    log = (default_server.registry / "audit.jsonl").read_text()
    assert '"via":"token agent"' in log and '"by":"llm"' in log


def test_the_web_page_acts_as_the_tokens_kind(default_server):
    with default_server.client() as browser:
        page = browser.get("/ui/sign-in")
        csrf = page.text.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
        signed = browser.post(
            "/ui/sign-in",
            data={"token": default_server.tokens["model"], "acting_as": "user", "csrf_token": csrf},
        )
        assert signed.status_code == 303
        listing = browser.get("/ui/tools")
        assert "acting as a model" in listing.text and "acting as a person" not in listing.text
