"""Script and executable tools through `toolkiln serve` (a real uvicorn process, the real
bubblewrap) and through the MCP server's tool calls: the same tokens and lifecycle as compute
tools, a model's script pending until approved, arguments as data, the sandbox named."""

from __future__ import annotations

import pytest
from test_server_support import make_tokens, served_registry

from toolkiln.registry.registry import Registry
from toolkiln.server.mcp_tools import call_tool, tool_list

pytestmark = pytest.mark.usefixtures("bwrap_installed")

ECHO = {
    "kind": "script",
    "name": "echo_text",
    "description": "Echoes a text.",
    "runtime": "bash",
    "body": "printf '%s' \"$TK_ARG_TEXT\"\n",
    "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
}
PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from served_registry(tmp_path_factory.mktemp("programs"))


def test_a_models_script_over_rest_waits_then_runs_in_bubblewrap(server):
    with server.client(server.tokens["write"]) as writer, server.client(server.tokens["admin"]) as admin:
        created = writer.post("/api/v1/tools", json={"definition": ECHO, "created_by": "llm"})
        assert created.status_code == 201, created.text
        assert (created.json()["kind"], created.json()["status"]) == ("script", "pending_approval")
        refused = writer.post("/api/v1/tools/echo_text/execute", json={"args": {"text": "x"}})
        assert (refused.status_code, refused.json()["code"]) == (409, "R0203")
        assert writer.post("/api/v1/tools/echo_text/approve").status_code == 403  # approving needs admin
        assert admin.post("/api/v1/tools/echo_text/approve").json()["status"] == "active"

    with server.client(server.tokens["run"]) as runner:
        attack = "$(id); `id` ; rm -rf /\nnext line"
        ran = runner.post("/api/v1/tools/echo_text/execute", json={"args": {"text": attack}})
        assert ran.status_code == 200, ran.text
        result = ran.json()["result"]
        # TK_ARG_TEXT held the argument's JSON; printed back, the result is that JSON's value
        assert (result["output"], result["sandbox"]) == (attack, "bubblewrap")
        bad = runner.post("/api/v1/tools/echo_text/execute", json={"args": {"text": 5}})
        assert (bad.status_code, bad.headers["content-type"], bad.json()["code"]) == (422, PROBLEM, "R0603")
        listed = runner.get("/api/v1/tools", params={"kind": "script"}).json()
        assert [t["name"] for t in listed["tools"]] == ["echo_text"]
        assert runner.get("/api/v1/tools/echo_text").json()["usage_count"] >= 1


def test_a_skill_text_is_a_script_definition_over_rest(server):
    skill = "---\nname: skill_echo\ndescription: Echoes.\nruntime: bash\n---\ncat\n"
    with server.client(server.tokens["admin"]) as http:
        created = http.post("/api/v1/tools", json={"definition": skill})
        assert (created.status_code, created.json()["kind"]) == (201, "script"), created.text
        ran = http.post("/api/v1/tools/skill_echo/execute", json={"args": {}})
        assert ran.json()["result"]["output"] == {}
        broken = http.post("/api/v1/tools", json={"definition": "---\nname: [x\n---\ncat\n"})
        assert (broken.status_code, broken.json()["code"]) == (422, "R0608")


def test_a_model_may_not_ask_for_no_sandbox_over_rest(server):
    with server.client(server.tokens["write"]) as writer:
        loose = {**ECHO, "name": "loose", "sandbox": "none"}
        refused = writer.post("/api/v1/tools", json={"definition": loose, "created_by": "llm"})
        assert (refused.status_code, refused.json()["code"]) == (422, "R0612")


def test_mcp_lists_and_calls_a_script_tool(tmp_path):
    with Registry(tmp_path / "registry", durable=False) as reg:
        reg.create(ECHO)
        listed = {tool["name"]: tool for tool in tool_list(reg)}
        assert listed["echo_text"]["inputSchema"] == ECHO["parameters"]
        assert listed["echo_text"]["annotations"]["openWorldHint"] is True
        called = call_tool(reg, "echo_text", {"text": "a; b"})
        assert not called.is_error
        assert called.payload["result"]["output"] == "a; b" and called.payload["result"]["sandbox"] == "bubblewrap"
        failed = call_tool(reg, "run_custom_tool", {"name": "echo_text", "args": {}})
        assert failed.is_error and failed.payload["errors"][0]["code"] == "R0603"
        reg.create({**ECHO, "name": "pending_echo"}, created_by="llm")
        assert "pending_echo" not in {tool["name"] for tool in tool_list(reg)}
        assert call_tool(reg, "pending_echo", {"text": "x"}).payload["errors"][0]["code"] == "R0203"


def test_without_bubblewrap_a_run_is_a_503_and_nothing_runs(tmp_path, monkeypatch: pytest.MonkeyPatch):
    from fastapi.testclient import TestClient

    from toolkiln.server.app import create_app
    from toolkiln.server.services import Settings

    registry = tmp_path / "registry"
    tokens = make_tokens(registry)
    with Registry(registry, durable=False) as reg:
        reg.create(ECHO, created_by="llm")
        reg.approve("echo_text")
        monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap on the server's PATH
        with TestClient(create_app(Settings(registry), reg)) as http:
            headers = {"Authorization": f"Bearer {tokens['run']}"}
            refused = http.post("/api/v1/tools/echo_text/execute", json={"args": {"text": "x"}}, headers=headers)
    assert (refused.status_code, refused.headers["content-type"], refused.json()["code"]) == (503, PROBLEM, "R0601")
