"""GET /api/v1/tools/{name}/review in-process: the review a person approving a version is
shown on the web page, as JSON for any approver with a read token."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from unit.registry.test_review import QUAD, double  # (the registry's review tests' tools)

from toolkiln.server.app import create_app
from toolkiln.server.services import Settings
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore


def test_a_new_version_that_breaks_a_caller_is_reviewed_as_breaking(tmp_path: Path) -> None:
    app = create_app(Settings(registry=tmp_path / "reg"))
    reg = app.state.services.registries.default
    reg.create(double(), created_by="llm")
    reg.approve("double", by="user")
    reg.create(QUAD, created_by="user")
    reg.update("double", double(factor="3", expect=6), by="llm")
    token = TokenStore(state_folder(reg.path)).create("approver", "read", "person")[0]
    client = TestClient(app, base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {token}"})

    shown = client.get("/api/v1/tools/double/review")
    assert shown.status_code == 200, shown.text
    body = shown.json()
    assert (body["version"], body["approved"], body["breaking"]) == (2, 1, True)
    assert [caller["caller"] for caller in body["broken_callers"]] == ["quad"]
    assert body["examples"] == [{"args": '{"x": 2}', "approved": "4", "now": "6"}]
    assert body["reach"] == {
        "network": False,
        "files": "none",
        "secrets": [],
        "calls": [],
        "n8n": False,
        "secrets_not_set": [],
    }
    assert body["cost"]

    missing = client.get("/api/v1/tools/nothing/review")
    assert (missing.status_code, missing.json()["code"]) == (404, "R0102")


def test_the_review_names_the_secrets_a_tool_declares_and_which_are_not_set(tmp_path: Path) -> None:
    """An approver sees which secrets a program would be given, and which it would be refused
    for (R0742) because nobody set them: names only, never a value."""
    from toolkiln.registry.secrets import SecretStore
    from toolkiln.server.web.sessions import SESSION_COOKIE

    app = create_app(Settings(registry=tmp_path / "reg"))
    reg = app.state.services.registries.default
    weather = {
        "kind": "script",
        "name": "weather",
        "description": "The forecast",
        "runtime": "python",
        "body": "print(1)",
        "secrets": ["WEATHER_API_KEY", "MAPS_KEY"],
    }
    reg.create(weather, created_by="llm")  # a model's program: waits for approval
    SecretStore(reg.path).set("WEATHER_API_KEY", "wk-value-9931")
    token = TokenStore(state_folder(reg.path)).create("approver", "read", "person")[0]
    client = TestClient(app, base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {token}"})

    reach = client.get("/api/v1/tools/weather/review").json()["reach"]
    assert (reach["secrets"], reach["secrets_not_set"]) == (["WEATHER_API_KEY", "MAPS_KEY"], ["MAPS_KEY"])

    form = client.get("/ui/sign-in").text
    csrf = form.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    client.post("/ui/sign-in", data={"token": token, "acting_as": "user", "csrf_token": csrf, "next": "/ui/tools"})
    assert client.cookies.get(SESSION_COOKIE)
    page = client.get("/ui/tools/weather?tab=review").text
    shown = page.split('class="reach-secrets">', 1)[1].split("</dd>", 1)[0]
    assert shown == (
        "<code>WEATHER_API_KEY</code>, <code>MAPS_KEY</code> (not set: its runs are refused until an admin sets it)"
    )
    assert "wk-value-9931" not in page
