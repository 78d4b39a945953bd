"""The calls waiting for approval on the web page (in-process): listed for every signed-in
visitor, decided only by an admin person through forms that carry the session's CSRF token."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from unit.server.test_web_page import Page

from toolkiln.registry.call_rules import CallRule
from toolkiln.registry.principals import Principal
from toolkiln.server.app import create_app
from toolkiln.server.services import Settings
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore

ECHO = {
    "name": "echo",
    "description": "Says what it is given",
    "parameters": {"text": {"type": "string"}},
    "logic": {"steps": [{"op": "return", "value": "text"}]},
}
MODEL = Principal("model", "agent", "run", via="token agent")


@pytest.fixture()
def app(tmp_path: Path):
    app = create_app(Settings(registry=tmp_path / "reg", max_body_bytes=1024 * 1024))
    registry = app.state.services.registries.default
    registry.policy = replace(registry.policy, call_rules=(CallRule.parse("principal=model"),))
    registry.create(ECHO)
    return app


@pytest.fixture()
def tokens(app) -> dict[str, str]:
    store = TokenStore(state_folder(app.state.services.registries.default.path))
    return {scope: store.create(scope, scope, "person")[0] for scope in ("read", "write", "admin")}


def held(app, text: str = "<script>alert(1)</script>") -> str:
    outcome = app.state.services.registries.default.invoke(
        "echo", {"text": text}, principal=MODEL, conversation="chat-9"
    )
    assert outcome.pending
    return outcome.call


def test_an_admin_person_approves_a_call_on_the_page_and_sees_its_outcome(app, tokens):
    call = held(app)
    admin = Page(app, tokens["admin"])
    page = admin.client.get("/ui/calls").text
    assert call in page and "chat-9" in page and f'action="/ui/calls/{call}/approve"' in page
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page  # arguments are text
    done = admin.post(f"/ui/calls/{call}/approve")
    assert done.status_code == 303 and done.headers["location"].startswith("/ui/calls?status=all&done=approved")
    after = admin.client.get(done.headers["location"]).text
    assert "Approved: the call ran." in after and "&#34;ok&#34;: true" in after
    assert app.state.services.registries.default.call(call).status == "approved"
    again = admin.post(f"/ui/calls/{call}/approve")
    assert again.status_code == 409 and "R0733" in again.text


def test_a_denial_needs_a_reason_and_the_caller_reads_it(app, tokens):
    call = held(app, "hello")
    admin = Page(app, tokens["admin"])
    assert "R0518" in admin.post(f"/ui/calls/{call}/deny", {"reason": " "}).text
    assert admin.post(f"/ui/calls/{call}/deny", {"reason": "not for <b>this</b> chat"}).status_code == 303
    registry = app.state.services.registries.default
    assert "not for <b>this</b> chat" in registry.wait_for_call(call, timeout=0).message
    assert "not for &lt;b&gt;this&lt;/b&gt; chat" in admin.client.get("/ui/calls?status=denied").text


def test_only_an_admin_person_is_offered_and_allowed_the_decisions(app, tokens):
    call = held(app, "hello")
    for token, acting_as, code in [(tokens["write"], "user", "R0503"), (tokens["admin"], "llm", "R0201")]:
        page = Page(app, token, acting_as)
        listed = page.client.get("/ui/calls").text
        assert call in listed and "/approve" not in listed and "Only a person signed in with an admin token" in listed
        refused = page.post(f"/ui/calls/{call}/approve")
        assert refused.status_code == 403 and code in refused.text
    assert app.state.services.registries.default.call(call).status == "pending"


def test_a_decision_needs_the_sessions_csrf_token(app, tokens):
    call = held(app, "hello")
    admin = Page(app, tokens["admin"])
    for data in ({}, {"csrf_token": "A" * 43}):
        answer = admin.client.post(f"/ui/calls/{call}/approve", data=data, follow_redirects=False)
        assert answer.status_code == 403 and "R0516" in answer.text
    assert app.state.services.registries.default.call(call).status == "pending"


def test_without_a_session_the_calls_page_goes_to_sign_in(app):
    client = TestClient(app, base_url="http://127.0.0.1")
    assert client.get("/ui/calls", follow_redirects=False).headers["location"] == "/ui/sign-in?next=/ui/calls"
