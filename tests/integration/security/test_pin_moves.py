"""Red team: a caller a person approved runs the callee version it was approved with through a
real `toolkiln serve`, and only a person with the admin scope moves it (issue 28, item 4). On the
main of 2026-11-29 a model that got a new version of a callee approved changed what every
approved caller computed, and there was no pin to move."""

from __future__ import annotations

import signal

import pytest
from test_server_support import ServerProcess, make_token, make_tokens

SHIPPING = {
    "name": "shipping_cost",
    "description": "Shipping cost of a parcel",
    "parameters": {"weight_kg": {"type": "number"}},
    "logic": {"steps": [{"op": "return", "value": "weight_kg * 2 + 5"}]},
}
ORDER_TOTAL = {
    "name": "order_total",
    "description": "Price plus shipping",
    "riskLevel": "high",
    "parameters": {"w": {"type": "number"}, "price": {"type": "number"}},
    "logic": {
        "steps": [
            {"op": "call", "tool": "shipping_cost", "args": {"weight_kg": "w"}, "output": "cost"},
            {"op": "return", "value": "price + cost"},
        ]
    },
}
V2 = {"logic": {"steps": [{"op": "return", "value": "weight_kg * 3 + 5"}]}, "riskLevel": "high"}


@pytest.fixture
def served(tmp_path):
    """order_total (a model's) approved against shipping_cost v1; then the model's v2 of
    shipping_cost approved too."""
    registry = tmp_path / "registry"
    tokens = make_tokens(registry) | {kind: make_token(registry, kind, "admin", kind) for kind in ("model", "service")}
    server = ServerProcess(registry)
    server.tokens = tokens
    with server.client(tokens["model"]) as model, server.client(tokens["admin"]) as admin:
        assert model.post("/api/v1/tools", json={"definition": SHIPPING}).json()["status"] == "active"
        assert model.post("/api/v1/tools", json={"definition": ORDER_TOTAL}).json()["status"] == "pending_approval"
        approved = admin.post("/api/v1/tools/order_total/approve").json()
        assert approved["pins"]["shipping_cost"]["version"] == 1
        assert model.patch("/api/v1/tools/shipping_cost", json={"changes": V2}).json()["version"] == 2
        assert admin.post("/api/v1/tools/shipping_cost/approve").json()["status"] == "active"
    yield server
    assert server.stop() in (0, -signal.SIGTERM)


def total(http) -> object:
    answer = http.post("/api/v1/tools/order_total/execute", json={"args": {"w": 1, "price": 10}})
    assert answer.status_code == 200, answer.text
    return answer.json()["result"]


def test_an_approved_caller_keeps_its_version_until_a_person_moves_it(served):
    with served.client(served.tokens["run"]) as runner, served.client(served.tokens["admin"]) as admin:
        assert total(runner) == 17  # shipping_cost v1: 7 (v2 would give 8)
        moved = admin.post("/api/v1/tools/order_total/repin")
        assert moved.status_code == 200, moved.text
        assert moved.json()["pins"]["shipping_cost"]["version"] == 2
        assert total(runner) == 18
        back = admin.post("/api/v1/tools/order_total/repin", json={"to": {"shipping_cost": 1}})
        assert back.json()["pins"]["shipping_cost"]["version"] == 1
        assert total(runner) == 17
        audit = [line for line in (served.registry / "audit.jsonl").read_text().splitlines() if '"repin"' in line]
        assert len(audit) == 2 and "shipping_cost 1 -> 2" in audit[0]


@pytest.mark.parametrize(("holder", "code"), [("model", "R0201"), ("service", "R0201"), ("write", "R0503")])
def test_no_model_service_or_non_admin_moves_a_pin(served, holder, code):
    """A model's or a service's token with the admin scope is refused by the registry; a
    person's without it by the scope check."""
    with served.client(served.tokens[holder]) as http:
        refused = http.post("/api/v1/tools/order_total/repin", json={"to": {"shipping_cost": 2}})
        assert refused.status_code == 403, refused.text
        assert refused.json()["code"] == code
    with served.client(served.tokens["run"]) as runner:
        assert total(runner) == 17
    assert '"repin"' not in (served.registry / "audit.jsonl").read_text()


def test_a_move_to_a_version_never_approved_is_refused(served):
    with served.client(served.tokens["model"]) as model, served.client(served.tokens["admin"]) as admin:
        waiting = {"logic": {"steps": [{"op": "return", "value": "0"}]}, "riskLevel": "high"}
        third = model.patch("/api/v1/tools/shipping_cost", json={"changes": waiting}).json()
        assert (third["version"], third["status"]) == (3, "pending_approval")
        refused = admin.post("/api/v1/tools/order_total/repin", json={"to": {"shipping_cost": 3}})
        assert refused.status_code == 400 and refused.json()["code"] == "R0104", refused.text
    with served.client(served.tokens["run"]) as runner:
        assert total(runner) == 17  # (and a waiting version never reaches the pinned caller)
