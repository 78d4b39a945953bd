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
    """Exactly the original: nodes in their order with every property, connections and
    top-level properties (nulls and all)."""
    assert [node["name"] for node in emitted["nodes"]] == [node["name"] for node in original["nodes"]]
    for again, node in zip(emitted["nodes"], original["nodes"], strict=True):
        assert again == node, node["name"]
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
    assert len(FIXTURES) >= 18  # four captured, the golden outputs, the hand-written exports


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


def fixture(name):
    return load(TESTS / "unit" / "workflow" / "fixtures" / f"{name}.json")


def test_legacy_settings_and_empty_outputs_round_trip():
    workflow = import_n8n(fixture("community_legacy"))
    assert workflow.ast.extra["settings"] == {"toolkiln:omit": ["executionOrder"]}
    emitted = workflow.to_n8n()
    assert emitted["settings"] == {} and emitted["connections"]["Send WhatsApp"] == {"main": [[]]}


def test_a_nameless_export_stays_nameless():
    """What the editor copies to the clipboard: no name, no settings (n8n imports it)."""
    workflow = import_n8n(fixture("nameless_clipboard"))
    assert workflow.ast.name == "unnamed"
    assert workflow.ast.extra["toolkiln:omit"] == ["name", "settings"]
    assert workflow.to_text().startswith('workflow unnamed\nwith {"pinData": {}, "meta": ')
    assert "name" not in workflow.to_n8n() and "name" not in compile_workflow(workflow.to_text()).to_n8n()


@pytest.mark.parametrize("name", ["", "   ", 7, None])
def test_a_name_the_dsl_cannot_say_is_kept_in_the_header(name):
    data = {**fixture("nameless_clipboard"), "name": name}
    workflow = import_n8n(copy.deepcopy(data))
    assert (workflow.ast.name, workflow.ast.extra["name"]) == ("unnamed", name)
    assert workflow.to_n8n() == data == compile_workflow(workflow.to_text()).to_n8n()


def test_null_settings_are_kept_as_nulls():
    data = fixture("null_settings")
    workflow = import_n8n(copy.deepcopy(data))
    assert workflow.ast.extra["settings"]["errorWorkflow"] is None
    assert workflow.to_n8n()["settings"] == data["settings"]
    assert workflow.ast.extra["staticData"] is None and workflow.ast.extra["x-exported-by"] == "a script"


def test_an_empty_main_beside_an_ai_connection_is_kept():
    workflow = import_n8n(fixture("ai_tool_empty_main"))
    assert workflow.ast.extra["connections"]["Clock"]["main"] == [[]]
    assert workflow.to_n8n()["connections"]["Clock"] == {
        "main": [[]],
        "ai_tool": [[{"node": "AI Agent", "type": "ai_tool", "index": 0}]],
    }


def test_the_nodes_keep_their_order_when_the_trigger_is_not_first():
    data = fixture("trigger_not_first")
    workflow = import_n8n(copy.deepcopy(data))
    assert workflow.ast.trigger.node.name == "Start" and workflow.ast.trigger.extra["toolkiln:index"] == 2
    assert [step.name for step in workflow.ast.steps] == ["Mark done", "Check", "Sticky Note"]
    assert [node["name"] for node in workflow.to_n8n()["nodes"]] == ["Mark done", "Check", "Start", "Sticky Note"]


def test_a_wait_from_the_editor_is_a_wait_step_with_its_webhook_id():
    workflow = import_n8n((TESTS / "unit/workflow/fixtures/loop_merge_switch.json").read_text())
    pause = next(step for step in workflow.ast.steps if step.name == "pause")
    assert (pause.kind, pause.amount, pause.unit) == ("wait", 2, "seconds")
    assert pause.extra["webhookId"] == "b2000000-0000-4000-8000-00000000000a"


