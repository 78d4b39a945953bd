"""Records (issue 15, item 2): `{"net": net, "vat": vat}` in both front ends, record types in
the checker (fields read by name, checked against the literal's type), record parameters
from JSON Schema `properties`, results that publish their record shape, and the printers.
The codes the checker reports for records are cases in tests/unit/check/data/types.test."""

import dataclasses
import json
import time
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkiln
from toolkiln.ast import compute as n
from toolkiln.ast.types import INTEGER, NUMBER, OBJECT, STRING, fits, join, or_null, record_of
from toolkiln.errors import CompileError, RunError
from toolkiln.optimize import optimize
from toolkiln.syntax.strings import quote

VAT = """tool vat(net: number, rate: number = 0.19)
description "Net, VAT and gross of an amount"
{
  vat = round(net * rate, 2)
  return {"net": net, "vat": vat, "gross": net + vat}
}
"""


def errors(source) -> list[tuple[str, str, str | None]]:
    with pytest.raises(CompileError) as raised:
        toolkiln.compile(source)
    return [(d.code, d.message, d.hint) for d in raised.value.diagnostics if d.is_error]


def test_a_tool_returns_a_record_and_its_result_schema_says_so():
    tool = toolkiln.compile(VAT)
    assert tool.run({"net": 100}) == {"net": 100, "vat": Decimal("19.00"), "gross": Decimal("119.00")}
    assert tool.result_type == '{"net": number, "vat": number, "gross": number}'
    assert tool.result_schema == {
        "type": "object",
        "properties": {"net": {"type": "number"}, "vat": {"type": "number"}, "gross": {"type": "number"}},
        "required": ["net", "vat", "gross"],
    }


def test_a_list_of_records_and_its_schema():
    tool = toolkiln.compile('return [{"name": upper(n), "size": len(n)} for n in names]')
    assert tool.run({"names": ["ab", "c"]}) == [{"name": "AB", "size": 2}, {"name": "C", "size": 1}]
    assert tool.result_schema == {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "size": {"type": "number"}},
            "required": ["name", "size"],
        },
    }


def test_text_and_json_build_the_same_record():
    text = toolkiln.compile('return {"net": 1, "note": "a", "items": [1, {"x": true}], "": null}')
    document = toolkiln.compile(
        {"steps": [{"op": "return", "value": '{"net": 1, "note": "a", "items": [1, {"x": true}], "": null}'}]}
    )
    expected = {"net": 1, "note": "a", "items": [1, {"x": True}], "": None}
    assert text.run({}) == document.run({}) == expected
    assert text.result_type == document.result_type


def test_a_json_object_where_an_expression_goes_is_a_record_of_expressions():
    document = {
        "name": "vat",
        "description": "d",
        "parameters": {"net": {"type": "number"}, "fx": {"type": "object", "default": {"currency": "EUR"}}},
        "logic": {
            "steps": [
                {
                    "op": "return",
                    "value": {
                        "net": "net",
                        "vat": "round(net * 0.19, 2)",
                        "c": '"EUR"',
                        "d": {"k": 1.5},
                        "l": [1, "a"],
                    },
                }
            ]
        },
    }
    tool = toolkiln.compile(document)
    assert tool.run({"net": 10}) == {
        "net": 10,
        "vat": Decimal("1.90"),
        "c": "EUR",
        "d": {"k": Decimal("1.5")},
        "l": [1, "a"],
    }
    assert tool.parameters["properties"]["fx"]["default"] == {"currency": "EUR"}  # a default is a constant
    unquoted = {**document, "logic": {"steps": [{"op": "return", "value": {"c": "EUR"}}]}}
    assert [(d.code, d.span.path) for d in toolkiln.check(unquoted)] == [("E0201", "logic.steps[0].value.c")]


def test_records_span_lines_and_end_in_a_comma():
    tool = toolkiln.compile('totals = {\n  "net": 1,\n  "vat": {\n    "rate": 2,\n  },\n}\nreturn totals.vat.rate')
    assert tool.run({}) == 2


