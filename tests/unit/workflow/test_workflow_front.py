"""The workflow front end: text -> AST, with exact spans, and syntax diagnostics."""

from decimal import Decimal

from toolkiln.ast import compute as n
from toolkiln.ast import workflow as w
from toolkiln.syntax.workflow_text import parse_workflow

SOURCE = """workflow orders
description "Prices orders"
on webhook POST "/orders" respond with node
set priced { total = body.qty * 2, label = "a, b" if body.vip else "c" }
if big priced.total > 100 {
  respond yes priced
} else {
  respond no (1 if priced.total > 5 else 2)
}
"""


def parse(text):
    workflow, diagnostics = parse_workflow(text)
    return workflow, [(d.code, d.message) for d in diagnostics]


def test_parses_header_trigger_and_steps():
    workflow, diagnostics = parse(SOURCE)
    assert diagnostics == []
    assert (workflow.name, workflow.description) == ("orders", "Prices orders")
    assert workflow.trigger == w.WebhookTrigger(
        method="POST", path="/orders", respond_with_node=True, span=workflow.trigger.span
    )
    priced, big = workflow.steps
    assert isinstance(priced, w.SetStep) and [f.name for f in priced.fields] == ["total", "label"]
    assert isinstance(priced.fields[1].value, n.Conditional)  # the comma inside the string is text
    assert isinstance(big, w.IfStep) and [s.name for s in big.then] == ["yes"]
    assert [s.name for s in big.otherwise] == ["no"]
    assert isinstance(big.otherwise[0].body, n.Conditional)


def test_expression_spans_point_into_the_file():
    workflow, _ = parse(SOURCE)
    total = workflow.steps[0].fields[0].value
    assert SOURCE[total.span.start : total.span.end] == "body.qty * 2"
    assert (total.span.line, total.span.column) == (4, 22)
    assert total.right == n.NumberLit(value=Decimal(2), span=total.right.span)
    condition = workflow.steps[1].condition
    assert SOURCE[condition.span.start : condition.span.end] == "priced.total > 100"
    assert condition.span.line == 5


def test_manual_trigger_and_webhook_without_respond_mode():
    workflow, diagnostics = parse('workflow m\ndescription "d"\non manual\nset a { x = 1 }\n')
    assert diagnostics == [] and workflow.trigger.kind == "manual"
    workflow, _ = parse('workflow m\ndescription "d"\non webhook GET "/x"\nset a { x = 1 }\n')
    assert workflow.trigger.respond_with_node is False and workflow.trigger.method == "GET"


def test_expression_errors_are_located_in_the_file():
    text = 'workflow m\ndescription "d"\non manual\nset a { x = 1 + * 2 }\n'
    workflow, diagnostics = parse_workflow(text)
    assert workflow is None
    (error,) = diagnostics
    assert error.code == "E0101" and (error.span.line, error.span.column) == (4, 17)


def test_syntax_errors_and_missing_parts():
    assert parse('workflow m\ndescription "d"\nset a { x = 1 }')[1][0][0] == "E0101"  # no trigger
    assert parse('workflow m\ndescription "d"\non manual\nset a { x 1 }')[1][0][0] == "E0101"
    assert parse('workflow m\ndescription "d\non manual')[1][0][0] == "E0102"
    assert parse("workflow m\non manual\nset a { x = 1 }")[1] == [("E0108", "workflow `m` has no description")]
    assert parse('workflow M\ndescription "d"\non manual')[1][0][0] == "E0110"
    assert parse('workflow m\ndescription "d"\non manual\nset if { x = 1 }')[1][0][0] == "E0110"
    assert parse('workflow m\ndescription "d"\non manual\nset a { x = 1, x = 2 }')[1][0][0] == "E0210"


def test_bad_triggers():
    assert parse('workflow m\ndescription "d"\non webhook SEND "/x"')[1][0][0] == "E0707"
    assert parse('workflow m\ndescription "d"\non webhook POST "/a b"')[1][0][0] == "E0707"
