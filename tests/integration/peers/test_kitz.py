"""Kitz's files as they are (issue 27, item 3): its two ComputeLogic examples run with the
results Kitz's evaluator gives; its custom-tool files (data/custom-tools/*.json) import with
what each field means there; its 28 n8n workflows import losslessly (test_kitz_n8n.py runs
them on the real n8n). The corpus (../shared/corpus/peers/kitz/) is read where it lies.

Kitz has no custom-tool files in its repository (they are written at run time), so the tests
write them in Kitz's format (customToolTypes.ts: CustomToolDef) around the corpus' logic.
"""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from peers_corpus import peer, read_json

import toolkiln
from toolkiln import Registry
from toolkiln.registry.kitz import import_kitz, read_kitz

KITZ = peer("kitz")
SHIPPING = read_json(KITZ / "compute" / "shipping_cost.logic.json")
PRICE = read_json(KITZ / "compute" / "price_times_quantity.logic.json")
CREATED_AT = "2026-02-24T10:00:00.000Z"


# Kitz's evaluator (customToolTypes.ts) in JavaScript numbers: 12 kg is 12 * 2.50 + 5.00 = 35,
# over 10 kg so 35 * 0.9 = 31.5; 10 kg is not over 10 (`>`), 30; 3 kg is 12.5;
# 10.5 kg is (26.25 + 5) * 0.9 = 28.125.
@pytest.mark.parametrize(("weight", "kitz_result"), [(12, 31.5), (10, 30), (3, 12.5), (10.5, 28.125)])
def test_the_shipping_example_runs_as_kitz_runs_it(weight, kitz_result):
    assert toolkiln.compile(SHIPPING).run({"weight_kg": weight}) == Decimal(str(kitz_result))


def test_the_shipping_message_fills_the_hole_after_the_dollar_as_kitz_does():
    # Kitz replaces each `{{name}}` with the variable's text: "${{base_cost}}" is "$" + value.
    logic = {"steps": [*SHIPPING["steps"][:-1], {"op": "return", "value": "message"}]}
    assert toolkiln.compile(logic).run({"weight_kg": 12}) == "Shipping cost: $31.5"
    # 10 * 2.50 + 5.00 is the exact 30.00, written in a hole as JavaScript's String(30) is.
    assert toolkiln.compile(logic).run({"weight_kg": 10}) == "Shipping cost: $30"


def test_the_price_example_runs_as_kitz_runs_it():
    tool = toolkiln.compile(PRICE)
    assert list(tool.parameters["properties"]) == ["price", "quantity"]
    assert tool.run({"price": 2.5, "quantity": 4}) == 10


def kitz_file(folder: Path, name: str, **fields) -> None:
    custom = folder / "data" / "custom-tools"
    custom.mkdir(parents=True, exist_ok=True)
    (custom / f"{name}.json").write_text(json.dumps({"name": name, "createdAt": CREATED_AT, **fields}, indent=2))