@pytest.mark.parametrize(
    ("source", "args", "expected"),
    [
        ('if {"a": 1}.a > x {\n  return {"k": 1}\n} else {\n  return {"k": 2}\n}', {"x": 0}, {"k": 1}),
        ('if x > 0 {\n  r = {"k": 1}\n}\nelse {\n  r = {"k": 2}\n}\nreturn r', {"x": 0}, {"k": 2}),
        ('r = {"k": 1} if x > 0 else {"k": 2}\nreturn r.k', {"x": 1}, 1),
        ('if {"a": x} == {"a": 1} {\n  return "one"\n}\nreturn "other"', {"x": 1}, "one"),
    ],
)
def test_a_brace_after_a_value_opens_a_block_and_elsewhere_a_record(source, args, expected):
    assert toolkiln.compile(source).run(args) == expected


def test_an_unknown_field_is_e0320_with_did_you_mean():
    assert errors(VAT.replace('return {"net"', 'r = {"net"').replace("}\n}", "}\n  return r.gros\n}")) == [
        ("E0320", "the record has no field `gros`", "did you mean `gross`?")
    ]
    assert errors('r = {"net": 1}\nreturn r["vat_total"]') == [
        ("E0320", "the record has no field `vat_total`", "its fields: net")
    ]


def test_record_parameters_from_json_schema_properties():
    document = {
        "name": "invoice",
        "description": "Total of the line items",
        "parameters": {
            "lines": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "qty": {"type": "integer"},
                        "price": {"type": "number"},
                        "note": {"type": "string"},
                    },
                    "required": ["qty", "price"],
                },
            }
        },
        "logic": {
            "steps": [
                {"op": "math", "expression": "sum(l.qty * l.price for l in lines)", "output": "net"},
                {"op": "return", "value": '{"net": net, "notes": [l.note for l in lines if l.note != null]}'},
            ]
        },
    }
    tool = toolkiln.compile(document)
    item = tool.parameters["properties"]["lines"]["items"]
    assert item["required"] == ["qty", "price"]
    assert item["properties"]["note"] == {"type": ["string", "null"]}
    result = tool.run({"lines": [{"qty": 2, "price": 9.5}, {"qty": 1, "price": 0.25, "note": "gift"}]})
    assert result == {"net": Decimal("19.25"), "notes": ["gift"]}
    with pytest.raises(RunError) as raised:
        tool.run({"lines": [{"qty": 2, "prise": 9.5}]})
    assert (raised.value.code, raised.value.hint) == ("E0508", "did you mean `prise`?")
    with pytest.raises(RunError) as raised:
        tool.run({"lines": [{"qty": 2.5, "price": 1}]})
    assert raised.value.code == "E0508" and "lines[].qty" in str(raised.value)
    # The text DSL declares the same parameter, and the printers carry it both ways.
    text = toolkiln.to_text(document)
    assert 'lines: array[{"qty": integer, "price": number, "note": string?}]' in text
    assert toolkiln.compile(text).parameters == tool.parameters


def test_record_arguments_convert_each_field_once_and_keep_the_others():
    source = 'tool t(r: {"a": number, "b": {"c": array[integer]}, "n": string?})\ndescription "d"\n{\n  return r\n}'
    tool = toolkiln.compile(source)
    from types import MappingProxyType

    given = MappingProxyType({"a": 1.5, "b": {"c": [1, 2]}, "extra": {"x": [0.1]}})
    assert tool.run({"r": given}) == {
        "a": Decimal("1.5"),
        "b": {"c": [1, 2]},
        "extra": {"x": [Decimal("0.1")]},
        "n": None,
    }
    for bad, where in [
        ({"a": 1, "b": {"c": [1.5]}}, "r.b.c[]"),  # a nested field's type
        ({"a": "1", "b": {"c": []}}, "r.a"),
        ({"a": 1, "b": {"c": []}, 3: "x"}, "keys must be strings"),
        ({"a": 1, "b": {}}, "has no field `c`"),
        ("a", "must be an object"),
    ]:
        with pytest.raises(RunError) as raised:
            tool.run({"r": bad})
        assert raised.value.code == "E0508" and where in str(raised.value), (bad, str(raised.value))
    with pytest.raises(RunError) as raised:
        tool.run(
            {"r": {"a": 1, "b": {"c": []}, **{str(i): i for i in range(200)}}},
            limits=toolkiln.Limits(max_list_length=100),
        )
    assert raised.value.code == "E0508" and "more than 100 fields" in str(raised.value)


