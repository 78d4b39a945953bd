"""OwnPilot's create route, `POST /api/v1/custom-tools`, on toolkiln's server (issue 27, item 5):
OwnPilot's own documented request bodies (../shared/corpus/peers/ownpilot/doc-examples/) create
`javascript` script tools, as the token's principal, and the created tool runs in bubblewrap."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from peers_corpus import peer, read_json

from toolkiln.diagnostics import codes
from toolkiln.registry.capabilities import Capabilities
from toolkiln.server.app import create_app
from toolkiln.server.services import Settings
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore

EXAMPLES = peer("ownpilot") / "doc-examples"
pytestmark = pytest.mark.usefixtures("bwrap_installed")


@pytest.fixture
def clients(tmp_path, monkeypatch) -> Iterator[dict[str, TestClient]]:
    monkeypatch.setenv("TOOLKILN_STATE_DIR", str(tmp_path / "state"))
    app = create_app(Settings(registry=tmp_path / "reg", capabilities=Capabilities(network=True)))
    store = TokenStore(state_folder(app.state.services.registries.default.path))
    tokens = {
        "person": store.create("editor", "write", "person")[0],
        "model": store.create("factory", "write", "model")[0],
        "reader": store.create("viewer", "read", "person")[0],
    }
    yield {who: TestClient(app, headers={"Authorization": f"Bearer {token}"}) for who, token in tokens.items()}


def test_ownpilots_documented_test_request_creates_a_tool_that_runs(clients: dict[str, TestClient]):
    body: dict[str, Any] = read_json(EXAMPLES / "POST_test_request.json")
    made = clients["person"].post("/api/v1/custom-tools", json=body)
    assert made.status_code == 201, made.text
    assert (made.json()["name"], made.json()["kind"], made.json()["status"]) == ("test_tool", "script", "active")
    assert made.json()["mapped"] == []
    ran = clients["person"].post("/api/v1/tools/test_tool/execute", json={"args": body["testArguments"]})
    assert ran.status_code == 200, ran.text
    assert ran.json()["result"]["output"] == {"hello": "world"}  # OwnPilot's own code, run as it is


def test_the_create_request_maps_the_network_and_the_key_and_a_models_tool_waits(clients: dict[str, TestClient]):
    body = read_json(EXAMPLES / "POST_fetch_weather_request.json")
    made = clients["model"].post("/api/v1/custom-tools", json=body)
    assert made.status_code == 201, made.text
    answer = made.json()
    assert answer["mapped"] == [
        "permission network -> network: true",
        "requiredApiKeys weatherapi -> secret WEATHERAPI",
    ]
    assert (answer["created_by"], answer["status"]) == ("llm", "pending_approval")  # a model's tool with the network
    as_person = clients["person"].post("/api/v1/custom-tools", json=body | {"name": "weather_2", "createdBy": "x"})
    assert as_person.status_code == 403 and as_person.json()["code"] == "R0701"  # only an admin person grants it


def test_what_does_not_map_is_a_coded_422_and_a_reader_creates_nothing(clients: dict[str, TestClient]):
    body = read_json(EXAMPLES / "POST_test_request.json") | {"permissions": ["shell"]}
    refused = clients["person"].post("/api/v1/custom-tools", json=body)
    assert refused.status_code == 422 and refused.json()["code"] == codes.PEER_PERMISSION_UNMAPPED.code
    assert refused.json()["diagnostics"][0]["path"] == "permissions[0]"
    assert clients["reader"].post("/api/v1/custom-tools", json=body).status_code == 403
