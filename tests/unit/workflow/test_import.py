"""Lossless n8n import: every fixture comes back the same through `to_n8n()` and through its
DSL text compiled again; modeled nodes become DSL steps only when they re-emit exactly."""

import copy
import json
from pathlib import Path

import pytest

import toolkiln
from toolkiln.errors import CompileError
from toolkiln.syntax.limits import MAX_SOURCE_CHARS
from toolkiln.syntax.workflow_text import parse_workflow
from toolkiln.workflow import compile_workflow, import_n8n

TESTS = Path(__file__).parents[2]
FIXTURES = sorted(
    [
        *TESTS.glob("integration/fixtures/*.json"),
        *TESTS.glob("golden/workflows/*.json"),
        *(TESTS / "unit" / "workflow" / "fixtures").glob("*.json"),
    ]
)  # integration/fixtures:
# the four workflows that ran on a real n8n (../shared/n8n/workflows)
IDS = [f"{p.parent.name}/{p.stem}" for p in FIXTURES]


def load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def same(emitted, original):
    """Nodes (by name: every property), connections and top-level properties are the original's."""
    nodes = {node["name"]: node for node in emitted["nodes"]}
    assert sorted(nodes) == sorted(node["name"] for node in original["nodes"])
    for node in original["nodes"]:
        assert nodes[node["name"]] == node, node["name"]
    rest = {k: v for k, v in emitted.items() if k != "nodes"}
    assert rest == {k: v for k, v in original.items() if k != "nodes"}


@pytest.mark.parametrize("path", FIXTURES, ids=IDS)
def test_import_then_export_gives_the_original(path):
    original = load(path)
    same(import_n8n(copy.deepcopy(original)).to_n8n(), original)


@pytest.mark.parametrize("path", FIXTURES, ids=IDS)
def test_the_dsl_text_compiles_back_to_the_original(path):
    original = load(path)
    text = import_n8n(path.read_text(encoding="utf-8")).to_text()
    same(compile_workflow(text).to_n8n(), original)
    assert compile_workflow(text).to_text() == text  # the printer's canonical form


def test_at_least_the_fixture_set_is_there():
    assert len(FIXTURES) >= 13  # four captured, the golden outputs, the hand-written exports


def test_toolkiln_output_imports_as_dsl_steps():
    text = import_n8n((TESTS / "golden/workflows/order_total.json").read_text()).to_text()
    assert 'on webhook POST "/orders" respond with node' in text
    assert "set priced {\n  total = body.qty * body.price,\n  customer = upper(body.customer),\n}" in text
    assert "if free_shipping priced.total >= 100 and not body.express {" in text
    assert "respond reply_free free" in text and "after free_shipping[1]" in text
    assert "\nnode " not in text and " with {" not in text


def test_editor_nodes_stay_generic_with_their_properties():
    workflow = import_n8n((TESTS / "unit/workflow/fixtures/editor_export.json").read_text())
    steps = {step.name: step for step in workflow.ast.steps}
    assert steps["Normalize"].kind == "node"  # random assignment ids: no DSL step re-emits them
    assert steps["Tell Sales"].node.credentials.name == "Sales Slack"
    assert steps["Tell Sales"].extra["disabled"] is True
    assert "credentials" in steps["Create Lead"].extra  # it has an id: kept raw
    assert steps["Sticky Note"].after == ()
    assert workflow.ast.extra["pinData"]["New Lead"][0]["json"]["body"]["employees"] == 120


def test_ai_connections_stay_raw_in_the_header():
    workflow = import_n8n((TESTS / "unit/workflow/fixtures/ai_agent.json").read_text())
    raw = workflow.ast.extra["connections"]
    assert set(raw) == {"OpenAI Chat Model", "Simple Memory", "Order Lookup"}
    assert raw["Order Lookup"] == {"ai_tool": [[{"node": "AI Agent", "type": "ai_tool", "index": 0}]]}


def test_legacy_settings_and_empty_outputs_round_trip():
    workflow = import_n8n((TESTS / "unit/workflow/fixtures/community_legacy.json").read_text())
    assert workflow.ast.extra["settings"] == {"executionOrder": None}
    emitted = workflow.to_n8n()
    assert emitted["settings"] == {} and emitted["connections"]["Send WhatsApp"] == {"main": [[]]}


def test_a_wait_from_the_editor_is_a_wait_step_with_its_webhook_id():
    workflow = import_n8n((TESTS / "unit/workflow/fixtures/loop_merge_switch.json").read_text())
    pause = next(step for step in workflow.ast.steps if step.name == "pause")
    assert (pause.kind, pause.amount, pause.unit) == ("wait", 2, "seconds")
    assert pause.extra["webhookId"] == "b2000000-0000-4000-8000-00000000000a"


def test_findings_do_not_stop_the_import():
    data = {
        "name": "newer",
        "nodes": [
            {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "parameters": {}},
            {
                "name": "Set",
                "type": "n8n-nodes-base.set",
                "typeVersion": 9,
                "parameters": {"shiny": 1},
                "position": [1, 2],
                "id": "x",
            },
        ],
        "connections": {"Start": {"main": [[{"node": "Set", "type": "main", "index": 0}]]}},
    }
    workflow = import_n8n(copy.deepcopy(data))
    assert [d.code for d in workflow.diagnostics] == ["W0716"]
    exported = workflow.to_n8n()
    assert exported["nodes"][1] == data["nodes"][1] and exported["connections"] == data["connections"]
    # The DSL compiles for the pinned n8n, which has no Set 9: there it is an error.
    assert "E0712" in [d.code for d in toolkiln.workflow.check_workflow(workflow.to_text())]