@pytest.mark.parametrize("table_type", ['{"rate": number, "name": string?}', "array[number]"])
def test_a_table_of_records_or_lists_goes_through_the_json_format_and_back(table_type):
    source = (
        f'tool t(k: string)\ndescription "d"\ntable rates: {table_type}\n{{\n  r = lookup rates[k]\n  return r\n}}\n'
    )
    document = toolkiln.to_json(source)
    assert toolkiln.check(document) == []
    assert toolkiln.to_text(document) == toolkiln.to_text(source)
    assert toolkiln.compile(document).result_type == toolkiln.compile(source).result_type


def test_a_bad_record_schema_is_refused_with_its_path():
    document = {
        "name": "t",
        "description": "d",
        "parameters": {"x": {"type": "object", "properties": {"a": {"type": "number"}}, "required": ["b"]}},
        "logic": {"steps": [{"op": "return", "value": "x"}]},
    }
    with pytest.raises(CompileError) as raised:
        toolkiln.compile(document)
    (diagnostic,) = raised.value.diagnostics
    assert diagnostic.code == "E0111" and diagnostic.span.path == "parameters.x.required"


def test_record_types_fit_and_join_by_their_fields():
    net = record_of((("net", NUMBER), ("vat", NUMBER)))
    assert fits(record_of((("net", INTEGER), ("vat", NUMBER), ("extra", STRING))), net)
    assert not fits(record_of((("net", STRING), ("vat", NUMBER))), net)
    assert not fits(record_of((("net", NUMBER),)), net)
    assert fits(record_of((("net", NUMBER),)), record_of((("net", NUMBER), ("note", or_null(STRING)))))
    assert fits(net, OBJECT) and fits(OBJECT, net)
    assert join(record_of((("a", INTEGER),)), record_of((("a", NUMBER),))) == record_of((("a", NUMBER),))
    assert join(record_of((("a", INTEGER),)), record_of((("b", INTEGER),))) == OBJECT


def test_printers_round_trip_records():
    source = (
        'tool t(\n  x: {"a b": number, "c": array[{"d": string?}]}?,\n)\ndescription "d"\n{\n'
        '  return {"k\\n": x, "": {"q": [1, {}]}}\n}\n'
    )
    program = toolkiln.compile(source).program
    text = toolkiln.to_text(source)
    assert text == source
    again = toolkiln.compile(toolkiln.to_json(source)).program
    assert _without_spans(again) == _without_spans(program)


def test_a_record_in_a_template_hole():
    tool = toolkiln.compile(
        "msg = format \"total: {{ {'net': 1.5, 'vat': {'r': 2}}.vat.r }} / {{ {'a': 3}.a:.2f}}\"\nreturn msg"
    )
    assert tool.run({}) == "total: 2 / 3.00"
    printed = toolkiln.to_text(tool.program)
    assert toolkiln.compile(printed).run({}) == "total: 2 / 3.00"


def test_the_optimizer_folds_a_constant_field_and_keeps_what_may_fail():
    (step,) = optimize(toolkiln.compile('return {"a": 2, "b": {"c": 3}}.b.c * x').program).steps
    assert isinstance(step, n.Return) and isinstance(step.value, n.Binary)
    assert step.value.left == n.NumberLit(value=Decimal(3), span=step.value.left.span)
    (kept,) = optimize(toolkiln.compile('return {"a": 1 / x, "b": 3}.b').program).steps
    assert isinstance(kept.value, n.Field_)
    with pytest.raises(RunError) as raised:
        toolkiln.compile('return {"a": 1 / x, "b": 3}.b').run({"x": 0})
    assert raised.value.code == "E0501"


@pytest.mark.parametrize("front", ["text", "json"])
def test_a_10000_deep_record_is_refused_quickly(front):
    depth = 5000  # 10,000 levels are over the token limit (E0404) before they are deep
    expression = '{"a": ' * depth + "1" + "}" * depth
    source = f"return {expression}" if front == "text" else {"steps": [{"op": "return", "value": expression}]}
    started = time.monotonic()
    with pytest.raises(CompileError) as raised:
        toolkiln.compile(source)
    assert [d.code for d in raised.value.diagnostics] == ["E0402"]
    assert time.monotonic() - started < 30  # a sanity bound, not a benchmark


