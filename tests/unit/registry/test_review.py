"""What a person approving a tool is shown (registry/review.py): what it reaches, its cost
bound, and for a new version the parameters and result that changed, the approved version's
examples that now give other results, and the callers it breaks."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from toolkiln import Registry
from toolkiln.registry.errors import CheckTooSlow
from toolkiln.registry.review import review
from toolkiln.semantics.limits import Limits


def double(factor: str = "2", expect: int = 4, **extra: object) -> dict:
    return {
        "name": "double",
        "description": "Double.",
        "riskLevel": "high",  # a model's tool of high risk waits for approval
        "parameters": {"x": {"type": "number"}, **extra.pop("parameters", {})},  # type: ignore[dict-item]
        "logic": {"steps": [{"op": "return", "value": f"x * {factor}"}]},
        "examples": [{"args": {"x": 2}, "expect": expect}],
        **extra,
    }


QUAD = {
    "name": "quad",
    "description": "Four times.",
    "parameters": {"y": {"type": "number"}},
    "logic": {
        "steps": [
            {"op": "call", "tool": "double", "args": {"x": "y"}, "output": "a"},
            {"op": "call", "tool": "double", "args": {"x": "a"}, "output": "b"},
            {"op": "return", "value": "b"},
        ]
    },
    "examples": [{"args": {"y": 1}, "expect": 4}],
}


def approved_then_changed(tmp_path, **changes) -> Registry:
    reg = Registry(tmp_path / "r", durable=False)
    reg.create(double(), created_by="llm")
    reg.approve("double", by="user")
    reg.create(QUAD, created_by="user")
    reg.update("double", double(**changes), by="llm")
    assert reg.get("double").status == "pending_approval"
    return reg


def test_a_new_version_shows_its_changes_against_the_approved_one_and_the_callers_it_breaks(tmp_path):
    reg = approved_then_changed(tmp_path, factor="3", expect=6, parameters={"note": {"type": "string", "default": ""}})
    shown = review(reg, "double")
    assert (shown.version, shown.approved) == (2, 1)
    assert [(c.name, c.change) for c in shown.parameters] == [("note", "added")]
    assert [(e.args, e.approved, e.now) for e in shown.examples] == [('{"x": 2}', "4", "6")]
    assert shown.breaking and [b.caller for b in shown.broken_callers] == ["quad"]
    assert "expected 4, got 9" in shown.broken_callers[0].problem
    assert shown.cost is not None and shown.reach.calls == () and not shown.reach.network


def test_a_version_that_keeps_its_callers_examples_is_not_breaking(tmp_path):
    reg = approved_then_changed(tmp_path, factor="(1 + 1)")
    shown = review(reg, "double")
    assert shown.approved == 1 and shown.examples == [] and shown.parameters == []
    assert not shown.breaking


def test_a_narrowed_parameter_and_a_changed_result_are_named(tmp_path):
    reg = Registry(tmp_path / "r", durable=False)
    reg.create(double(), created_by="llm")
    reg.approve("double", by="user")
    narrowed = double(parameters={"x": {"type": "integer"}})
    narrowed["logic"] = {"steps": [{"op": "return", "value": "text(x * 2)"}]}
    narrowed["examples"] = [{"args": {"x": 2}, "expect": "4"}]
    reg.update("double", narrowed, by="llm")
    shown = review(reg, "double")
    assert [(c.name, c.change) for c in shown.parameters] == [("x", "narrowed")]
    assert shown.result == ("number", "string")
    assert [e.now for e in shown.examples] == ['"4"']


def test_a_first_version_shows_what_it_reaches_and_costs(tmp_path):
    reg = Registry(tmp_path / "r", durable=False)
    reg.create(double(), created_by="llm")
    reg.create(
        {
            "name": "many",
            "description": "Doubles each.",
            "riskLevel": "high",
            "parameters": {"xs": {"type": "array", "items": {"type": "number"}}},
            "logic": {
                "steps": [
                    {"op": "call", "tool": "double", "args": {"x": "len(xs)"}, "output": "n"},
                    {"op": "return", "value": "[x * n for x in xs]"},
                ]
            },
        },
        created_by="llm",
    )
    shown = review(reg, "many")
    assert shown.approved is None and shown.reach.calls == ("double",)
    assert shown.cost is not None and "len(xs)" in shown.cost, shown.cost


def test_a_script_shows_the_network_and_the_hosts_files(tmp_path):
    reg = Registry(tmp_path / "r", durable=False)
    script = {"kind": "script", "name": "echo", "description": "Echoes.", "runtime": "bash", "body": "cat"}
    reg.create({**script, "network": True, "sandbox": "none"}, created_by="user")
    shown = review(reg, "echo")
    assert shown.reach.network and "host" in shown.reach.files and shown.cost is None


SPIN = "len([v ** 0.12345 + v ** 0.54321 for v in range(n)])"  # n = 1,500: about 0.15 s a run


def test_a_review_with_a_budget_ends_within_it(tmp_path):
    """The page asks for a review within the time a check that saves nothing may take: the
    examples it runs stop at that total (R0305), not at each one's own max_seconds."""
    spin = {
        "name": "spin",
        "description": "Spins.",
        "riskLevel": "high",
        "parameters": {"n": {"type": "number"}},
        "logic": {"steps": [{"op": "return", "value": SPIN}]},
        "examples": [{"args": {"n": 1_500}, "expect": 1_500}] * 4,
    }
    # Each example may take 30 s (a loaded machine needed more than the default 1 s in set-up):
    # what stops the review is its own total.
    reg = Registry(tmp_path / "r", durable=False, limits=Limits(max_seconds=30))
    reg.create(spin, created_by="llm")
    reg.approve("spin", by="user")
    reg.update("spin", {**spin, "logic": {"steps": [{"op": "return", "value": f"{SPIN} + 0"}]}}, by="llm")
    started = time.monotonic()
    with pytest.raises(CheckTooSlow) as raised:
        review(reg, "spin", seconds=0.1)
    budgeted = time.monotonic() - started
    started = time.monotonic()
    assert review(reg, "spin").examples == []  # without a budget: every example runs, and passes
    whole = time.monotonic() - started
    # Wall clock on a shared machine: against the same review without a budget, run right after
    # (four examples of about 0.15 s), not against a fixed bound that load can exceed.
    assert raised.value.code == "R0305" and budgeted < whole / 2


