"""A person approves and denies held calls on the web page, in chromium (as test_web_browser.py
drives it), against a real `toolkiln serve --approve-calls principal=model`."""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator

import pytest
from test_server_support import ServerProcess, compute_tool, make_token, make_tokens
from test_web_browser import browser, page, sign_in  # noqa: F401 - the fixtures, shared

from toolkiln.registry.registry import Registry


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[ServerProcess]:
    registry_path = tmp_path_factory.mktemp("calls") / "registry"
    tokens = make_tokens(registry_path)
    tokens["model"] = make_token(registry_path, "agent", "run", "model")
    with Registry(registry_path) as registry:
        registry.create(compute_tool("double"))
    process = ServerProcess(registry_path, "--approve-calls", "principal=model")
    process.tokens = tokens  # type: ignore[attr-defined]
    yield process
    assert process.stop() in (0, -signal.SIGTERM)


def held(server: ServerProcess, x: int) -> str:
    with server.client(server.tokens["model"]) as model:
        answer = model.post("/api/v1/tools/double/execute", json={"args": {"x": x}, "conversation": "chat-1"})
    assert answer.status_code == 202, answer.text
    return str(answer.json()["call"])


def call_of(server: ServerProcess, call_id: str) -> dict:
    with server.client(server.tokens["read"]) as reader:
        return dict(reader.get(f"/api/v1/calls/{call_id}").json())


def test_a_person_approves_one_call_and_denies_another_on_the_page(page, server):  # noqa: F811
    approved, denied = held(server, 21), held(server, 5)
    sign_in(page, server)
    page.get_by_role("link", name="Calls").click()
    page.wait_for_url(re.compile(r"/ui/calls"))
    assert page.locator("section.call").count() == 2
    page.shots.take("pending-calls")
    page.locator(f"#{approved}").get_by_role("button", name="Approve and run").click()
    page.wait_for_url(re.compile(r"done=approved"))
    assert "Approved: the call ran." in page.locator(".notice").inner_text()
    assert call_of(server, approved)["outcome"]["result"] == 42
    page.goto(f"{server.url}/ui/calls")
    section = page.locator(f"#{denied}")
    section.get_by_label("Reason (the caller reads it)").fill("five is not worth doubling")
    section.get_by_role("button", name="Deny").click()
    page.wait_for_url(re.compile(r"done=denied"))
    page.shots.take("decided-calls")
    decided = call_of(server, denied)
    assert (decided["status"], decided["reason"], decided["decided_by"]["name"]) == (
        "denied",
        "five is not worth doubling",
        "admin",
    )