def test_ids_and_positions_n8n_fills_in_are_added():
    data = {
        "name": "bare",
        "nodes": [{"name": "Go", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1}],
        "connections": {},
    }
    node = import_n8n(data).to_n8n()["nodes"][0]
    assert {"id", "position", "parameters"} <= set(node) and node["parameters"] == {}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("{nope", "not JSON: Expecting property name enclosed in double quotes"),
        ("[1, 2]", "an n8n workflow is a JSON object, not a list"),
        ('{"name": "x"}', "the workflow has no `nodes` list"),
        ('{"nodes": []}', "the workflow has no name"),
        ('{"name": "x", "nodes": [{"type": "n8n-nodes-base.noOp", "typeVersion": 1}]}', "node 0 has no name"),
        ('{"name": "x", "nodes": [{"name": "a", "typeVersion": 1}]}', "node 0 has no type"),
        (
            '{"name": "x", "nodes": [{"name": "a", "type": "t", "typeVersion": "1"}]}',
            "node 0 has no numeric typeVersion",
        ),
        ('{"name": "x", "nodes": [7]}', "node 0 is a number, not an object"),
        ('{"name": "x", "nodes": []}', "the workflow has no nodes to import"),
    ],
)
def test_what_is_not_a_workflow_is_a_compile_error(data, message):
    with pytest.raises(CompileError) as error:
        import_n8n(data, "in.json")
    assert [(d.code, d.message) for d in error.value.diagnostics] == [("E0724", message)]
    assert error.value.diagnostics[0].file == "in.json"


def test_duplicate_names_cannot_be_one_workflow():
    node = {"name": "A", "type": "n8n-nodes-base.noOp", "typeVersion": 1, "parameters": {}}
    with pytest.raises(CompileError) as error:
        import_n8n({"name": "x", "nodes": [node, dict(node)], "connections": {}})
    assert [d.code for d in error.value.diagnostics] == ["E0722"]


def test_cyclic_connections_import_with_a_warning():
    nodes = [{"name": n, "type": "n8n-nodes-base.noOp", "typeVersion": 1, "parameters": {}} for n in "ABC"]
    nodes.insert(0, {"name": "Go", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "parameters": {}})
    link = lambda target: {"main": [[{"node": target, "type": "main", "index": 0}]]}  # noqa: E731
    data = {
        "name": "loop",
        "nodes": nodes,
        "connections": {"Go": link("A"), "A": link("B"), "B": link("C"), "C": link("A")},
    }
    workflow = import_n8n(copy.deepcopy(data))
    assert [d.code for d in workflow.diagnostics] == ["W0723"]
    assert workflow.to_n8n()["connections"] == data["connections"]


def chain(count):
    """A manual trigger, then `count - 1` Set nodes in a row, as the editor writes them."""
    nodes = [
        {
            "id": "n0",
            "name": "Start",
            "type": "n8n-nodes-base.manualTrigger",
            "typeVersion": 1,
            "position": [0, 0],
            "parameters": {},
        }
    ]
    connections = {}
    for i in range(1, count):
        nodes.append(
            {
                "id": f"n{i}",
                "name": f"Step {i}",
                "type": "n8n-nodes-base.set",
                "typeVersion": 3.4,
                "position": [i * 220, 0],
                "parameters": {
                    "assignments": {"assignments": [{"id": f"a{i}", "name": "i", "value": i, "type": "number"}]},
                    "options": {},
                },
            }
        )
        connections[nodes[i - 1]["name"]] = {"main": [[{"node": f"Step {i}", "type": "main", "index": 0}]]}
    return {"name": f"chain {count}", "nodes": nodes, "connections": connections, "settings": {"executionOrder": "v1"}}


def test_a_ten_thousand_node_export_imports_and_lints_clean():
    data = chain(10_000)
    workflow = import_n8n(json.dumps(data))
    assert workflow.diagnostics == ()
    assert workflow.to_n8n()["connections"] == data["connections"]
    assert workflow.to_text().count("\nnode ") == 9_999


def test_a_thousand_node_export_compiles_from_its_text():
    data = chain(1_000)
    parsed, diagnostics = parse_workflow(import_n8n(data).to_text())
    assert diagnostics == [] and len(parsed.steps) == 999


def test_a_five_thousand_node_export_recompiles_from_its_text_when_the_limit_allows():
    data = chain(5_000)
    for node in data["nodes"]:
        node["notes"] = f"checked by {node['name']}"  # about 1.1 MiB of DSL text
    imported = import_n8n(copy.deepcopy(data))
    text = imported.to_text()
    assert len(text) > MAX_SOURCE_CHARS  # the default refuses it: it protects a host from big input
    with pytest.raises(CompileError) as refused:
        compile_workflow(text)
    assert [d.code for d in refused.value.diagnostics] == ["E0401"]
    assert "max_source_chars" in refused.value.diagnostics[0].hint
    assert compile_workflow(text, max_source_chars=len(text)).to_n8n() == imported.to_n8n()
    same(imported.to_n8n(), data)
    assert toolkiln.check_workflow(text, max_source_chars=len(text)) == []
    assert [d.code for d in toolkiln.check_workflow(text, max_source_chars=len(text) - 1)] == ["E0401"]
