"""Red team: the registry's secrets over REST, through a real `toolkiln serve` (issue 28,
item 2). Values are write-only (no answer, log or listing carries one); only an admin person or
service reaches them: a model's token is refused whatever its scope, and so are narrower
scopes. On the main of 2026-11-28 there were no such routes (secrets were set by the CLI only)."""

from __future__ import annotations

import json
import signal

import pytest
from test_server_support import ServerProcess, compute_tool, make_token, make_tokens

from toolkiln.server.mcp_tools import tool_list
from toolkiln.server.state import state_folder

VALUE = "sk-live-7f3a-very-secret-value"


@pytest.fixture
def served(tmp_path):
    registry = tmp_path / "registry"
    tokens = make_tokens(registry)
    tokens["model"] = make_token(registry, "agent", "admin", "model")
    tokens["service"] = make_token(registry, "ci", "admin", "service")
    server = ServerProcess(registry)
    server.tokens = tokens
    yield server
    assert server.stop() in (0, -signal.SIGTERM)


def test_an_admin_person_sets_lists_and_deletes_a_secret_and_never_reads_a_value_back(served):
    with served.client(served.tokens["admin"]) as admin:
        made = admin.put("/api/v1/secrets/WEATHER_API_KEY", json={"value": VALUE})
        assert made.status_code == 200 and set(made.json()) == {"name", "updated_at"}
        listed = admin.get("/api/v1/secrets")
        assert [entry["name"] for entry in listed.json()] == ["WEATHER_API_KEY"]
        every = [made.text, listed.text, admin.get("/openapi.json").text]
        deleted = admin.delete("/api/v1/secrets/WEATHER_API_KEY")
        assert deleted.status_code == 200 and admin.get("/api/v1/secrets").json() == []
        gone = admin.delete("/api/v1/secrets/WEATHER_API_KEY")
        assert gone.status_code == 404 and gone.json()["code"] == "R0743"
    assert not [text for text in [*every, deleted.text, served.log.read_text()] if VALUE in text]
    assert VALUE not in (served.registry / "secrets.json").read_text()  # (sealed at rest)


def test_a_service_admin_sets_secrets_too(served):
    with served.client(served.tokens["service"]) as service:
        assert service.put("/api/v1/secrets/DEPLOY_KEY", json={"value": VALUE}).status_code == 200


def test_a_model_never_reaches_a_secret_whatever_its_scope(served):
    with served.client(served.tokens["admin"]) as admin:
        admin.put("/api/v1/secrets/WEATHER_API_KEY", json={"value": VALUE})
    with served.client(served.tokens["model"]) as model:
        for method, path, body in (
            ("GET", "/api/v1/secrets", None),
            ("PUT", "/api/v1/secrets/WEATHER_API_KEY", {"value": "replaced-by-a-model"}),
            ("DELETE", "/api/v1/secrets/WEATHER_API_KEY", None),
        ):
            refused = model.request(method, path, json=body)
            assert (refused.status_code, refused.json()["code"]) == (403, "R0201"), (method, path)
            assert VALUE not in refused.text
    for scope in ("read", "run", "write"):
        with served.client(served.tokens[scope]) as narrow:
            assert narrow.get("/api/v1/secrets").json()["code"] == "R0503"
    with served.client(served.tokens["admin"]) as admin:
        assert [entry["name"] for entry in admin.get("/api/v1/secrets").json()] == ["WEATHER_API_KEY"]


def test_a_bad_name_or_an_oversized_value_is_a_coded_refusal(served):
    with served.client(served.tokens["admin"]) as admin:
        bad = admin.put("/api/v1/secrets/not-an-env-name", json={"value": "x"})
        assert (bad.status_code, bad.json()["code"]) == (400, "R0740")
        huge = admin.put("/api/v1/secrets/BIG", json={"value": "x" * (64 * 1024 + 1)})
        assert huge.status_code == 422
        extra = admin.put("/api/v1/secrets/OK_NAME", json={"value": "x", "read_back": True})
        assert extra.status_code == 422
        assert admin.get("/api/v1/secrets").json() == []


def test_the_tools_a_model_is_given_offer_no_way_to_a_secret(tmp_path):
    """The meta-tools (MCP, the agent loops) create, list, test, delete and toggle tools: none
    reads, sets or lists a secret (a tool definition may only declare the names it needs)."""
    from toolkiln import Registry

    with Registry(tmp_path / "registry") as reg:
        reg.create(compute_tool("double"))
        offered = tool_list(reg)
    assert offered and not [tool["name"] for tool in offered if "secret" in tool["name"].lower()]


@pytest.mark.parametrize(
    ("value", "status", "code"),
    [("", 400, "R0744"), ("a\u0000" + VALUE, 400, "R0744"), ("\ud800" + VALUE, 422, "R0506")],
)
def test_a_value_no_environment_variable_can_hold_is_refused_before_it_is_stored(served, value, status, code):
    """On the main of 2026-11-28 23:41 such a value was stored (200) and each run of a tool that
    declared it failed inside the server (`embedded null byte`) instead of a coded error."""
    with served.client(served.tokens["admin"]) as admin:
        body = json.dumps({"value": value})  # (ASCII: a lone surrogate as JSON's \ud800)
        refused = admin.put(
            "/api/v1/secrets/WEATHER_API_KEY", content=body, headers={"Content-Type": "application/json"}
        )
        assert (refused.status_code, refused.json()["code"]) == (status, code), refused.text
        assert VALUE not in refused.text
        assert admin.get("/api/v1/secrets").json() == []


def test_the_request_log_names_each_change_and_never_a_value(served):
    with served.client(served.tokens["admin"]) as admin:
        admin.put("/api/v1/secrets/WEATHER_API_KEY", json={"value": VALUE})
        admin.delete("/api/v1/secrets/WEATHER_API_KEY")
    log = (state_folder(served.registry) / "requests.jsonl").read_text()
    lines = [json.loads(line) for line in log.splitlines()]
    assert [(line["token"], line["method"], line["path"], line["status"]) for line in lines] == [
        ("admin", "PUT", "/api/v1/secrets/WEATHER_API_KEY", 200),
        ("admin", "DELETE", "/api/v1/secrets/WEATHER_API_KEY", 200),
    ]
    assert VALUE not in log
