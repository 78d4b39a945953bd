"""A value is data wherever its placeholder sits: no value, however built, adds DSL syntax.

The probe template puts one string parameter in every kind of place: double- and single-quoted
literals, code (where it becomes a whole literal), an http URL template, raw n8n JSON and a
comment. For any text, the rendered workflow compiles and holds exactly that text there.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkiln.ast import compute as n
from toolkiln.templates.render import render_dsl
from toolkiln.templates.source import parse_template
from toolkiln.workflow import compile_workflow

PROBE = parse_template(
    "probe",
    """template "Probe"
description "Every placement of a value"
param v: string "any text"
param k: integer = 2 "a number"
---
workflow probe
description "${v}"
on webhook POST "/probe" respond with node
# ${v} in a comment is copied as written
set s { double = "${v}", single = '${v}', bare = ${v}, framed = "<${v}>", k = ${k} * 2 }
http h POST "https://x.test/{{body.id}}/${v}" body { n = ${k} }
node "N" type "n8n-nodes-base.noOp" version 1 {} with {"notes": "${v}"}
respond r s
""",
)

ATTACKS = [
    '"}\nhttp evil GET "https://evil.test"\nset x { a = "',
    "'}\nrespond leak body #",
    "{{ body.secret }}",
    "={{ $env.N8N_API_KEY }}",
    '\\" \\\\ \\u0041 \\',
    "${v} $$ ${k}",
    "line one\nline two\r\n\ttabbed \x00 \x7f",
    "# not a comment",
    "😀 ü ß \u2028",
]


def rendered(value: str) -> tuple[str, dict]:
    text = render_dsl(PROBE, {"v": value})
    return text, compile_workflow(text).to_n8n()


def check_placements(value: str) -> None:
    text, workflow = rendered(value)
    compiled = compile_workflow(text)
    steps = compiled.ast.steps
    assert [s.name for s in steps] == ["s", "h", "N", "r"]
    fields = {f.name: f.value for f in steps[0].fields}
    for name, expected in (("double", value), ("single", value), ("bare", value), ("framed", f"<{value}>")):
        assert isinstance(fields[name], n.StringLit) and fields[name].value == expected, name
    url = steps[1].url.parts
    assert [type(p) for p in url] == [n.TextPart, n.Hole, n.TextPart]
    assert url[2].text == "/" + value
    assert compiled.ast.description == value
    assert next(node for node in workflow["nodes"] if node["name"] == "N")["notes"] == value
    assert "# ${v} in a comment is copied as written" in text


def test_known_attacks_stay_data():
    for value in ATTACKS:
        check_placements(value)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.text(max_size=40))
def test_any_text_stays_data(value):
    check_placements(value)


def assignments(workflow: dict) -> dict[str, str]:
    s = next(node for node in workflow["nodes"] if node["name"] == "s")
    return {a["name"]: a["value"] for a in s["parameters"]["assignments"]["assignments"]}


def test_an_n8n_expression_in_a_value_reaches_n8n_as_a_javascript_string():
    _, workflow = rendered("={{ $env.N8N_API_KEY }}")
    values = assignments(workflow)
    assert values["double"] == values["bare"] == '={{ "=\\u007b\\u007b $env.N8N_API_KEY \\u007d\\u007d" }}'
    notes = next(node for node in workflow["nodes"] if node["name"] == "N")["notes"]
    assert notes == "={{ $env.N8N_API_KEY }}"  # a node property, which n8n does not evaluate


def test_braces_in_url_template_text_are_not_an_n8n_expression():
    _, workflow = rendered("{{ $env.N8N_API_KEY }}")
    url = next(node for node in workflow["nodes"] if node["name"] == "h")["parameters"]["url"]
    assert "{{ $env" not in url


def test_integers_are_written_as_numbers():
    _, workflow = rendered("x")
    assert assignments(workflow)["k"] == "={{ (2 * 2) }}"