def test_a_10000_deep_record_default_or_argument_is_refused():
    deep: object = 1
    for _ in range(10_000):
        deep = {"a": deep}
    document = {
        "name": "t",
        "description": "d",
        "parameters": {"x": {"type": "object", "default": deep}},
        "logic": {"steps": [{"op": "return", "value": "x"}]},
    }
    with pytest.raises(CompileError) as raised:
        toolkiln.compile(document)
    assert [d.code for d in raised.value.diagnostics] == ["E0402"]
    as_value = {"steps": [{"op": "return", "value": deep}]}
    assert [d.code for d in toolkiln.check(as_value)] == ["E0402"]
    wide = {"steps": [{"op": "return", "value": {str(i): {"a": i} for i in range(6_000)}}]}
    assert [d.code for d in toolkiln.check(wide)] == ["E0405"]
    tool = toolkiln.compile({**document, "parameters": {"x": {"type": "object"}}})
    with pytest.raises(RunError) as error:
        tool.run({"x": deep})
    assert error.value.code == "E0508"


keys = st.text(max_size=6)
scalars = st.one_of(
    st.integers(-(10**6), 10**6),
    st.decimals(allow_nan=False, allow_infinity=False, places=3, min_value=-1000, max_value=1000),
    st.text(max_size=6),
    st.booleans(),
    st.none(),
)


def _literal(value: object) -> str:
    """The text DSL literal of a plain value (the reference the tool's result is compared to)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{quote(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, str):
        return quote(value)
    return f"({value})"


@settings(max_examples=60, deadline=None)
@given(st.recursive(scalars, lambda inner: st.dictionaries(keys, inner, max_size=4), max_leaves=12))
def test_a_record_literal_evaluates_to_the_same_dict_in_both_front_ends(value):
    source = f"return {_literal(value)}"
    text = toolkiln.compile(source)
    assert text.run({}) == value
    assert toolkiln.compile({"steps": [{"op": "return", "value": _literal(value)}]}).run({}) == value
    # printed and parsed again, the record is the same
    assert toolkiln.compile(toolkiln.to_text(source)).run({}) == value


def _without_spans(node: object) -> object:
    if isinstance(node, n.Node):
        return {f.name: _without_spans(getattr(node, f.name)) for f in dataclasses.fields(node) if f.name != "span"}
    if isinstance(node, tuple):
        return tuple(_without_spans(item) for item in node)
    return node


def test_a_workflow_writes_a_record_in_parentheses_and_reads_it_back():
    """A workflow condition ends at its first `{` (a block), so the workflow text puts a
    record literal in parentheses; formatting reads back what it wrote."""
    from toolkiln.backends.workflow_printer import print_workflow
    from toolkiln.syntax.comments import comments
    from toolkiln.syntax.workflow_text import parse_workflow

    text = (
        'workflow records description "records in expressions"\n'
        'on webhook GET "zero"\n'
        'set a { total = ({"net": 1, "lines": [{"k": 2}]}).net }\n'
        'if big ({"v": 3}).v > 1 { respond yes ({"r": 1}) } else { respond no a }\n'
    )
    workflow, diagnostics = parse_workflow(text)
    assert diagnostics == [] and workflow is not None
    printed = print_workflow(workflow, comments(text))
    assert 'total = ({"net": 1, "lines": [({"k": 2})]}).net' in printed
    again, diagnostics = parse_workflow(printed)
    assert diagnostics == [] and again is not None
    assert print_workflow(again, comments(printed)) == printed


def test_a_bare_record_in_a_workflow_expression_is_told_to_use_parentheses():
    from toolkiln.syntax.workflow_text import parse_workflow

    _, diagnostics = parse_workflow(
        'workflow records description "d"\non webhook GET "zero"\nrespond after {"net": 0}.net\n'
    )
    assert [d.code for d in diagnostics] == ["E0101"]
    assert "parentheses" in diagnostics[0].hint
