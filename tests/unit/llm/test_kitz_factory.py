"""Kitz's toolFactory_* names as aliases of the meta-tools (issue 27, item 3): a model prompted
the Kitz way creates, lists and deletes tools with Kitz's arguments, through toolkiln's checks
and policy, and can create a tool from a template, which no toolkiln meta-tool offered."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from toolkiln import Registry
from toolkiln.llm import Reply, ScriptedClient, ToolCall, ToolResult, agent_loop
from toolkiln.llm.kitz_factory import KITZ_FACTORY_NAMES, call_kitz_factory, kitz_factory_definitions

# A bulk price as Kitz's createCompute takes it: 10% off from 100 units.
BULK = {
    "steps": [
        {"op": "math", "expression": "unit_price * quantity", "output": "total"},
        {"op": "condition", "if": "quantity >= 100", "then": [{"op": "return", "value": "total * 0.9"}]},
        {"op": "return", "value": "total"},
    ]
}
COMPUTE = {
    "tool_name": "bulk_price",
    "tool_description": "Order total with a bulk discount",
    "tool_parameters": {"unit_price": {"type": "number"}, "quantity": {"type": "integer"}},
    "logic": BULK,
}


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[Registry]:
    with Registry(tmp_path / "r", durable=False) as reg:
        yield reg


def test_the_four_names_in_every_format() -> None:
    assert KITZ_FACTORY_NAMES == (
        "toolFactory_createFromTemplate",
        "toolFactory_createCompute",
        "toolFactory_listCustomTools",
        "toolFactory_deleteCustomTool",
    )
    for format_ in ("openai", "anthropic", "mcp", "gemini"):
        assert len(kitz_factory_definitions(format_)) == 4
    (gemini,) = [d for d in kitz_factory_definitions("gemini") if d["name"] == "toolFactory_createCompute"]
    assert gemini["parameters"]["properties"]["logic"]["type"] == "STRING"  # Gemini: object arguments as text


def test_create_compute_with_kitz_arguments(registry: Registry) -> None:
    reply = call_kitz_factory(registry, "toolFactory_createCompute", COMPUTE)
    assert (reply["ok"], reply["success"], reply["toolName"]) == (True, True, "bulk_price")
    record = registry.get("bulk_price")
    # Kitz's createCompute makes every tool medium risk; a model's medium-risk compute tool is active.
    assert (record.created_by, record.risk_level, record.status) == ("llm", "medium", "active")
    assert registry.run("bulk_price", {"unit_price": 2.5, "quantity": 120}) == Decimal("270")


def test_create_compute_as_json_text_and_with_kitz_lookup_meaning(registry: Registry) -> None:
    logic = {
        "steps": [
            {"op": "lookup", "table": "rates", "key": "domestic", "output": "rate"},
            {"op": "condition", "if": "rate > limit", "then": [{"op": "return", "value": "limit"}]},
            {"op": "return", "value": "rate"},
        ]
    }
    arguments = {**COMPUTE, "tool_name": "rate", "tool_parameters": "{}", "logic": json.dumps(logic)}
    reply = call_kitz_factory(registry, "toolFactory_createCompute", arguments)
    assert reply["ok"], reply
    assert [w["code"] for w in reply["warnings"]] == ["W1103"]  # Kitz read `rate > limit` as false
    assert registry.run("rate", {"rates": {"domestic": 7}, "limit": 5}) == 5


def test_missing_and_mistyped_arguments_are_named_as_kitz_names_them(registry: Registry) -> None:
    reply = call_kitz_factory(registry, "toolFactory_createCompute", {"tool_name": 3, "logic": "{not json"})
    assert reply["ok"] is False and reply["error"] == reply["message"]
    found = {(e["path"], e["message"]) for e in reply["errors"]}
    assert ("tool_name", "argument `tool_name` must be a string") in found
    assert ("tool_description", "missing argument `tool_description`") in found
    assert ("tool_parameters", "missing argument `tool_parameters`") in found
    assert any(path == "logic" and "not valid JSON" in message for path, message in found)
    assert registry.list() == []


def test_a_definition_that_does_not_check_reports_each_problem(registry: Registry) -> None:
    bad = {**COMPUTE, "logic": {"steps": [{"op": "return", "value": "quantity *"}]}}
    reply = call_kitz_factory(registry, "toolFactory_createCompute", bad)
    assert reply["ok"] is False and reply["errors"][0]["code"] == "E0101"
    assert reply["errors"][0]["path"] == "logic.steps[0].value"


def test_create_from_a_toolkiln_template_waits_for_approval(registry: Registry) -> None:
    arguments = {
        "template": "order-status-notify",
        "tool_name": "order_status",
        "tool_description": "Tells a customer about their order",
        "customizations": {"crm_url": "https://crm.example.com/api", "name": "ignored", "active": True},
    }
    reply = call_kitz_factory(registry, "toolFactory_createFromTemplate", arguments)
    assert reply["success"] is True, reply
    record = registry.get("order_status")
    made = (record.kind, record.status, record.created_by, record.risk_level)
    assert made == ("workflow", "pending_approval", "llm", "medium")
    assert 'on webhook POST "/order-status" respond with node' in record.definition["workflow"]


@pytest.mark.parametrize(
    ("arguments", "code"),
    [
        ({"template": "order-status-notfy"}, "E0801"),  # no such template (the hint names the closest)
        ({"template": "order-status-notify", "customizations": {"crm_url": "ftp://x"}}, "E0804"),
        ({"template": "daily-summary", "customizations": {"owner_phone": "+34600000000"}}, "E0707"),  # a schedule
    ],
)
def test_a_template_that_cannot_be_a_tool_says_why(registry: Registry, arguments: dict[str, Any], code: str) -> None:
    reply = call_kitz_factory(
        registry, "toolFactory_createFromTemplate", {"tool_name": "t", "tool_description": "d", **arguments}
    )
    assert reply["ok"] is False and reply["errors"][0]["code"] == code, reply
    assert reply["errors"][0]["hint"]
    assert "t" not in registry


def test_list_by_kitz_type_and_delete_without_confirm(registry: Registry) -> None:
    call_kitz_factory(registry, "toolFactory_createCompute", COMPUTE)
    arguments = {"template": "new-lead-welcome", "tool_name": "welcome", "tool_description": "Welcomes a lead"}
    call_kitz_factory(registry, "toolFactory_createFromTemplate", arguments)
    listed = call_kitz_factory(registry, "toolFactory_listCustomTools", {"type": "n8n"})
    assert [(t["name"], t["type"]) for t in listed["tools"]] == [("welcome", "n8n")]
    assert call_kitz_factory(registry, "toolFactory_listCustomTools", {})["count"] == 2
    wrong = call_kitz_factory(registry, "toolFactory_listCustomTools", {"type": "python"})
    assert wrong["errors"][0]["path"] == "type"
    deleted = call_kitz_factory(registry, "toolFactory_deleteCustomTool", {"tool_name": "bulk_price"})
    assert deleted["success"] is True and "bulk_price" not in registry


def test_a_model_cannot_delete_a_persons_tool_by_kitz_name(registry: Registry) -> None:
    registry.create({"name": "mine", "description": "A person's", "logic": {"steps": [{"op": "return", "value": "1"}]}})
    reply = call_kitz_factory(registry, "toolFactory_deleteCustomTool", {"tool_name": "mine"})
    assert reply["ok"] is False and reply["errors"][0]["code"].startswith("R02")
    assert "mine" in registry


def test_an_unknown_name_or_arguments_that_are_no_object(registry: Registry) -> None:
    assert "there is no meta-tool" in call_kitz_factory(registry, "toolFactory_createFromDescription", {})["message"]
    assert call_kitz_factory(registry, "toolFactory_createCompute", "[1]")["ok"] is False


def test_the_agent_loop_offers_and_carries_out_the_kitz_names(registry: Registry) -> None:
    client = ScriptedClient(
        [Reply(tool_calls=[ToolCall("c1", "toolFactory_createCompute", COMPUTE)]), Reply(text="done")]
    )
    result = agent_loop(client, "make a bulk price tool", registry, meta_names="kitz")
    offered = [tool["function"]["name"] for tool in client.requests[0].tools]
    assert offered == list(KITZ_FACTORY_NAMES) and "create_compute_tool" not in offered
    (outcome,) = [json.loads(m.content) for m in result.transcript if isinstance(m, ToolResult)]
    assert outcome["success"] is True and "bulk_price" in registry