def test_findings_do_not_stop_the_import():
    data = {
        "name": "newer",
        "nodes": [
            {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0]},
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
    # The DSL compiles for the pinned n8n, which has no Set 9: a warning, an error when strict.
    assert "W0716" in [d.code for d in toolkiln.workflow.check_workflow(workflow.to_text())]
    assert "E0712" in [d.code for d in toolkiln.workflow.check_workflow(workflow.to_text(), strict=True)]


def test_nodes_without_ids_or_positions_come_back_without_them():
    data = fixture("nodes_without_ids")
    workflow = import_n8n(copy.deepcopy(data))
    assert [step.extra for step in workflow.ast.steps] == [{"toolkiln:omit": ["id", "position"]}]
    assert workflow.to_n8n()["nodes"] == data["nodes"]


def test_a_bare_export_comes_back_bare():
    data = {"nodes": [{"name": "Go", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1}]}
    workflow = import_n8n(copy.deepcopy(data))
    assert workflow.ast.trigger.extra == {"toolkiln:omit": ["id", "position", "parameters"]}
    assert workflow.to_n8n() == data == compile_workflow(workflow.to_text()).to_n8n()


def test_toolkiln_output_without_ids_still_imports_as_dsl_steps():
    data = load(TESTS / "golden/workflows/order_total.json")
    for node in data["nodes"]:
        del node["id"]
    workflow = import_n8n(copy.deepcopy(data))
    assert {step.kind for step in workflow.ast.steps} == {"set", "if", "respond"}
    assert workflow.ast.trigger.extra == {"toolkiln:omit": ["id"]}
    assert workflow.to_n8n() == data


def test_a_schedule_the_dsl_cannot_say_stays_a_generic_trigger():
    """n8n takes an expression in a cron; the DSL's `cron "..."` takes five or six fields."""
    data = fixture("null_settings")
    rule = data["nodes"][0]["parameters"]["rule"]["interval"][0]
    rule["expression"] = "=0 {{ Math.floor(Math.random() * 11) }} 8-23 * * *"
    workflow = import_n8n(copy.deepcopy(data))
    assert workflow.ast.trigger.kind == "node"
    assert compile_workflow(workflow.to_text()).to_n8n() == data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("{nope", "not JSON: Expecting property name enclosed in double quotes"),
        ("[1, 2]", "an n8n workflow is a JSON object, not a list"),
        ('{"name": "x"}', "the workflow has no `nodes` list"),
        ('{"name": "x", "nodes": [{"type": "n8n-nodes-base.noOp", "typeVersion": 1}]}', "node 0 has no name"),
        ('{"name": "x", "nodes": [{"name": "a", "typeVersion": 1}]}', "node 0 has no type"),
        (
            '{"name": "x", "nodes": [{"name": "a", "type": "t", "typeVersion": "1"}]}',
            "node 0 has no numeric typeVersion",
        ),
        ('{"name": "x", "nodes": [7]}', "node 0 is a number, not an object"),
        ('{"name": "x", "nodes": []}', "the workflow has no nodes to import"),
        (
            '{"nodes": [{"name": "a", "type": "t", "typeVersion": 1, "toolkiln:omit": []}]}',
            "`toolkiln:omit` is toolkiln's own key, not an n8n property",
        ),
        (
            '{"nodes": [{"name": "a", "type": "t", "typeVersion": 1}], "settings": {"toolkiln:index": 1}}',
            "`toolkiln:index` is toolkiln's own key, not an n8n property",
        ),
    ],
)
def test_what_is_not_a_workflow_is_a_compile_error(data, message):
    with pytest.raises(CompileError) as error:
        import_n8n(data, "in.json")
    assert [(d.code, d.message) for d in error.value.diagnostics] == [("E0724", message)]
    assert error.value.diagnostics[0].file == "in.json"


def test_cyclic_connections_import_with_a_warning():
    nodes = [{"name": n, "type": "n8n-nodes-base.noOp", "typeVersion": 1, "position": [0, 0]} for n in "ABC"]
    nodes.insert(0, {"name": "Go", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0]})
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


def test_connections_of_any_shape_come_back_as_they_were():
    data = fixture("nodes_without_ids")
    data["connections"].update({"Pass on": {}, "Ghost": None})
    workflow = import_n8n(copy.deepcopy(data))
    assert workflow.ast.extra["connections"] == {"Pass on": {}, "Ghost": None}
    assert workflow.to_n8n() == data == compile_workflow(workflow.to_text()).to_n8n()


def test_a_node_may_have_any_name():
    data = {"nodes": [{"name": "__workflow__", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1}]}
    assert import_n8n(copy.deepcopy(data)).to_n8n() == data


def _set(parameters, path, value):
    *keys, last = path
    for key in keys:
        parameters = parameters[key]
    parameters[last] = value


# A value the DSL cannot say in a node the importer models (the AST's nodes take what they are
# given, so the importer checks it: modeled.py).
UNSAYABLE = [
    ("order_total", "Webhook", ("httpMethod",), "TRACE"),
    ("order_total", "Webhook", ("httpMethod",), None),
    ("lead_router", "leads", ("method",), "TRACE"),
    ("lead_router", "leads", ("queryParameters", "parameters", 0, "name"), 7),
    ("lead_router", "settle", ("unit",), "weeks"),
    # text that would print as DSL steps of its own if it reached the printer unchecked
    ("lead_router", "leads", ("method",), 'GET "http://127.0.0.1/"\nrespond leak body\n#'),
    ("lead_router", "settle", ("unit",), "seconds\nrespond leak body"),
    ("lead_router", "Schedule Trigger", ("rule", "interval", 0), {"field": "seconds", "secondsInterval": 30}),
    ("lead_router", "Schedule Trigger", ("rule", "interval", 0), {"field": "weeks", "weeksInterval": 2}),
]


@pytest.mark.parametrize(("export", "name", "path", "value"), UNSAYABLE)
def test_a_value_the_dsl_cannot_say_keeps_its_node_generic(export, name, path, value):
    data = load(TESTS / "golden" / "workflows" / f"{export}.json")
    _set(next(node for node in data["nodes"] if node["name"] == name)["parameters"], path, value)
    workflow = import_n8n(copy.deepcopy(data))
    steps = {step.name: step for step in workflow.ast.steps}
    kind = steps[name].kind if name in steps else workflow.ast.trigger.kind
    assert kind == "node"
    assert compile_workflow(workflow.to_text()).to_n8n() == data
