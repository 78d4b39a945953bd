"""RustyClaw's /validate body in-process: `check_syntax` and `check_parameters` choose which
diagnostics of a stored tool are reported, and `valid` speaks of what was checked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from toolkiln.server.app import create_app
from toolkiln.server.routes import seed
from toolkiln.server.services import Settings
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore

DOUBLE = {
    "name": "double",
    "description": "Doubles x",
    "parameters": {"x": {"type": "number"}},
    "logic": {"steps": [{"op": "return", "value": "x * 2"}]},
}
LOGIC_ERROR = {"code": "E0101", "severity": "error", "path": "logic.steps[0].value"}
PARAMETER_ERROR = {"code": "E0111", "severity": "error", "path": "parameters.x.type"}
LOGIC_WARNING = {"code": "W0208", "severity": "warning", "path": "logic.steps[1]"}


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    app = create_app(Settings(registry=tmp_path / "reg"))
    registry = app.state.services.registries.default
    registry.create(DOUBLE)
    # The stored tool checks; what a tool that no longer does (an edited folder, a changed
    # callee) would report is given here, so both kinds of diagnostic are present.
    found = [LOGIC_ERROR, PARAMETER_ERROR, LOGIC_WARNING]
    monkeypatch.setattr(seed, "validate_with", lambda reg, definition: {"valid": False, "diagnostics": found})
    token = TokenStore(state_folder(registry.path)).create("reader", "read", "person")[0]
    return TestClient(app, base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {token}"})


def codes(answer: dict[str, Any]) -> tuple[bool, list[str], list[str]]:
    data = answer["data"]
    return data["valid"], [d["code"] for d in data["errors"]], [d["code"] for d in data["warnings"]]


def test_without_a_body_everything_is_reported(client: TestClient) -> None:
    answer = client.post("/api/tools/double/validate").json()
    assert codes(answer) == (False, ["E0101", "E0111"], ["W0208"])
    assert (answer["data"]["name"], answer["data"]["runtime"]) == ("double", "compute")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"check_syntax": True, "check_parameters": True}, (False, ["E0101", "E0111"], ["W0208"])),
        ({"check_syntax": False, "check_parameters": True}, (False, ["E0111"], [])),
        ({"check_syntax": True, "check_parameters": False}, (False, ["E0101"], ["W0208"])),
        ({"check_syntax": False, "check_parameters": False}, (True, [], [])),
    ],
)
def test_the_flags_choose_what_is_reported(client: TestClient, body: dict, expected: tuple) -> None:
    assert codes(client.post("/api/tools/double/validate", json=body).json()) == expected


def test_an_unknown_option_is_a_coded_422(client: TestClient) -> None:
    answer = client.post("/api/tools/double/validate", json={"check_everything": True})
    assert answer.status_code == 422 and answer.json()["code"]
