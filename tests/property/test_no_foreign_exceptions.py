"""Hostile inputs at every public entry point (issue 18, item 3): whatever comes in, nothing
but toolkiln errors (subclasses of toolkiln.Error) comes out, and a CompileError carries its
diagnostics. The inputs: deep nesting, huge literals, odd Python types, random bytes and
text, and JSON-ish documents with the shape of a tool. A longer run of the same idea, for
outside CI: benchmarks/fuzz_sources.py.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkiln
from toolkiln.diagnostics.codes import CODES

SETTINGS = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
HEAVY = settings(SETTINGS, max_examples=60)
JSON = settings(SETTINGS, max_examples=120)  # documents: dearer per example

OPS = ["math", "condition", "return", "lookup", "format", "call", "set", "loop", "", "if"]
KEYS = ["name", "description", "parameters", "logic", "steps", "op", "expression", "output", "value"]
KEYS += ["if", "then", "else", "type", "items", "default", "tables", "risk", "table", "key", "tool", "args"]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.decimals(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(OPS + ["weight_kg * 2", "1 +", "[[[", "x if y else z", "\ud800", "\x00", "#"]),
)
# What a dict source might hold that JSON never does.
odd = st.one_of(
    st.binary(max_size=8),
    st.tuples(st.integers()),
    st.frozensets(st.integers(), max_size=3),
    st.just(object()),
    st.complex_numbers(max_magnitude=10, allow_nan=False),
    st.just(1e400),
)
json_keys = st.one_of(st.sampled_from(KEYS), st.text(max_size=8))
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(json_keys, inner, max_size=6)),
    max_leaves=40,
)
python_documents = st.recursive(
    st.one_of(scalars, odd),
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(st.one_of(json_keys, st.integers(), st.none(), st.tuples(st.integers())), inner, max_size=6),
    ),
    max_leaves=30,
)


@st.composite
def tool_shaped(draw: st.DrawFn, inner: st.SearchStrategy[Any] = documents) -> dict[str, Any]:
    """A document with the shape of a tool, its fields filled with anything."""
    step = draw(st.dictionaries(st.sampled_from(KEYS), inner, max_size=4))
    step["op"] = draw(st.one_of(st.sampled_from(OPS), inner))
    doc: dict[str, Any] = {"name": draw(st.one_of(st.just("t"), inner)), "description": "d"}
    doc["parameters"] = draw(st.one_of(st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2), inner))
    doc["logic"] = {"steps": [step, {"op": "return", "value": draw(st.one_of(st.just("1"), inner))}]}
    return doc


def deep(kind: str, depth: int) -> Any:
    value: Any = "1"
    for _ in range(depth):
        value = [value] if kind == "list" else {"op": "condition", "if": "true", "then": [value]}
    return value


@st.composite
def deep_documents(draw: st.DrawFn) -> Any:
    depth = draw(st.sampled_from([10, 199, 201, 250, 330, 490, 985, 3_000]))
    nested = deep(draw(st.sampled_from(["list", "condition"])), depth)
    where = draw(st.sampled_from(["value", "default", "op", "steps", "items"]))
    doc: dict[str, Any] = {"name": "t", "description": "d", "parameters": {}, "logic": {"steps": []}}
    if where == "default":
        doc["parameters"] = {"a": {"type": "array", "default": nested}}
    elif where == "items":
        schema: dict[str, Any] = {"type": "number"}
        for _ in range(depth):
            schema = {"type": "array", "items": schema}
        doc["parameters"] = {"a": schema}
    elif where == "steps":
        doc["logic"]["steps"] = [nested] if isinstance(nested, dict) else nested
    else:
        doc["logic"]["steps"] = [{"op": nested if where == "op" else "return", "value": nested}]
    return doc


texts = st.one_of(
    st.text(max_size=200),
    st.text(alphabet='tool()[]{}=+-*/<>"#\\\n ,.:0123456789abcdefgiflnrstux', max_size=300),
    st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
    st.builds(
        lambda d, c: "tool t()\n{\n  return " + c * d + "1\n}\n",
        st.integers(0, 3_000),
        st.sampled_from(["(", "[", "-", "not "]),
    ),
)


def assert_only_toolkiln_errors(fn: Any, *args: Any) -> Any:
    """`fn(*args)`: its value, or a toolkiln.Error; any other exception fails the test."""
    try:
        return fn(*args)
    except toolkiln.CompileError as error:
        assert error.diagnostics, "a CompileError without diagnostics"
        assert all(d.code in CODES for d in error.diagnostics)
    except toolkiln.Error:
        pass
    return None


def every_entry_point(source: Any) -> None:
    diagnostics = assert_only_toolkiln_errors(toolkiln.check, source)
    if diagnostics is not None:
        assert isinstance(diagnostics, list) and all(d.code in CODES for d in diagnostics)
    assert_only_toolkiln_errors(toolkiln.to_text, source)
    assert_only_toolkiln_errors(toolkiln.to_json, source)
    tool = assert_only_toolkiln_errors(toolkiln.compile, source)
    if tool is not None:
        for args in ({}, {"a": 1}, {"a": [1, "x"]}, {"a": Decimal("1e999")}, {"a": None}):
            assert_only_toolkiln_errors(tool.run, args)


@JSON
@given(st.one_of(documents, tool_shaped()))
def test_json_documents(source: Any) -> None:
    every_entry_point(source)


@JSON
@given(tool_shaped())
def test_json_text(source: Any) -> None:
    every_entry_point(json.dumps(source, default=str))


@JSON
@given(st.one_of(python_documents, tool_shaped(python_documents), odd))
def test_odd_python_values(source: Any) -> None:
    every_entry_point(source)


@SETTINGS
@given(texts)
def test_random_text(source: str) -> None:
    every_entry_point(source)
    every_entry_point(source.encode("utf-8", "surrogatepass"))


@SETTINGS
@given(st.one_of(texts, documents, odd, python_documents))
def test_workflow_entry_points(source: Any) -> None:
    assert_only_toolkiln_errors(toolkiln.check_workflow, source)
    assert_only_toolkiln_errors(toolkiln.compile_workflow, source)


@HEAVY
@given(deep_documents())
def test_deep_documents(source: Any) -> None:
    every_entry_point(source)


@pytest.mark.slow
@settings(HEAVY, max_examples=20)
@given(
    st.sampled_from(["text list", "json list", "text steps"]),
    st.sampled_from([10_000, 30_000, 300_000]),
)
def test_huge_literals_and_programs(kind: str, size: int) -> None:
    if kind == "text list":
        source: Any = 'tool t()\ndescription "d"\n{\n  return [' + ", ".join("1" for _ in range(size)) + "]\n}\n"
    elif kind == "json list":
        params = {"a": {"type": "array", "default": list(range(size))}}
        source = {
            "name": "t",
            "description": "d",
            "parameters": params,
            "logic": {"steps": [{"op": "return", "value": "a"}]},
        }
    else:
        source = 'tool t()\ndescription "d"\n{\n' + "".join(f"  x{i} = {i}\n" for i in range(size)) + "  return 1\n}\n"
    every_entry_point(source)
