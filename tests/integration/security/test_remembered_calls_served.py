"""Through a real `toolkiln serve`: what `Registry.invoke` remembers about a tool to run its
calls at `run`'s cost (registry/hot_door.py) never outlives a change made by another process.
A model's token runs `double` until the door is remembered; then, from this process (as the CLI
or another server would), the tool's calls are flagged for approval, the tool is changed, and
it is disabled: each takes effect at the server's very next execute. A stale memory would run
the flagged call (the approval promise), the old version, or the disabled tool."""

from __future__ import annotations

import signal

import pytest
from test_server_support import ServerProcess, compute_tool, make_token, make_tokens

from toolkiln import Registry


@pytest.fixture
def served(tmp_path):
    registry = tmp_path / "registry"
    tokens = make_tokens(registry)
    tokens["model"] = make_token(registry, "agent", "run", "model")
    server = ServerProcess(registry)
    server.tokens, server.registry = tokens, registry
    with server.client(tokens["admin"]) as admin:
        assert admin.post("/api/v1/tools", json={"definition": compute_tool("double")}).status_code == 201
    yield server
    assert server.stop() in (0, -signal.SIGTERM)


def execute(server, x: int):
    with server.client(server.tokens["model"]) as model:
        return model.post("/api/v1/tools/double/execute", json={"args": {"x": x}})


def remembered(server) -> None:
    """Calls enough for the server's registry to go through its remembered door."""
    for _ in range(3):
        answer = execute(server, 2)
        assert answer.status_code == 200 and answer.json()["result"] == 4, answer.text


def test_a_flag_set_by_another_process_holds_the_servers_next_call(served):
    remembered(served)
    with Registry(served.registry) as other:
        other.require_call_approval("double", by="user")
    answer = execute(served, 5)
    assert answer.status_code == 202 and answer.json()["errors"][0]["code"] == "R0730", answer.text
    with served.client(served.tokens["read"]) as reader:
        assert reader.get("/api/v1/tools/double").json()["usage_count"] in (0, 3)  # (counts flush once a second)


def test_a_new_version_or_a_disabled_tool_is_seen_at_the_servers_next_call(served):
    remembered(served)
    with Registry(served.registry) as other:
        other.update("double", {"logic": compute_tool("double", "x * 10")["logic"]})
    answer = execute(served, 5)
    assert (answer.status_code, answer.json()["result"], answer.json()["version"]) == (200, 50, 2), answer.text
    remembered_again = [execute(served, 1).json()["result"] for _ in range(3)]
    assert remembered_again == [10, 10, 10]
    with Registry(served.registry) as other:
        other.disable("double")
    answer = execute(served, 5)
    assert answer.status_code == 409 and answer.json()["code"] == "R0203", answer.text
