"""Nested declared shapes (issue 26, item 4): `{customer: {id: string, tags: [string]}}` in a
`returns {...}` or a webhook's `body {...}`. The checks follow a read into the objects it
declares (`$json.customer.id`, `$('fetch').item.json.customer.id`, the DSL's
`fetch.customer.id`); a bad or outsized shape is E0737 with its place."""

import pytest

import toolkiln
from toolkiln.errors import CompileError
from toolkiln.workflow import check_workflow

HEAD = 'workflow orders\ndescription "d"\n'
RETURNS = " returns {id: number, customer: {id: string, tags: [string], address: {city: string}}, notes: object}"
FETCH = 'http fetch GET "https://shop.invalid/x"'


def found(text):
    return [(d.code, d.span.line, d.message, d.hint) for d in check_workflow(text) if d.code != "W0717"]


def reader(expression):
    return f'node "Use" type "n8n-nodes-base.noOp" version 1 {{"a": "={{{{ {expression} }}}}"}}\n'


def flow(expression, returns=RETURNS):
    return HEAD + 'on webhook POST "/orders"\n' + FETCH + returns + "\n" + reader(expression)


@pytest.mark.parametrize(
    ("expression", "message", "hint"),
    [
        (
            "$json.customer.idd",
            "no field `customer.idd` in the input of `Use`: `customer` has `address`, `id`, `tags`",
            "did you mean `customer.id`?",
        ),
        (
            "$json.customer.address.cty",
            "no field `customer.address.cty` in the input of `Use`: `customer.address` has `city`",
            "did you mean `customer.address.city`?",
        ),
        (
            "$('fetch').item.json.customer['tagz']",
            "no field `customer.tagz` in `fetch`'s output: `customer` has `address`, `id`, `tags`",
            "did you mean `customer.tags`?",
        ),
        (
            "$json.custmer.id",
            "no field `custmer` in the input of `Use`: it has `customer`, `id`, `notes`",
            "did you mean `customer`?",
        ),
    ],
)
def test_a_missing_nested_field_is_a_warning_naming_the_fields_at_its_level(expression, message, hint):
    assert found(flow(expression)) == [("W0733", 5, message, hint)]


@pytest.mark.parametrize(
    "expression",
    [
        "$json.customer.id",
        "$json.customer.address.city",
        "$json['customer']['tags']",
        "$json.customer.tags.length",  # a list: what follows is not a field
        "$json.customer.id.toUpperCase()",
        "$json.notes.anything.at.all",  # `object`: its fields are not declared
        "$json.customer.idd || ''",  # a fallback: a missing field is expected
        "$('fetch').item.json.customer.address.city",
    ],
)
def test_reads_of_what_is_declared_or_unknown_stay_silent(expression):
    assert found(flow(expression)) == []


def test_without_the_declaration_nothing_is_reported():
    assert found(flow("$json.customer.idd", returns="")) == []


def test_a_webhooks_nested_body_is_followed_through_an_if():
    text = (
        HEAD
        + 'on webhook POST "/orders" body {customer: {id: string}}\nif big body.customer.id == "x" {\n  '
        + reader("$json.body.customer.iid")
        + "}\n"
    )
    assert found(text) == [
        (
            "W0733",
            5,
            "no field `body.customer.iid` in the input of `Use`: `body.customer` has `id`",
            "did you mean `body.customer.id`?",
        )
    ]


@pytest.mark.parametrize(
    ("read", "message", "hint"),
    [
        ("fetch.customer.idd", "`fetch.customer` declares no field `idd`", "did you mean `id`?"),
        ("fetch.customer.address.zip", "`fetch.customer.address` declares no field `zip`", "its fields: `city`"),
        ("fetch.custmer.id", "`fetch` declares no field `custmer`", "did you mean `customer`?"),
        ("body.customer.nme", "`body.customer` declares no field `nme`", "did you mean `name`?"),
    ],
)
def test_a_dsl_read_of_a_missing_nested_field_is_e0720_once(read, message, hint):
    text = (
        HEAD
        + 'on webhook POST "/orders" body {customer: {name: string}} respond with node\n'
        + FETCH
        + RETURNS
        + f"\nrespond r {read}\n"
    )
    assert found(text) == [("E0720", 5, message, hint)]