@pytest.fixture
def kitz_data(tmp_path):
    """A Kitz data/ folder: custom tools as its toolFactory writes them, its 28 workflows."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "n8n-workflows").symlink_to(KITZ / "n8n-workflows")
    kitz_file(
        tmp_path,
        "shipping_cost",
        description="Shipping cost of a parcel",
        type="compute",
        parameters={"weight_kg": {"type": "number", "description": "Weight in kg"}},
        riskLevel="low",
        createdBy="toolFactory_compute",
        logic=SHIPPING,
    )
    kitz_file(
        tmp_path,
        "notify_new_lead",
        description="Scores a new lead and drafts a follow-up",
        type="n8n",
        parameters={},
        riskLevel="medium",
        createdBy="toolFactory",
        n8nWorkflowId="17",
        templateSource="new-lead-notification",
    )
    return tmp_path / "data"


def test_a_compute_tool_and_a_template_tool_import_keeping_what_they_mean(kitz_data, tmp_path):
    reg = Registry(tmp_path / "registry")
    done = import_kitz(reg, kitz_data)
    assert (done.problems, done.warnings) == ([], [])
    shipping, lead = reg.get("shipping_cost"), reg.get("notify_new_lead")
    # Kitz's toolFactory is its model: the tools are the model's, under the model's policy.
    assert (shipping.created_by, shipping.status, shipping.risk_level) == ("llm", "active", "low")
    assert reg.run("shipping_cost", {"weight_kg": 12}) == Decimal("31.5")
    assert (lead.kind, lead.created_by, lead.status, lead.risk_level) == (
        "workflow",
        "llm",
        "pending_approval",
        "medium",
    )
    assert 'type "n8n-nodes-base.webhook"' in lead.definition["workflow"]
    notes = [json.loads(line)["note"] for line in (tmp_path / "registry" / "audit.jsonl").read_text().splitlines()]
    assert f"imported from Kitz shipping_cost.json: createdAt {CREATED_AT}, createdBy toolFactory_compute" in notes
    assert any("templateSource new-lead-notification, n8nWorkflowId 17" in note for note in notes)


def test_a_tool_a_person_made_in_kitz_is_the_importers(kitz_data, tmp_path):
    kitz_file(kitz_data.parent, "price", description="Price", type="compute", createdBy="owner", logic=PRICE)
    tool = next(t for t in read_kitz(kitz_data, "user").tools if t.file == "price.json")
    assert tool.created_by == "user"
    assert next(t for t in read_kitz(kitz_data, "llm").tools if t.file == "price.json").created_by == "llm"


def test_a_lookup_reads_its_key_as_the_literal_kitz_reads(kitz_data, tmp_path):
    logic = {
        "steps": [
            {"op": "lookup", "table": "rates", "key": "domestic", "output": "rate"},
            {"op": "lookup", "table": "rates", "key": "missing", "output": "other"},
            {"op": "return", "value": "[rate, other]"},
        ]
    }
    kitz_file(kitz_data.parent, "rate", description="Rate", type="compute", createdBy="toolFactory", logic=logic)
    reg = Registry(tmp_path / "registry")
    import_kitz(reg, kitz_data)
    # `domestic` is the key itself, not a variable; a missing key is Kitz's undefined: null.
    assert reg.run("rate", {"rates": {"domestic": 4.5}}) == [Decimal("4.5"), None]


def test_a_condition_kitz_did_not_compute_is_a_warning(kitz_data, tmp_path):
    steps = [
        {"op": "condition", "if": "weight_kg > limit", "then": [{"op": "return", "value": "1"}]},
        {"op": "return", "value": "0"},
    ]
    kitz_file(kitz_data.parent, "heavy", description="Heavy?", type="compute", logic={"steps": steps})
    reg = Registry(tmp_path / "registry")
    done = import_kitz(reg, kitz_data)
    (warning,) = done.warnings
    assert (warning.code, warning.file, warning.span.path) == ("W1103", "heavy.json", "logic.steps[0].if")
    # Kitz read `weight_kg > limit` as false (a name on the right is no number); toolkiln compares.
    assert reg.run("heavy", {"weight_kg": 12, "limit": 10}) == 1


@pytest.mark.parametrize(
    ("fields", "code", "message"),
    [
        ({"type": "compute", "logic": PRICE}, "E1101", "a Kitz custom tool needs `description`, a string"),
        ({"description": "x", "type": "python"}, "E1101", "`type` is 'python': a Kitz tool is `compute` or `n8n`"),
        ({"description": "x", "type": "compute"}, "E1101", 'a compute tool needs `logic`: {"steps": [...]}'),
        (
            {"description": "x", "type": "n8n", "n8nWorkflowId": "19", "createdBy": "toolFactory_llm"},
            "E1102",
            "the tool runs n8n workflow '19' of Kitz's n8n, which is not in the folder",
        ),
        (
            {"description": "x", "type": "n8n", "n8nWorkflowId": "3", "templateSource": "daily-report"},
            "E1102",
            "the template daily-report.json starts on a schedule, not a webhook: it cannot be called as a tool",
        ),
        (
            {"description": "x", "type": "n8n", "templateSource": "no-such-template"},
            "E1102",
            "the template `no-such-template` is not in",
        ),
    ],
)
def test_a_file_that_cannot_be_imported_says_why_and_the_others_import(kitz_data, tmp_path, fields, code, message):
    kitz_file(kitz_data.parent, "broken", **fields)
    reg = Registry(tmp_path / "registry")
    done = import_kitz(reg, kitz_data)
    (problem,) = done.problems
    (diagnostic,) = problem.diagnostics
    assert (problem.file, diagnostic.code, diagnostic.file) == ("broken.json", code, "broken.json")
    assert diagnostic.message.startswith(message) and diagnostic.hint
    assert sorted(r.name for r in done.created) == ["notify_new_lead", "shipping_cost"]


def test_a_file_that_is_not_json_or_a_tool_that_does_not_check(kitz_data, tmp_path):
    (kitz_data / "custom-tools" / "junk.json").write_text("{not json")
    kitz_file(kitz_data.parent, "Bad-Name", description="x", type="compute", logic=PRICE)
    done = import_kitz(Registry(tmp_path / "registry"), kitz_data)
    problems = {p.file: p.diagnostics[0] for p in done.problems}
    assert problems["junk.json"].code == "E1101" and "not JSON" in problems["junk.json"].message
    assert problems["Bad-Name.json"].code.startswith("E") and problems["Bad-Name.json"].span.path == "name"


def test_the_command_imports_the_folder_and_reports_each_file(kitz_data, tmp_path):
    kitz_file(kitz_data.parent, "gen", description="x", type="n8n", n8nWorkflowId="19", createdBy="toolFactory_llm")
    done = subprocess.run(
        [sys.executable, "-m", "toolkiln", "tools", "--registry", str(tmp_path / "reg"), "import", "--from", "kitz"]
        + [str(kitz_data)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "created notify_new_lead (workflow, version 1, pending_approval)" in done.stdout
    assert "created shipping_cost (compute, version 1, active)" in done.stdout
    assert "error[E1102]" in done.stderr and "gen.json" in done.stderr
    assert "2 imported, 1 not imported" in done.stderr


def test_a_model_creates_a_tool_from_a_kitz_template_by_kitz_name(tmp_path):
    from toolkiln.llm.kitz_factory import call_kitz_factory

    reg = Registry(tmp_path / "registry")
    arguments = {"template": "new-lead-notification", "tool_name": "lead", "tool_description": "New lead"}
    reply = call_kitz_factory(reg, "toolFactory_createFromTemplate", arguments, kitz_templates=KITZ / "n8n-workflows")
    assert reply["success"] is True, reply
    assert (reg.get("lead").kind, reg.get("lead").status) == ("workflow", "pending_approval")
    assert '"path": "kitz-new-lead"' in reg.get("lead").definition["workflow"]
    scheduled = {**arguments, "template": "daily-report", "tool_name": "daily"}
    refused = call_kitz_factory(reg, "toolFactory_createFromTemplate", scheduled, kitz_templates=KITZ / "n8n-workflows")
    assert refused["ok"] is False and refused["errors"][0]["code"] == "E1102"
