"""The web page's parts without a server: the test form from a JSON Schema, highlighting, the
side-by-side diff and the workflow drawing."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkiln.server.web.form_fields import FormValues, form_fields, read_arguments
from toolkiln.server.web.highlight import dsl_tokens, json_tokens
from toolkiln.server.web.side_by_side import side_by_side
from toolkiln.server.web.workflow_svg import workflow_svg
from toolkiln.workflow import compile_workflow

SCHEMA = {
    "type": "object",
    "properties": {
        "weight": {"type": "number", "description": "kg"},
        "count": {"type": "integer"},
        "note": {"type": ["string", "null"], "default": None},
        "express": {"type": "boolean"},
        "gift": {"type": "boolean", "default": False},
        "region": {"type": "string", "enum": ["eu", "us"]},
        "lines": {
            "type": "array",
            "items": {"type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}}},
        },
        "tags": {"type": "array", "items": {"type": "string"}},
        "meta": {"type": "object"},
        "due": {"type": "string", "format": "date"},
    },
    "required": ["weight", "count", "express", "region", "lines"],
}


def fields_by_name():
    return {f.name: f for f in form_fields(SCHEMA)}


def test_each_schema_type_gets_its_field():
    kinds = {name: f.kind for name, f in fields_by_name().items()}
    assert kinds == {
        "weight": "number",
        "count": "integer",
        "note": "text",
        "express": "boolean",
        "gift": "boolean",
        "region": "enum",
        "lines": "table",
        "tags": "lines",
        "meta": "json",
        "due": "date",
    }
    fields = fields_by_name()
    assert [c.name for c in fields["lines"].columns] == ["sku", "qty"]
    assert fields["region"].options == (('"eu"', "eu"), ('"us"', "us"))
    assert fields["gift"].help == "Optional, default false." and fields["weight"].help == "kg."


def test_undeclared_object_columns_come_from_the_examples():
    schema = {"properties": {"items": {"type": "array", "items": {"type": "object"}}}, "required": ["items"]}
    examples = [{"args": {"items": [{"price": 2, "qty": 3}, {"price": 1, "qty": 1, "sku": "a"}]}, "expect": 7}]
    [table] = form_fields(schema, examples)
    assert table.kind == "table" and [c.name for c in table.columns] == ["price", "qty", "sku"]
    args = read_arguments([table], {"arg.items.0.price": "2.5", "arg.items.0.qty": "4", "arg.items.1.sku": "b-1"})
    assert args == {"items": [{"price": 2.5, "qty": 4}, {"sku": "b-1"}]}  # a cell that is not JSON is text
    [plain] = form_fields(schema)
    assert plain.kind == "json"  # no examples: the array is typed as JSON


def test_the_form_reads_back_typed_arguments_and_leaves_empty_optionals_out():
    form = {
        "arg.weight": "2.5",
        "arg.count": "-3",
        "arg.express": "on",
        "arg.gift": "",
        "arg.region": '"us"',
        "arg.lines.0.sku": "A1",
        "arg.lines.0.qty": "2",
        "arg.lines.2.sku": "B2",
        "arg.lines.2.qty": "1",
        "arg.tags": "red\n\n blue \n",
        "arg.meta": "",
        "arg.due": "2026-11-24",
    }
    assert read_arguments(form_fields(SCHEMA), form) == {
        "weight": 2.5,
        "count": -3,
        "express": True,
        "region": "us",
        "lines": [{"sku": "A1", "qty": 2}, {"sku": "B2", "qty": 1}],
        "tags": ["red", "blue"],
        "due": "2026-11-24",
    }


def test_values_that_are_not_their_type_name_their_fields():
    form = {
        "arg.weight": "9" * 5000,  # past int()'s digit limit
        "arg.count": "\u0663",  # an Arabic-Indic three: a digit to Python, not to a tool
        "arg.region": "mars",
        "arg.lines.1.qty": "two",
        "arg.meta": "[" * 50_000,  # nested past Python's stack
    }
    with pytest.raises(FormValues) as refused:
        read_arguments(form_fields(SCHEMA), form)
    assert [(p["code"], p["path"]) for p in refused.value.problems] == [
        ("R0517", "weight"),
        ("R0517", "count"),
        ("R0517", "region"),
        ("R0517", "lines[0].qty"),
        ("R0517", "meta"),
    ]


def test_highlighting_classes_the_grammars_words_and_keeps_every_character():
    text = 'tool f(x: number) description "a \\"b\\"" {\n  # note\n  return x * 2.5 if x > 1 else null\n}'
    tokens = dsl_tokens(text)
    assert "".join(t for _, t in tokens) == text
    classes = {t: c for c, t in tokens if c}
    assert classes["tool"] == classes["return"] == classes["if"] == classes["null"] == "keyword"
    assert classes["description"] == "keyword" and classes["x"] == "name"
    assert classes['"a \\"b\\""'] == "string" and classes["# note"] == "comment" and classes["2.5"] == "number"
    assert dsl_tokens("workflow w\non manual")[0] == ("keyword", "workflow")
    data = '{"a": "b", "n": -1.5e3, "t": true}'
    assert [(c, t) for c, t in json_tokens(data) if c] == [
        ("key", '"a"'),
        ("string", '"b"'),
        ("key", '"n"'),
        ("number", "-1.5e3"),
        ("key", '"t"'),
        ("keyword", "true"),
    ]


def test_side_by_side_pairs_changed_lines_and_numbers_both_sides():
    rows = side_by_side("a\nb\nc\n", "a\nB\nc\nd\n")
    assert [(r.change, r.left_number, r.left, r.right_number, r.right) for r in rows] == [
        ("equal", 1, "a", 1, "a"),
        ("replace", 2, "b", 2, "B"),
        ("equal", 3, "c", 3, "c"),
        ("insert", None, "", 4, "d"),
    ]
    assert [r.change for r in side_by_side("x\ny\n", "y\n")] == ["delete", "equal"]


def test_the_workflow_drawing_has_a_box_per_node_labelled_branches_and_escaped_names():
    source = Path(__file__).parents[2] / "golden" / "workflows" / "switch_merge.wf"
    n8n = compile_workflow(source.read_text(encoding="utf-8")).n8n
    svg = str(workflow_svg(n8n, 'Graph of <script>x</script> & "y"'))
    assert svg.count('<g class="node ') == len(n8n["nodes"]) == 7
    assert svg.count('class="edge"') == 8 and svg.count('class="edge-label"') == 3
    assert '<g class="node node-trigger">' in svg and '<g class="node node-branch">' in svg
    assert "<script>" not in svg and "&lt;script&gt;x&lt;/script&gt; &amp; &#34;y&#34;" in svg
    hostile = {"nodes": [{"name": "<img src=x onerror=alert(1)>", "type": "n8n-nodes-base.set", "position": [0, 0]}]}
    assert "<img" not in str(workflow_svg(hostile, "t"))


def test_the_test_tab_does_not_run_a_pending_workflow_tool_it_refuses_it(tmp_path):
    """A pending workflow tool's check compiles the compute tool that checks its arguments;
    the test tab ran that and answered the arguments as if n8n had. It refuses, as for a program."""
    from unit.n8n.fake_n8n import FakeN8n

    from toolkiln import Registry
    from toolkiln.registry.principals import LOCAL_USER
    from toolkiln.server.web.trials import run_once

    workflow = (
        'workflow order_total\ndescription "Prices an order"\non webhook POST "/orders" respond with node\n'
        "set priced { total = body.qty }\nrespond reply priced\n"
    )
    definition = {
        "kind": "workflow",
        "name": "order_total",
        "description": "Prices an order",
        "parameters": {"qty": {"type": "integer"}},
        "workflow": workflow,
    }
    with Registry(tmp_path / "reg", n8n=FakeN8n().client()) as reg:
        record = reg.create(definition, created_by="llm")
        assert record.status == "pending_approval"
        outcome = run_once(reg, record, {"qty": 3}, LOCAL_USER)
    assert "result" not in outcome
    assert outcome["errors"][0]["code"] == "R0203" and "runs only when active" in outcome["errors"][0]["message"]
    assert len(outcome["errors"][0]) == 16 and outcome["errors"][0]["hint"]  # the one shape, as every refusal
