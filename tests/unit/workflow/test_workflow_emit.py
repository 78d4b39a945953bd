"""The n8n emitter: node shapes checked against the node catalog, data flow, ids, layout."""

import pytest

from toolkiln.backends.n8n.catalog import load_catalog
from toolkiln.backends.n8n.expressions import js_string
from toolkiln.errors import CompileError
from toolkiln.workflow import compile_workflow

SOURCE = """workflow orders
description "d"
on webhook POST "/orders/new" respond with node
set priced { total = body.qty * body.price, name = lower(body.name) }
if big priced.total > 100 and not body.rush {
  set tag { label = "big" }
  respond yes priced
} else {
  respond no { }
}
"""


def nodes(source):
    return {node["name"]: node for node in compile_workflow(source).to_n8n()["nodes"]}


@pytest.mark.parametrize("n8n_version", ["2.41.1", "1.123.50"])
def test_every_node_type_version_and_parameter_is_in_the_catalog(n8n_version):
    catalog = load_catalog(n8n_version)
    manual = SOURCE.replace('on webhook POST "/orders/new" respond with node', "on manual")
    manual = manual.replace("respond yes priced", "").replace("respond no { }", "").replace("body.", "priced.")
    manual = manual.replace("priced.qty * priced.price", "1").replace("lower(priced.name)", '"x"')
    manual = manual.replace("not priced.rush", "priced.total < 1000")  # `priced` sets no `rush`
    for source in (SOURCE.replace("respond no { }", "respond no priced"), manual):
        for node in compile_workflow(source).to_n8n()["nodes"]:
            assert catalog.has(node["type"], node["typeVersion"]), node["type"]
            names = catalog.node_type(node["type"]).version(node["typeVersion"]).parameter_names
            assert set(node["parameters"]) <= names, (node["type"], set(node["parameters"]) - names)


def test_expressions_read_json_of_the_input_and_named_nodes_otherwise():
    got = nodes(SOURCE.replace("respond no { }", "respond no priced.total"))
    total, name = got["priced"]["parameters"]["assignments"]["assignments"]
    assert total == {
        "id": total["id"],
        "name": "total",
        "type": "number",
        "value": "={{ ($json.body.qty * $json.body.price) }}",
    }
    assert name["value"] == "={{ String($json.body.name).toLowerCase() }}" and name["type"] == "string"
    condition = got["big"]["parameters"]["conditions"]["conditions"][0]
    assert condition["leftValue"] == "={{ (($json.total > 100) && (!$('Webhook').item.json.body.rush)) }}"
    assert condition["operator"] == {"type": "boolean", "operation": "true", "singleValue": True}
    assert got["yes"]["parameters"]["responseBody"] == "={{ $('priced').item.json }}"  # after `tag`
    assert got["no"]["parameters"]["responseBody"] == "={{ $json.total }}"  # IF passes through
    webhook = got["Webhook"]
    assert webhook["parameters"] == {
        "httpMethod": "POST",
        "path": "orders/new",
        "responseMode": "responseNode",
        "options": {},
    }


def test_connections_ids_and_layout():
    source = SOURCE.replace("respond no { }", "respond no priced")
    workflow = compile_workflow(source).to_n8n()
    assert set(workflow) == {"name", "nodes", "connections", "settings"}
    assert workflow["settings"] == {"executionOrder": "v1"}
    assert workflow["connections"]["big"] == {
        "main": [[{"node": "tag", "type": "main", "index": 0}], [{"node": "no", "type": "main", "index": 0}]]
    }
    assert workflow == compile_workflow(source).to_n8n()  # stable ids
    renamed = compile_workflow(source.replace("workflow orders", "workflow other")).to_n8n()
    assert {n["id"] for n in renamed["nodes"]}.isdisjoint({n["id"] for n in workflow["nodes"]})
    positions = {n["name"]: n["position"] for n in workflow["nodes"]}
    assert positions["Webhook"] == [0, 0] and positions["priced"] == [220, 0]
    assert positions["tag"][0] == positions["no"][0] == 660 and positions["tag"][1] < positions["no"][1]


def test_text_response_and_string_escaping():
    got = nodes('workflow t\ndescription "d"\non webhook GET "/t" respond with node\nrespond r "}} {{ x"\n')
    assert got["r"]["parameters"]["respondWith"] == "text"
    assert "}}" not in got["r"]["parameters"]["responseBody"][:-2]
    assert js_string('a"}') == '"a\\"\\u007d"'


@pytest.mark.parametrize("expression", ["1 - -2", "2 ** 3", 'abs(-1) + floor(1.5) + ceil(0.5) + len("ab")'])
def test_arithmetic_translates(expression):
    source = f'workflow t\ndescription "d"\non manual\nset a {{ x = {expression} }}\n'
    value = nodes(source)["a"]["parameters"]["assignments"]["assignments"][0]["value"]
    assert value.startswith("={{ ") and value.endswith(" }}")


MANUAL = "workflow t\n{header}\non manual{trigger}\nset a {{ x = 1 }}{step}\nset b {{ y = 2 }}\n"


def compiled(header='description "d"', trigger="", step=""):
    return compile_workflow(MANUAL.format(header=header, trigger=trigger, step=step)).to_n8n()


def test_header_settings_are_merged_and_written_as_given_nulls_too():
    workflow = compiled('with {"settings": {"errorWorkflow": null, "saveManualExecutions": true}, "staticData": null}')
    assert workflow["settings"] == {"executionOrder": "v1", "errorWorkflow": None, "saveManualExecutions": True}
    assert workflow["staticData"] is None


def test_settings_given_as_null_are_written_as_null():
    assert compiled('with {"settings": null}')["settings"] is None


def test_omit_leaves_out_what_toolkiln_would_write():
    workflow = compiled(
        'with {"toolkiln:omit": ["name", "connections"], "settings": {"toolkiln:omit": ["executionOrder"]}}',
        trigger=' with {"toolkiln:omit": ["position"]}',
        step=' with {"toolkiln:omit": ["id", "parameters"]}',
    )
    assert set(workflow) == {"nodes", "settings"} and workflow["settings"] == {}
    trigger, a, _ = workflow["nodes"]
    assert "position" not in trigger and "id" in trigger
    assert set(a) == {"name", "type", "typeVersion", "position"}


def test_the_trigger_index_places_the_trigger_among_the_nodes():
    names = [node["name"] for node in compiled(trigger=' with {"toolkiln:index": 2}')["nodes"]]
    assert names == ["a", "b", "Manual Trigger"]


@pytest.mark.parametrize(
    ("parts", "message"),
    [
        ({"header": 'with {"toolkiln:omit": "name"}'}, "`toolkiln:omit` is not a list of property names"),
        ({"step": ' with {"toolkiln:omit": [1]}'}, "`toolkiln:omit` is not a list of property names"),
        ({"trigger": ' with {"toolkiln:index": 3}'}, "`toolkiln:index` is not a node index from 0 to 2"),
        ({"trigger": ' with {"toolkiln:index": true}'}, "`toolkiln:index` is not a node index from 0 to 2"),
        ({"step": ' with {"toolkiln:index": 1}'}, "`toolkiln:index` places only the trigger"),
    ],
)
def test_a_malformed_toolkiln_key_is_an_error(parts, message):
    with pytest.raises(CompileError) as error:
        compiled(**parts)
    assert [(d.code, d.message) for d in error.value.diagnostics] == [("E0106", message)]
