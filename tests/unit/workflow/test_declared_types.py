"""Declared types in the compute checker (issue 26): a workflow expression that reads a field a
shape declares (`returns {...}`, a webhook's `body {...}`) gets the field's declared type, so a
misuse is a located type error in the `.wf` text; an undeclared read stays `any` (no new
errors), and the n8n JSON does not change with the declarations."""

import pytest

import toolkiln
from toolkiln.errors import CompileError
from toolkiln.workflow import check_workflow

BODY = " body {qty: number, note: string, customer: {vip: boolean, tags: [string]}, meta: object, extra: any}"
RETURNS = " returns {total: string, count: number, lines: [{sku: string, qty: number}]}"


def workflow(step, body=BODY, returns=RETURNS):
    return (
        'workflow orders\ndescription "d"\n'
        + f'on webhook POST "/orders"{body} respond with node\n'
        + f'http fetch GET "https://shop.invalid/x"{returns}\n'
        + step
        + "\n"
    )


def found(text):
    return [(d.code, d.span.line, d.span.column, d.message) for d in check_workflow(text) if d.code != "W0717"]


@pytest.mark.parametrize(
    ("step", "column", "code", "message"),
    [
        ("respond r fetch.total * 2", 11, "E0301", "`*` (multiply) needs number, but this is string"),
        ("respond r body.qty * body.note", 22, "E0301", "`*` (multiply) needs number, but this is string"),
        ("respond r body.customer.tags[0] + 1", 35, "E0301", "`+` on text needs string, but this is integer"),
        ("respond r fetch.lines[0].sku * 3", 11, "E0301", "`*` (multiply) needs number, but this is string"),
        ("respond r upper(fetch.count)", 17, "E0303", "argument `text` of upper must be string, not number"),
        (
            "if big body.note { respond a 1 } else { respond b 2 }",
            8,
            "E0302",
            "the condition of `big` is string, not boolean",
        ),
    ],
)
def test_a_misuse_of_a_declared_type_is_a_located_error(step, column, code, message):
    text = workflow(step)
    assert found(text) == [(code, 5, column, message)]
    with pytest.raises(CompileError):
        toolkiln.compile_workflow(text)
    assert found(workflow(step, body="", returns="")) == []  # undeclared: `any`, as before


@pytest.mark.parametrize(
    "step",
    [
        "respond r fetch.count * 2",
        "respond r body.qty * fetch.lines[0].qty",
        "respond r len(body.customer.tags) + fetch.count",
        "respond r upper(fetch.total) + body.note",
        "if big body.customer.vip { respond a 1 } else { respond b 2 }",
        "respond r body.meta.anything * 2",  # `object`: its fields are `any`
        "respond r body.extra * 2",  # `any`
    ],
)
def test_a_right_use_of_declared_types_checks_clean(step):
    assert found(workflow(step)) == []


@pytest.mark.parametrize(
    ("steps", "found_"),
    [
        ("set s { t = fetch.total, u = 1 }\nrespond r s.t * 2", [("E0301", 6, 11)]),
        ("set s { t = fetch.total }\nset s2 { v = s.t }\nrespond r s2.v * 2", [("E0301", 7, 11)]),
        ("set s { t = fetch }\nrespond r s.t.count * 2", []),
        ("set s { t = fetch.count }\nrespond r s.t * 2", []),
        ("set s { t = fetch.total, u = 1 }\nrespond r s.u * 2", []),  # `u` reads nothing declared: `any`
    ],
)
def test_a_set_step_that_copies_a_declared_field_passes_its_type_on(steps, found_):
    assert [(code, line, column) for code, line, column, _ in found(workflow(steps))] == found_
    assert found(workflow(steps, body="", returns="")) == []


def test_the_n8n_json_is_written_without_the_declared_types():
    # A Set field's n8n type and a respond's text-or-JSON come from the types the expression has
    # without declarations: n8n converts by them, and a declaration must not change what it runs.
    step = "set s { t = fetch.total, n = fetch.count, tags = body.customer.tags }\nset s2 { u = s.t }\nrespond r s2.u"
    declared = toolkiln.compile_workflow(workflow(step)).to_n8n()
    assert declared == toolkiln.compile_workflow(workflow(step, body="", returns="")).to_n8n()
    types = [
        a["type"]
        for node in declared["nodes"]
        if node["type"].endswith(".set")
        for a in node["parameters"]["assignments"]["assignments"]
    ]
    assert types == ["any", "any", "any", "any"]
