"""Declared shapes in the workflow DSL (issue 26, item 4): `returns {...}` of a `node` (a Code
node) or `http` step and a webhook's `body {...}` parse, print back, leave the n8n JSON as it
was, and feed the checks: E0720 for the DSL's own reads, W0733 for raw `$json` reads."""

import pytest

import toolkiln
from toolkiln.errors import CompileError
from toolkiln.workflow import check_workflow

HEAD = 'workflow orders\ndescription "d"\n'
BODY = ' body {qty: number, "unit price": number, customer: {id: string, tags: [string]}}'
CODE = 'node "Code" type "n8n-nodes-base.code" version 2 {"jsCode": "return [{json: {sku: 1}}]"}'
READER = 'node "Use" type "n8n-nodes-base.noOp" version 1 {"a": "={{ $json.skuu }}"}\n'
DECLARED = (
    HEAD
    + 'on webhook POST "/orders"'
    + BODY
    + " respond with node\n"
    + 'http fetch GET "https://shop.invalid/x" returns {id: number, name: string}\n'
    + CODE
    + " returns {sku: string, tags: array}\n"
    + "respond r fetch.id + body.qty\n"
)


def codes_of(text):
    return [(d.code, d.span.line, d.message, d.hint) for d in check_workflow(text) if d.code != "W0717"]


def test_declarations_print_back_and_round_trip():
    printed = toolkiln.compile_workflow(DECLARED).to_text()
    assert f'on webhook POST "/orders"{BODY} respond with node' in printed
    assert "  returns {id: number, name: string}" in printed
    assert printed.count("returns {sku: string, tags: array}") == 1
    assert toolkiln.compile_workflow(printed).to_text() == printed


def test_the_n8n_json_is_what_it_is_without_the_declarations():
    bare = DECLARED.replace(BODY, "")
    bare = bare.replace(" returns {id: number, name: string}", "").replace(" returns {sku: string, tags: array}", "")
    assert toolkiln.compile_workflow(DECLARED).to_n8n() == toolkiln.compile_workflow(bare).to_n8n()


def test_a_read_of_an_undeclared_field_is_e0720_with_a_did_you_mean():
    text = DECLARED.replace("respond r fetch.id + body.qty", "respond r fetch.idd + body.qtty")
    assert codes_of(text) == [
        ("E0720", 6, "`fetch` declares no field `idd`", "did you mean `id`?"),
        ("E0720", 6, "`body` declares no field `qtty`", "did you mean `qty`?"),
    ]
    undeclared = text.replace(" returns {id: number, name: string}", "").replace(BODY, "")
    assert codes_of(undeclared) == []


@pytest.mark.parametrize(
    ("declaration", "reader", "found"),
    [
        (" returns {sku: string}", READER, [("W0733", 5, "no field `skuu` in the input of `Use`: it has `sku`")]),
        ("", READER, []),
        (" returns {sku: string}", READER.replace("skuu", "sku"), []),
    ],
)
def test_a_code_nodes_declared_return_feeds_the_data_flow_check(declaration, reader, found):
    text = HEAD + 'on webhook POST "/orders"\n' + CODE + declaration + "\n" + reader
    assert [(code, line, message) for code, line, message, _ in codes_of(text)] == found


def test_an_http_steps_declared_response_feeds_the_data_flow_check():
    reader = 'node "Use" type "n8n-nodes-base.noOp" version 1 {"a": "={{ $(\'fetch\').item.json.nme }}"}\n'
    text = (
        HEAD + 'on webhook POST "/orders"\nhttp fetch GET "https://shop.invalid/x" returns {id: number, name: string}\n'
    )
    [(code, line, message, hint)] = codes_of(text + reader)
    assert (code, line, message, hint) == (
        "W0733",
        5,
        "no field `nme` in `fetch`'s output: it has `id`, `name`",
        "did you mean `name`?",
    )
    assert codes_of(text.replace(" returns {id: number, name: string}", "") + reader) == []


@pytest.mark.parametrize(
    ("shape", "message"),
    [("{id: integer}", "unknown field type `integer`"), ("{id: number, id: string}", "field `id` is declared twice")],
)
def test_a_bad_shape_is_e0737(shape, message):
    text = HEAD + f'on webhook POST "/orders" body {shape}\n'
    with pytest.raises(CompileError) as raised:
        toolkiln.compile_workflow(text)
    [diagnostic] = raised.value.diagnostics
    assert (diagnostic.code, diagnostic.message, diagnostic.span.line) == ("E0737", message, 3)


@pytest.mark.parametrize(
    ("expression", "found"),
    [
        ("$json.body.qtty", "no field `body.qtty` in the input of `Use`: `body` has `qty`"),
        ("$('Webhook').item.json.body.qyt", "no field `body.qyt` in `Webhook`'s output: `body` has `qty`"),
        ("$json.body.qty", None),
        ("$json.body.qtty || 0", None),  # a fallback: a missing field is expected
    ],
)
def test_a_webhooks_declared_body_is_checked_in_node_parameters_through_an_if(expression, found):
    text = (
        HEAD
        + 'on webhook POST "/orders" body {qty: number}\nif big body.qty > 1 {\n'
        + f'  node "Use" type "n8n-nodes-base.noOp" version 1 {{"a": "={{{{ {expression} }}}}"}}\n'
        + "}\n"
    )
    assert [message for _, _, message, _ in codes_of(text)] == ([found] if found else [])
    assert codes_of(text.replace(" body {qty: number}", "")) == []
