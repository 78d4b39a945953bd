"""Nullable types (issue 15, item 5): `string?` / `["string", "null"]`, explicit nulls for
optional parameters, and the checker's tracking of values that may be null (the codes it
reports are cases in tests/unit/check/data/nullable.test)."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkiln
from toolkiln.ast.types import DECLARABLE, Type, or_null
from toolkiln.errors import CompileError, RunError

HEADER = 'tool t({params})\ndescription "d"\n{{\n{body}\n}}\n'


def compile_text(params: str, body: str) -> toolkiln.Tool:
    return toolkiln.compile(HEADER.format(params=params, body=body))


def test_text_and_json_declare_the_same_nullable_types():
    text = compile_text("a: string?, b: array[number?]?", "return a")
    document = {
        "name": "t",
        "description": "d",
        "parameters": {
            "a": {"type": ["string", "null"]},
            "b": {"type": ["null", "array"], "items": {"type": ["number", "null"]}},
        },
        "logic": {"steps": [{"op": "return", "value": "a"}]},
    }
    assert toolkiln.compile(json.dumps(document)).parameters == text.parameters
    assert text.parameters["properties"] == {
        "a": {"type": ["string", "null"]},
        "b": {"type": ["array", "null"], "items": {"type": ["number", "null"]}},
    }


def test_nullable_types_print_back_in_both_formats():
    source = HEADER.format(params="a: string?, b: array[number?]? = null", body="  return a")
    source = toolkiln.to_text(source)
    assert "a: string?," in source and "b: array[number?]? = null," in source
    assert toolkiln.to_text(toolkiln.to_json(source)) == source


@pytest.mark.parametrize("value", [["string", "number"], ["null", "null"], ["string"], ["strin", "null"]])
def test_a_json_type_list_other_than_one_type_and_null_is_refused(value):
    document = {
        "name": "t",
        "description": "d",
        "parameters": {"a": {"type": value}},
        "logic": {"steps": [{"op": "return", "value": "1"}]},
    }
    with pytest.raises(CompileError) as error:
        toolkiln.compile(json.dumps(document))
    assert {d.code for d in error.value.diagnostics} == {"E0111"}


def test_no_published_schema_has_a_null_default_its_type_refuses():
    tool = compile_text("a: string = null, b: number = 1, c: string?, d: boolean", "return [a, b, c, d]")
    properties = tool.parameters["properties"]
    assert properties["a"] == {"type": ["string", "null"], "default": None}
    assert properties["b"] == {"type": ["number", "null"], "default": 1}
    assert properties["c"] == {"type": ["string", "null"]}
    assert properties["d"] == {"type": "boolean"}
    assert tool.parameters["required"] == ["c", "d"]


def test_an_explicit_null_takes_the_default_of_an_optional_parameter():
    tool = compile_text('zone: string = "domestic", note: string? = "n"', "return [zone, note]")
    assert tool.run({"zone": None, "note": None}) == ["domestic", None]
    assert tool.run({}) == ["domestic", "n"]


def test_a_single_optional_parameter_given_null_takes_its_default():
    """(A tool of one scalar parameter binds it on a fast path of its own.)"""
    assert compile_text("n: number = 5", "return n").run({"n": None}) == 5


def test_a_required_parameter_refuses_null_unless_nullable():
    with pytest.raises(RunError) as error:
        compile_text("n: number", "return n").run({"n": None})
    assert error.value.code == "E0508"
    assert compile_text("n: number?", "return n").run({"n": None}) is None


def test_nullable_items_of_a_list():
    assert compile_text("xs: array[number?]", "return xs").run({"xs": [1, None]}) == [1, None]
    with pytest.raises(RunError) as error:
        compile_text("xs: array[number]", "return xs").run({"xs": [1, None]})
    assert error.value.code == "E0508"


@pytest.mark.parametrize(
    "body",
    [
        "  return coalesce(x, 0) + 1",
        "  if x != null {\n    return x + 1\n  }\n  return 0",
        "  if null != x {\n    return x + 1\n  }\n  return 0",
        "  if x == null {\n    return 0\n  }\n  return x + 1",
        "  if x == null {\n    return 0\n  } else {\n    return x + 1\n  }",
        "  return x + 1 if x != null else 0",
        "  return 0 if x == null else x + 1",
    ],
)
def test_coalesce_or_a_null_test_makes_it_a_number(body):
    tool = compile_text("x: number?", body)
    assert tool.run({"x": 2}) == 3
    assert tool.run({"x": None}) in (0, 1)


@pytest.mark.parametrize(
    ("body", "args", "result"),
    [
        ("  return x != null and x > 3", {"x": 5, "y": None}, True),
        ("  return x == null or x > 3", {"x": None, "y": None}, True),
        ("  return not (x == null) and x > 3", {"x": 1, "y": None}, False),
        ("  return x != null and y != null and x + y > 3", {"x": 2, "y": 2}, True),
        ("  return x != null and y != null and (x + y > 3 or x > y)", {"x": 1, "y": None}, False),
        ("  if x != null and y != null {\n    return x + y\n  }\n  return 0", {"x": 1, "y": 2}, 3),
        ("  if x == null or y == null {\n    return 0\n  }\n  return x + y", {"x": 1, "y": None}, 0),
        ("  return x + y if x != null and y != null else 0", {"x": 1, "y": 2}, 3),
    ],
)
def test_null_tests_narrow_across_and_and_or(body, args, result):
    """The right of `and` runs where its left holds (of `or`, where it fails), and an `if`
    knows every null test its condition proves (issue 15: narrowing across `and`)."""
    assert compile_text("x: number?, y: number?", body).run(args) == result


def test_a_long_and_chain_of_null_tests_narrows_every_name():
    names = [f"v{i}" for i in range(300)]
    params = ", ".join(f"{name}: number?" for name in names)
    tests = " and ".join(f"{name} != null" for name in names)
    total = " + ".join(names)
    tool = compile_text(params, f"  return {tests} and {total} > 0")
    assert tool.run(dict.fromkeys(names, 1)) is True


def test_coalesce_with_a_last_argument_not_null_runs_as_a_number():
    assert compile_text("x: number?, y: number?", "  return coalesce(x, y, 0) + 1").run({"x": None, "y": None}) == 1


def types(depth: int = 2) -> st.SearchStrategy[Type]:
    scalars = st.sampled_from([name for name in DECLARABLE if name != "array"]).map(lambda name: Type(name=name))
    if depth == 0:
        declared = scalars
    else:
        declared = st.one_of(scalars, types(depth - 1).map(lambda items: Type(name="array", items=items)))
    return st.tuples(declared, st.booleans()).map(lambda pair: or_null(pair[0]) if pair[1] else pair[0])


@settings(max_examples=60, deadline=None)
@given(types())
def test_declared_types_read_back_from_text_json_and_the_schema(type_):
    """Text, the JSON format and the published schema all say the same type."""
    source = HEADER.format(params=f"a: {type_}", body="  return a")
    text_tool = toolkiln.compile(source)
    json_tool = toolkiln.compile(json.dumps(toolkiln.to_json(source)))
    assert text_tool.signature.parameters[0].type == type_
    assert json_tool.signature.parameters[0].type == type_
    assert text_tool.parameters["properties"]["a"] == type_.json_schema()
    assert toolkiln.to_text(toolkiln.to_json(source)) == toolkiln.to_text(source)


def test_a_nullable_table_may_hold_null():
    source = 'tool t(k: string)\ndescription "d"\ntable rates: number?\n{{\n  r = lookup rates[k]\n  return {}\n}}\n'
    tool = toolkiln.compile(source.format("coalesce(r, 0) + 1"))
    assert tool.run({"k": "a"}, tables={"rates": {"a": None}}) == 1
    assert tool.run({"k": "a"}, tables={"rates": {"a": 2}}) == 3
    with pytest.raises(CompileError):
        toolkiln.compile(source.format("r + 1"))
    with pytest.raises(RunError) as error:
        toolkiln.compile(source.format("coalesce(r, 0)").replace("number?", "number")).run(
            {"k": "a"}, tables={"rates": {"a": None}}
        )
    assert error.value.code == "E0513"
