"""`seed` on REST's execute and MCP's run_custom_tool (issue 27, item 5): the seed of the run's
random source, so that uuid(), random() and random_int() repeat, as `toolkiln tools run --seed`
and Tool.run(random=N) do."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from toolkiln import api
from toolkiln.registry.json_values import plain_json
from toolkiln.registry.registry import Registry
from toolkiln.server.app import create_app
from toolkiln.server.mcp_tools import RUN_CUSTOM_TOOL, call_tool
from toolkiln.server.services import Settings
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore

DRAWS = {
    "name": "draws",
    "description": "Two uuids and a number",
    "parameters": {},
    "logic": {"steps": [{"op": "return", "value": "[uuid(), uuid(), random_int(1, 1000000)]"}]},
}


@pytest.fixture
def app_and_registry(tmp_path) -> Iterator[tuple[TestClient, Registry]]:
    app = create_app(Settings(registry=tmp_path / "reg"))
    registry = app.state.services.registries.default
    registry.create(DRAWS)
    token = TokenStore(state_folder(registry.path)).create("runner", "run", "service")[0]
    with TestClient(app, headers={"Authorization": f"Bearer {token}"}) as http:
        yield http, registry


def executed(http: TestClient, body: dict) -> object:
    answer = http.post("/api/v1/tools/draws/execute", json=body)
    assert answer.status_code == 200, answer.text
    return answer.json()["result"]


def test_the_same_seed_draws_the_same_values_as_tool_run(app_and_registry):
    http, _ = app_and_registry
    seven = executed(http, {"seed": 7})
    assert executed(http, {"seed": 7}) == seven
    assert executed(http, {"seed": 8}) != seven
    assert executed(http, {}) != executed(http, {})  # no seed: the system's generator
    assert plain_json(api.compile(DRAWS).run({}, random=7)) == seven  # as compute's own seeded run


@pytest.mark.parametrize("seed", ["7", 7.5, True, 2**64])
def test_a_seed_that_is_not_a_whole_number_is_refused(app_and_registry, seed):
    http, _ = app_and_registry
    answer = http.post("/api/v1/tools/draws/execute", json={"seed": seed})
    assert answer.status_code == 422


def test_mcp_run_custom_tool_takes_the_same_seed(app_and_registry):
    _, registry = app_and_registry
    first = call_tool(registry, RUN_CUSTOM_TOOL, {"name": "draws", "seed": 7}).payload
    assert call_tool(registry, RUN_CUSTOM_TOOL, {"name": "draws", "seed": 7}).payload == first
    assert call_tool(registry, RUN_CUSTOM_TOOL, {"name": "draws", "seed": 8}).payload != first
    refused = call_tool(registry, RUN_CUSTOM_TOOL, {"name": "draws", "seed": "7"})
    assert refused.is_error and refused.payload["errors"][0]["code"] == "R0104"