def test_dsl_reads_of_declared_or_undeclared_objects_check_clean():
    text = HEAD + 'on webhook POST "/orders" respond with node\n' + FETCH + RETURNS
    text += "\nset s { city = fetch.customer.address.city, n = fetch.notes.x.y, tags = fetch.customer.tags }\n"
    assert found(text + "respond r s\n") == []


def test_a_nested_shape_prints_back_and_leaves_the_n8n_json_as_it_was():
    text = flow("$json.customer.id")
    compiled = toolkiln.compile_workflow(text)
    printed = compiled.to_text()
    assert "returns {id: number, customer: {id: string, tags: [string], address: {city: string}}, notes: object}" in (
        printed
    )
    assert toolkiln.compile_workflow(printed).to_text() == printed
    assert compiled.to_n8n() == toolkiln.compile_workflow(text.replace(RETURNS, "")).to_n8n()


@pytest.mark.parametrize(
    ("shape", "message", "column"),
    [
        ("{c: {id: integr}}", "unknown field type `integr`", 41),
        ("{c: [strin]}", "unknown field type `strin`", 37),
        ("{c: {id string}}", "unexpected `string` in a declared shape", 40),
        ("{c: [string}", "unexpected `}` in a declared shape", 43),
        ("{c: []}", "unexpected `]` in a declared shape", 37),
        ("{c: {id: string, id: number}}", "field `id` is declared twice", 49),
    ],
)
def test_a_bad_nested_shape_is_e0737_at_its_place(shape, message, column):
    text = HEAD + f'on webhook POST "/orders" body {shape}\n'
    with pytest.raises(CompileError) as raised:
        toolkiln.compile_workflow(text)
    [diagnostic] = raised.value.diagnostics
    assert (diagnostic.code, diagnostic.message, diagnostic.span.line, diagnostic.span.column) == (
        "E0737",
        message,
        3,
        column,
    )


def test_a_syntax_error_after_a_whole_shape_is_no_shape_error():
    text = HEAD + 'on webhook POST "/orders"\n' + FETCH + " returns {a: string} oops\n"
    assert [d.code for d in check_workflow(text)] == ["E0101"]


def nested(levels):
    return "{a: " * (levels - 1) + "{b: string}" + "}" * (levels - 1)


def test_a_shape_eight_levels_deep_is_accepted_and_nine_is_e0737():
    assert found(HEAD + f'on webhook POST "/orders" body {nested(8)}\n') == []
    [(code, _, message, _)] = found(HEAD + f'on webhook POST "/orders" body {nested(9)}\n')
    assert (code, message) == ("E0737", "a declared shape nested deeper than 8 levels")
    lists = "{a: " + "[" * 8 + "string" + "]" * 8 + "}"
    [(code, _, message, _)] = found(HEAD + f'on webhook POST "/orders" body {lists}\n')
    assert (code, message) == ("E0737", "a declared shape nested deeper than 8 levels")


def test_a_hostile_shape_is_refused_with_e0737_not_a_crash():
    # 190 levels (the parser's own bracket limit is 200), and 1,200 fields (600 + 600 nested).
    [(code, _, message, _)] = found(HEAD + f'on webhook POST "/orders" body {nested(190)}\n')
    assert (code, message) == ("E0737", "a declared shape nested deeper than 8 levels")
    wide = "{" + ", ".join(f"f{i}: {{x: number}}" for i in range(600)) + "}"
    [(code, _, message, _)] = found(HEAD + f'on webhook POST "/orders" body {wide}\n')
    assert (code, message) == ("E0737", "a declared shape of more than 1000 fields")
