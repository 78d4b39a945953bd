"""/api/v1/calls in-process: what a held call's refusals answer over HTTP."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from fastapi.testclient import TestClient

from toolkiln.registry.call_rules import CallRule
from toolkiln.server.app import create_app
from toolkiln.server.services import Settings
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore

DOUBLE = {
    "name": "double",
    "description": "Doubles x",
    "parameters": {"x": {"type": "number"}},
    "logic": {"steps": [{"op": "return", "value": "x * 2"}]},
}


def test_a_caller_past_its_pending_calls_gets_429_with_the_code(tmp_path: Path) -> None:
    app = create_app(Settings(registry=tmp_path / "reg"))
    registry = app.state.services.registries.default
    registry.policy = replace(registry.policy, call_rules=(CallRule.parse("principal=model"),), max_pending_calls=1)
    registry.create(DOUBLE)
    token = TokenStore(state_folder(registry.path)).create("agent", "run", "model")[0]
    client = TestClient(app, base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {token}"})
    assert client.post("/api/v1/tools/double/execute", json={"args": {"x": 1}}).status_code == 202
    refused = client.post("/api/v1/tools/double/execute", json={"args": {"x": 2}})
    assert (refused.status_code, refused.json()["code"]) == (429, "R0735")