def test_a_models_workflow_shows_n8n(tmp_path):
    workflow = (Path(__file__).resolve().parents[2] / "golden" / "workflows" / "switch_merge.wf").read_text()
    reg = Registry(tmp_path / "r", durable=False)
    definition = {"kind": "workflow", "name": "probe", "description": "Probe.", "parameters": {"n": {"type": "number"}}}
    reg.create({**definition, "workflow": workflow}, created_by="llm")
    shown = review(reg, "probe")
    assert shown.reach.n8n and shown.reach.files == "none" and shown.cost is None and shown.cost_note is None


def test_the_review_names_every_caller_a_new_version_would_reach(tmp_path):
    reg = Registry(tmp_path / "r", durable=False)
    reg.create(double(), created_by="llm")
    reg.approve("double", by="user")
    reg.create(QUAD, created_by="user")
    steps = [{"op": "call", "tool": "quad", "args": {"y": "y"}, "output": "a"}, {"op": "return", "value": "a * 2"}]
    reg.create({**QUAD, "name": "octo", "logic": {"steps": steps}, "examples": [{"args": {"y": 1}, "expect": 8}]})
    reg.update("double", double(factor="(1 + 1)"), by="llm")
    assert review(reg, "double").callers == ["quad", "octo"]  # through quad too, callees first
    assert review(reg, "octo").callers == []
