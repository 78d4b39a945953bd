"""Red team: a call that needs a person's approval does not run until an admin person approves
it, through a real `toolkiln serve` (issue 28, item 1). On the main of 2026-11-28 a model's
token ran every active tool it could name: there was no such approval (and no such flag)."""

from __future__ import annotations

import signal
import threading

import pytest
from test_server_support import ServerProcess, compute_tool, make_token, make_tokens

RULES = ("--approve-calls", "principal=model")


def serve(registry, *options: str) -> ServerProcess:
    return ServerProcess(registry, *RULES, *options)


@pytest.fixture
def served(tmp_path):
    registry = tmp_path / "registry"
    tokens = make_tokens(registry)
    tokens["model"] = make_token(registry, "agent", "admin", "model")
    tokens["service"] = make_token(registry, "ci", "admin", "service")
    server = serve(registry)
    server.tokens = tokens
    with server.client(tokens["admin"]) as admin:
        assert admin.post("/api/v1/tools", json={"definition": compute_tool("double")}).status_code == 201
    yield server
    assert server.stop() in (0, -signal.SIGTERM)


def held_call(server, args: dict, conversation: str | None = None) -> str:
    """A model's execute that waits: 202 and the call's id; the tool did not run."""
    with server.client(server.tokens["model"]) as model:
        answer = model.post("/api/v1/tools/double/execute", json={"args": args, "conversation": conversation})
    assert answer.status_code == 202, answer.text
    body = answer.json()
    assert body["status"] == "pending" and "result" not in body and body["errors"][0]["code"] == "R0730"
    assert answer.headers["location"] == f"/api/v1/calls/{body['call']}"
    return body["call"]


def usage_count(server) -> int:
    with server.client(server.tokens["read"]) as reader:
        return reader.get("/api/v1/tools/double").json()["usage_count"]


def problem_code(answer) -> tuple[int, str]:
    return answer.status_code, answer.json().get("code")


def test_a_models_call_waits_and_nobody_but_an_admin_person_can_release_it(served):
    call = held_call(served, {"x": 21}, conversation="conv-7")
    with served.client(served.tokens["read"]) as reader:
        (listed,) = reader.get("/api/v1/calls", params={"status": "pending"}).json()
    assert (listed["id"], listed["arguments"], listed["conversation"]) == (call, {"x": 21}, "conv-7")
    assert (listed["caller"]["kind"], listed["caller"]["name"]) == ("model", "agent")
    for holder, expected in [("read", (403, "R0503")), ("write", (403, "R0503")), ("model", (403, "R0201")),
                             ("service", (403, "R0201"))]:  # fmt: skip
        with served.client(served.tokens[holder]) as client:
            assert problem_code(client.post(f"/api/v1/calls/{call}/approve")) == expected, holder
    assert usage_count(served) == 0
    with served.client(served.tokens["admin"]) as admin:
        answer = admin.post(f"/api/v1/calls/{call}/approve", json={"reason": "ok"})
        assert answer.status_code == 200, answer.text
        assert answer.json()["outcome"] == {"ok": True, "result": 42, "call": call}
        assert answer.json()["call"]["status"] == "approved"
        assert problem_code(admin.post(f"/api/v1/calls/{call}/approve")) == (409, "R0733")
    assert usage_count(served) == 1


def test_a_denied_call_never_runs_and_says_why(served):
    call = held_call(served, {"x": 1})
    with served.client(served.tokens["admin"]) as admin:
        answer = admin.post(f"/api/v1/calls/{call}/deny", json={"reason": "not today"})
        outcome = answer.json()["outcome"]
        assert outcome["ok"] is False and outcome["errors"][0]["code"] == "R0731"
        assert "not today" in outcome["message"]
        assert admin.get(f"/api/v1/calls/{call}").json()["status"] == "denied"
        assert problem_code(admin.post("/api/v1/calls/c000000000000000000000000/approve")) == (404, "R0732")
        assert problem_code(admin.post("/api/v1/calls/..%2Ftools%2Fdouble/approve"))[0] == 404
    assert usage_count(served) == 0


def test_of_two_approvals_sent_at_once_exactly_one_runs_the_call(served):
    call, answers = held_call(served, {"x": 2}), []
    start = threading.Barrier(4)

    def approve() -> None:
        with served.client(served.tokens["admin"]) as admin:
            start.wait()
            answers.append(admin.post(f"/api/v1/calls/{call}/approve").status_code)

    threads = [threading.Thread(target=approve) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == [200, 409, 409, 409]
    assert usage_count(served) == 1


def test_pending_calls_survive_a_restart_of_the_server(served):
    call = held_call(served, {"x": 5})
    assert served.stop() in (0, -signal.SIGTERM)
    again = serve(served.registry)
    try:
        with again.client(served.tokens["admin"]) as admin:
            assert [c["id"] for c in admin.get("/api/v1/calls").json()] == [call]
            answer = admin.post(f"/api/v1/calls/{call}/approve")
            assert answer.json()["outcome"]["result"] == 10
    finally:
        assert again.stop() in (0, -signal.SIGTERM)


def test_each_call_of_a_flagged_tool_waits_and_only_an_admin_person_sets_the_flag(served):
    for holder, expected in [("model", (403, "R0201")), ("service", (403, "R0201")), ("write", (403, "R0503"))]:
        with served.client(served.tokens[holder]) as client:
            answer = client.put("/api/v1/tools/double/call-approval", json={"required": True})
            assert problem_code(answer) == expected, holder
    with served.client(served.tokens["admin"]) as admin:
        assert admin.post("/api/v1/tools/double/execute", json={"args": {"x": 1}}).status_code == 200
        flagged = admin.put("/api/v1/tools/double/call-approval", json={"required": True})
        assert flagged.json()["approve_calls"] is True
        assert admin.post("/api/v1/tools/double/execute", json={"args": {"x": 1}}).status_code == 202
