"""The registry as MCP tools, without a transport: the list, calls and their failures."""

from __future__ import annotations

import pytest

from toolkiln import Registry
from toolkiln.registry.names import META_TOOL_NAMES
from toolkiln.server.mcp_tools import RUN_CUSTOM_TOOL, call_tool, fingerprint, tool_list


def definition(name: str, expression: str = "x * 2", **extra):
    return {
        "name": name,
        "description": "A test tool",
        "parameters": {"x": {"type": "number"}},
        "logic": {"steps": [{"op": "return", "value": expression}]},
        **extra,
    }


@pytest.fixture
def reg(tmp_path):
    with Registry(tmp_path / "registry", durable=False) as registry:
        registry.create(definition("double"))
        yield registry


def test_the_list_is_the_active_tools_the_meta_tools_and_run_custom_tool(reg):
    reg.create(definition("waiting", riskLevel="high"), created_by="llm")  # pending: not listed
    listed = {tool["name"]: tool for tool in tool_list(reg)}
    assert set(listed) == {"double", *META_TOOL_NAMES, RUN_CUSTOM_TOOL}
    assert listed["double"]["inputSchema"]["properties"] == {"x": {"type": "number"}}
    assert listed[RUN_CUSTOM_TOOL]["inputSchema"]["required"] == ["name"]


def test_calls_return_results_and_failures_as_data(reg):
    assert call_tool(reg, "double", {"x": 0.1}).payload == {"ok": True, "result": 0.2}
    bad = call_tool(reg, "double", {"x": "a"})
    assert bad.is_error and bad.payload["errors"][0]["code"] == "E0508"
    missing = call_tool(reg, "nothing", {})
    assert missing.is_error and missing.payload["errors"][0]["code"] == "R0102"


def test_run_custom_tool_reaches_any_active_tool_and_refuses_bad_arguments(reg):
    assert call_tool(reg, RUN_CUSTOM_TOOL, {"name": "double", "args": {"x": 4}}).payload["result"] == 8
    for wrong in ({}, {"name": 3}, {"name": "double", "args": [1]}):
        refused = call_tool(reg, RUN_CUSTOM_TOOL, wrong)
        assert refused.is_error and refused.payload["errors"][0]["code"] == "R0104"


def test_meta_tools_act_as_a_model(reg):
    made = call_tool(reg, "create_compute_tool", {"definition": definition("risky", riskLevel="high")})
    assert not made.is_error and reg.get("risky").status == "pending_approval"  # a model's risky tool waits
    refused = call_tool(reg, "delete_custom_tool", {"name": "double", "confirm": True})
    assert refused.is_error and refused.payload["errors"][0]["code"] == "R0201"  # a person's tool


def test_the_fingerprint_changes_with_the_active_tools_only(reg):
    before = fingerprint(reg)
    reg.create(definition("waiting", riskLevel="high"), created_by="llm")
    assert fingerprint(reg) == before
    reg.update("double", {"description": "Doubles"})
    assert fingerprint(reg) != before


def test_dates_in_results_are_iso_text_for_mcp(reg):
    """MCP carries JSON: a date or datetime result is ISO 8601 text, never a Python object the
    transport's JSON encoder would refuse."""
    reg.create(
        {
            "name": "due_in_a_week",
            "description": "A due date",
            "parameters": {"sent": {"type": "string", "format": "date-time"}},
            "logic": {"steps": [{"op": "return", "value": "[add_days(to_date(sent), 7), to_zone(sent, 'UTC')]"}]},
        }
    )
    called = call_tool(reg, "due_in_a_week", {"sent": "2026-01-31T23:30:00-01:00"})
    assert called.payload == {"ok": True, "result": ["2026-02-07", "2026-02-01T00:30:00Z"]}
