"""Red team (session 7): what `Registry.invoke` keeps about a tool (registry/hot_door.py) never
outlives a change another process makes to the same registry folder. A running `toolkiln serve`
is kept hot by calls; the CLI, another process, then disables, enables, updates, repins or
deletes and remakes, and the server's very next call must act on the change (no waiting, no
retry: a folder's change counter is shared through .cache/changes)."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest
from test_pin_moves import ORDER_TOTAL, SHIPPING
from test_repin_hostile import tools_cli
from test_server_support import ServerProcess, compute_tool, make_token, make_tokens

HOT_CALLS = 5  # (the first call takes the full path and remembers; the rest are the hot door's)


def toolkiln(registry: Path, *args: str) -> None:
    done = tools_cli(registry, *args)
    assert done.returncode == 0, done.stderr


def write_file(folder: Path, definition: dict) -> str:
    path = folder / f"{definition['name']}.json"
    path.write_text(json.dumps(definition))
    return str(path)


@pytest.fixture
def served(tmp_path):
    registry = tmp_path / "registry"
    tokens = make_tokens(registry) | {"model": make_token(registry, "agent", "write", "model")}
    server = ServerProcess(registry, "--rate-limit", "100000/minute")
    server.tokens = tokens
    yield server
    assert server.stop() in (0, -signal.SIGTERM)


def execute(server: ServerProcess, token: str, name: str, args: dict) -> tuple[int, object, object]:
    with server.client(token) as http:
        answer = http.post(f"/api/v1/tools/{name}/execute", json={"args": args}).json()
    return answer.get("status", 200) if "result" not in answer else 200, answer.get("result"), answer.get("code")


def hot(server: ServerProcess, token: str, name: str, args: dict) -> object:
    results = {execute(server, token, name, args) for _ in range(HOT_CALLS)}
    assert len(results) == 1, results
    (found,) = results
    assert found[0] == 200, found
    return found[1]


@pytest.mark.parametrize("holder", ["run", "model"])
def test_a_change_by_another_process_takes_effect_at_the_next_call(served, holder, tmp_path):
    registry, token = served.registry, served.tokens[holder]
    with served.client(served.tokens["admin"]) as admin:
        assert admin.post("/api/v1/tools", json={"definition": compute_tool("double")}).status_code == 201
    assert hot(served, token, "double", {"x": 2}) == 4

    toolkiln(registry, "disable", "double")
    status, _, code = execute(served, token, "double", {"x": 2})
    assert (status, code) != (200, None) and code is not None, (status, code)

    toolkiln(registry, "enable", "double")
    assert execute(served, token, "double", {"x": 2})[1] == 4
    assert hot(served, token, "double", {"x": 2}) == 4

    toolkiln(registry, "update", "double", write_file(tmp_path, compute_tool("double", "x * 3")))
    with served.client(token) as http:
        answer = http.post("/api/v1/tools/double/execute", json={"args": {"x": 2}}).json()
    assert (answer["result"], answer["version"]) == (6, 2), answer

    toolkiln(registry, "delete", "double")
    status, _, code = execute(served, token, "double", {"x": 2})
    assert status == 404 and code is not None, (status, code)


def test_a_pinned_caller_follows_another_processs_repin_and_never_runs_a_namesake(served, tmp_path):
    registry = served.registry
    with served.client(served.tokens["model"]) as model, served.client(served.tokens["admin"]) as admin:
        assert model.post("/api/v1/tools", json={"definition": SHIPPING}).json()["status"] == "active"
        assert model.post("/api/v1/tools", json={"definition": ORDER_TOTAL}).status_code == 201
        assert admin.post("/api/v1/tools/order_total/approve").json()["pins"]["shipping_cost"]["version"] == 1
    runner = served.tokens["run"]
    assert hot(served, runner, "order_total", {"w": 1, "price": 10}) == 17
    v2 = {**SHIPPING, "logic": {"steps": [{"op": "return", "value": "weight_kg * 3 + 5"}]}}
    toolkiln(registry, "update", "shipping_cost", write_file(tmp_path, v2))
    assert hot(served, runner, "order_total", {"w": 1, "price": 10}) == 17  # still pinned to v1

    toolkiln(registry, "repin", "order_total")  # another process moves the caller to v2
    assert execute(served, runner, "order_total", {"w": 1, "price": 10})[1] == 18
    assert hot(served, runner, "order_total", {"w": 1, "price": 10}) == 18

    # the callee deleted, and a model makes a tool of its name and version 2 again, of its own logic
    toolkiln(registry, "delete", "shipping_cost", "--force")
    forged = {**SHIPPING, "logic": {"steps": [{"op": "return", "value": "weight_kg * 1000"}]}}
    with served.client(served.tokens["model"]) as model:
        assert model.post("/api/v1/tools", json={"definition": forged}).json()["status"] == "active"
        other = {"logic": {"steps": [{"op": "return", "value": "weight_kg * 3 + 6"}]}}
        assert model.patch("/api/v1/tools/shipping_cost", json={"changes": other}).json()["version"] == 2
    status, result, code = execute(served, runner, "order_total", {"w": 1, "price": 10})
    assert (result, code) == (None, "R0770"), (status, result, code)
