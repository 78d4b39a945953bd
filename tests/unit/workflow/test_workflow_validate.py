"""The workflow validator: each code, located at the offending name or step."""

import pytest

from toolkiln.workflow import check_workflow

HEAD = 'workflow w\ndescription "d"\non webhook POST "/w" respond with node\n'


def codes(body, head=HEAD):
    return [(d.code, d.message) for d in check_workflow(head + body)]


def test_a_valid_workflow_has_no_diagnostics():
    assert codes("set a { x = body.n * 2 }\nif big a.x > 3 { respond r a } else { respond s body }") == []


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        ("set a { x = 1 }\nset a { y = 2 }\nrespond r a", "E0701", "`a` is already a step"),
        ("set body { x = 1 }\nrespond r body", "E0701", "`body` is already the trigger's data"),
        ("set Webhook { x = 1 }\nrespond r body", "E0701", "`Webhook` is already the trigger's node"),
        ("set a { x = order.n }\nrespond r a", "E0702", "no step or trigger data named `order`"),
        ("set a { x = b.n }\nset b { y = 1 }\nrespond r a", "E0703", "`b` is not upstream of `a`"),
        ("set a { x = a.n }\nrespond r a", "E0703", "`a` cannot read its own output"),
        (
            "if c body.n > 1 { set t { x = 1 } } else { set f { x = 2 } }\nset after { y = t.x }\nrespond r after",
            "E0703",
            "`t` does not run on every path to `after`",
        ),
        (
            "if c body.n > 1 { set t { x = 1 } respond r t } else { respond s f }\nset f { x = 1 }",
            "E0703",
            "`f` is not upstream of `s`",
        ),
        (
            "if c body.n > 1 { respond r body }\nset a { x = c.n }",
            "E0708",
            "`c` is an if step and produces no fields of its own",
        ),
        ("set a { x = 1, y = 2 }\nset b { z = a.q }\nrespond r b", "E0720", "`a` sets no field `q`"),
        ('set a { x = "s" * 2 }\nrespond r a', "E0301", "`*` (multiply) needs number, but this is string"),
        ("set a { x = nope(1) }\nrespond r a", "E0204", "unknown function `nope`"),
        ("if c body.n + 1 { respond r body }", "E0302", "the condition of `c` is number, not boolean"),
        ("set a { x = round(body.n, 2) }\nrespond r a", "E0706", "`round(...)` has no n8n translation"),
        ("set a { x = text(body.n) }\nrespond r a", "E0706", "`text(...)` has no n8n translation"),
        ("set a { x = number(body.s) }\nrespond r a", "E0706", "`number(...)` has no n8n translation"),
    ],
)
def test_codes(body, code, message):
    assert (code, message) in codes(body)


def test_respond_needs_a_webhook_that_responds_with_a_node():
    manual = 'workflow w\ndescription "d"\non manual\n'
    assert codes("respond r 1", manual)[0][0] == "E0704"
    plain = 'workflow w\ndescription "d"\non webhook POST "/w"\n'
    assert codes("set a { x = 1 }\nrespond r a", plain)[0][0] == "E0704"
    assert codes("set a { x = 1 }")[0] == ("E0705", "the webhook responds with a node, but no step responds")


def test_diagnostics_are_located_and_suggest_names():
    (unknown,) = check_workflow(HEAD + "set priced { x = 1 }\nset b { y = pricd.x }\nrespond r b", file="w.wf")
    assert (unknown.file, unknown.span.line, unknown.span.column) == ("w.wf", 5, 13)
    assert unknown.hint == "did you mean `priced`?" and unknown.snippet == "set b { y = pricd.x }"


def test_a_missing_field_hints_the_closest_and_a_loop_variable_is_not_a_step():
    (diagnostic,) = check_workflow(HEAD + "set priced { total = 1 }\nset b { t = priced.totl }\nrespond r b")
    assert (diagnostic.code, diagnostic.hint, diagnostic.span.column) == ("E0720", "did you mean `total`?", 13)
    shadowed = "set a { x = 1 }\nset b { n = sum(a.q for a in body.items) }\nrespond r b"
    assert "E0720" not in [code for code, _ in codes(shadowed)]
