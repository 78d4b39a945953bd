"""The review tab of a tool waiting for approval, in-process: what it reaches, its cost bound,
and for a new version the changes against the approved one and the callers it breaks. The
browser drives the same page in tests/integration/test_web_review_browser.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_web_page import Page

from toolkiln.server.app import create_app
from toolkiln.server.services import Settings
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore

DOUBLE = {
    "name": "double",
    "description": "Doubles each number.",
    "riskLevel": "high",
    "parameters": {"xs": {"type": "array", "items": {"type": "number"}}},
    "logic": {"steps": [{"op": "return", "value": "[x * 2 for x in xs]"}]},
    "examples": [{"args": {"xs": [1, 2]}, "expect": [2, 4]}],
}
TRIPLE = {
    **DOUBLE,
    "parameters": {**DOUBLE["parameters"], "note": {"type": "string", "default": ""}},
    "logic": {"steps": [{"op": "return", "value": "[x * 3 for x in xs]"}]},
    "examples": [{"args": {"xs": [1, 2]}, "expect": [3, 6]}],
}
TOTAL = {
    "name": "total",
    "description": "Twice the sum.",
    "parameters": {"ys": {"type": "array", "items": {"type": "number"}}},
    "logic": {
        "steps": [
            {"op": "call", "tool": "double", "args": {"xs": "ys"}, "output": "d"},
            {"op": "return", "value": "sum(d)"},
        ]
    },
    "examples": [{"args": {"ys": [1, 2]}, "expect": 6}],
}


@pytest.fixture()
def app(tmp_path: Path):
    app = create_app(Settings(registry=tmp_path / "reg"))
    registry = app.state.services.registries.default
    registry.create(DOUBLE, created_by="llm")
    registry.approve("double")
    registry.create(TOTAL)
    registry.update("double", TRIPLE, by="llm")  # waits for a person again
    return app


@pytest.fixture()
def reader(app) -> Page:
    token = TokenStore(state_folder(app.state.services.registries.default.path)).create("reader", "read", "person")[0]
    return Page(app, token)


def test_a_pending_version_shows_its_reach_cost_changes_and_the_callers_it_breaks(reader):
    page = reader.client.get("/ui/tools/double").text
    assert "review what it reaches" in page and "tab=review" in page
    review = reader.client.get("/ui/tools/double?tab=review").text
    assert '<code class="cost-bound">' in review and "len(xs)" in review
    assert "Version 2 against version 1" in review
    assert "<code>note</code>" in review and "change-added" in review
    assert "<code>{&#34;xs&#34;: [1, 2]}</code>" in review and "[3, 6]" in review
    assert "Breaking:" in review and '<a href="/ui/tools/total">total</a>' in review
    assert "expected 6, got 9" in review


def test_a_first_version_has_nothing_to_compare_and_an_active_tool_no_review_tab(reader, app):
    registry = app.state.services.registries.default
    registry.create({**DOUBLE, "name": "fresh"}, created_by="llm")
    review = reader.client.get("/ui/tools/fresh?tab=review").text
    assert "first one to approve" in review and "Breaking" not in review
    active = reader.client.get("/ui/tools/total?tab=review").text
    assert "tab=review" not in active and "cost-bound" not in active  # (the definition tab instead)


def test_a_models_pending_script_shows_its_sandbox_and_no_cost_bound(reader, app):
    script = {"kind": "script", "name": "echo", "description": "Echoes.", "runtime": "bash", "body": "cat"}
    app.state.services.registries.default.create(script, created_by="llm")  # a model's program waits for a person
    review = reader.client.get("/ui/tools/echo?tab=review").text
    assert "its own /tmp inside the sandbox" in review and "Not a compute tool" in review
    assert '<dd class="reach-network">no</dd>' in review
