"""GET /api/v1/tools/{name}/review in-process: the review a person approving a version is
shown on the web page, as JSON for any approver with a read token."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from toolkiln.server.app import create_app
from toolkiln.server.services import Settings
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore

DOUBLE = {
    "name": "double",
    "description": "Double.",
    "riskLevel": "high",  # a model's tool of high risk waits for approval
    "parameters": {"x": {"type": "number"}},
    "logic": {"steps": [{"op": "return", "value": "x * 2"}]},
    "examples": [{"args": {"x": 2}, "expect": 4}],
}
QUAD = {
    "name": "quad",
    "description": "Four times.",
    "parameters": {"y": {"type": "number"}},
    "logic": {
        "steps": [
            {"op": "call", "tool": "double", "args": {"x": "y"}, "output": "a"},
            {"op": "call", "tool": "double", "args": {"x": "a"}, "output": "b"},
            {"op": "return", "value": "b"},
        ]
    },
    "examples": [{"args": {"y": 1}, "expect": 4}],
}


def test_a_new_version_that_breaks_a_caller_is_reviewed_as_breaking(tmp_path: Path) -> None:
    app = create_app(Settings(registry=tmp_path / "reg"))
    reg = app.state.services.registries.default
    reg.create(DOUBLE, created_by="llm")
    reg.approve("double", by="user")
    reg.create(QUAD, created_by="user")
    tripled = {
        **DOUBLE,
        "logic": {"steps": [{"op": "return", "value": "x * 3"}]},
        "examples": [{"args": {"x": 2}, "expect": 6}],
    }
    reg.update("double", tripled, by="llm")
    token = TokenStore(state_folder(reg.path)).create("approver", "read", "person")[0]
    client = TestClient(app, base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {token}"})

    shown = client.get("/api/v1/tools/double/review")
    assert shown.status_code == 200, shown.text
    body = shown.json()
    assert (body["version"], body["approved"], body["breaking"]) == (2, 1, True)
    assert [caller["caller"] for caller in body["broken_callers"]] == ["quad"]
    assert body["examples"] == [{"args": '{"x": 2}', "approved": "4", "now": "6"}]
    assert body["reach"] == {"network": False, "files": "none", "secrets": [], "calls": [], "n8n": False}
    assert body["cost"]

    missing = client.get("/api/v1/tools/nothing/review")
    assert (missing.status_code, missing.json()["code"]) == (404, "R0102")
