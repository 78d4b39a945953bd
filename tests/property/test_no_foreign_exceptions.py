"""Hostile inputs at every public entry point (issue 18, item 3): whatever comes in, nothing
but toolkiln errors (subclasses of toolkiln.Error) comes out, and a CompileError carries its
diagnostics. The inputs: deep nesting, huge literals, odd Python types, random bytes and
text, and JSON-ish documents with the shape of a tool. A longer run of the same idea, for
outside CI: benchmarks/fuzz_sources.py.
"""

from __future__ import annotations

import json
import tempfile
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

import toolkiln
from toolkiln.diagnostics.codes import CODES

SETTINGS = settings(
    max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
HEAVY = settings(SETTINGS, max_examples=examples(60))
JSON = settings(SETTINGS, max_examples=examples(80))  # documents: dearer per example

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
def deep_documents(draw: st.DrawFn, depths: tuple[int, ...] = (10, 199, 201, 250, 330, 490, 985, 3_000)) -> Any:
    depth = draw(st.sampled_from(depths))
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


NODE_TYPES = ["n8n-nodes-base.set", "n8n-nodes-base.if", "n8n-nodes-base.manualTrigger", "n8n-nodes-base.httpRequest"]


@st.composite
def n8n_documents(draw: st.DrawFn) -> Any:
    """Exports with the shape of an n8n workflow, their parts filled with anything."""
    names = draw(st.lists(st.one_of(st.sampled_from(["a", "b", "Start"]), st.text(max_size=5)), max_size=4))
    nodes = [
        {
            "name": name,
            "type": draw(st.one_of(st.sampled_from(NODE_TYPES), documents)),
            "typeVersion": draw(st.one_of(st.sampled_from([1, 2, 3.1]), scalars)),
            "position": [0, 0],
            "parameters": draw(st.one_of(st.dictionaries(json_keys, documents, max_size=4), documents)),
        }
        for name in names
    ]
    connections = draw(
        st.one_of(
            st.just({}),
            documents,
            st.dictionaries(
                st.sampled_from(names or ["a"]), st.just({"main": [[{"node": "b", "type": "main", "index": 0}]]})
            ),
        )
    )
    doc = {"name": draw(st.one_of(st.just("w"), scalars)), "nodes": nodes, "connections": connections}
    if draw(st.booleans()):
        doc["settings"] = draw(documents)
    return doc


@JSON
@given(st.one_of(n8n_documents(), documents))
def test_n8n_imports(source: Any) -> None:
    for given_as in (source, json.dumps(source, default=str)):
        assert_only_toolkiln_errors(toolkiln.check_workflow, given_as)
        imported = assert_only_toolkiln_errors(toolkiln.import_n8n, given_as)
        if imported is not None:
            assert_only_toolkiln_errors(toolkiln.compile_workflow, imported.to_text())


@JSON
@given(st.one_of(tool_shaped(), deep_documents(depths=(201, 490, 900)), documents), st.text(max_size=12), documents)
def test_registry_open_and_meta_tools(record: Any, name: str, args: Any) -> None:
    """A registry folder holding any file as a tool record opens (the file is a problem, not
    an exception); a meta-tool called with any name and arguments answers with data. (Records
    at most 900 deep: json.dumps, which writes the file here, recurses.)"""
    with tempfile.TemporaryDirectory() as folder:
        tools = Path(folder) / "tools"
        tools.mkdir()
        (tools / "x.json").write_text(json.dumps(record, default=str), encoding="utf-8")
        registry = assert_only_toolkiln_errors(toolkiln.Registry, folder)
        if registry is None:
            return
        try:
            for meta in (name, "create_custom_tool", "test_custom_tool", "list_custom_tools"):
                assert_only_toolkiln_errors(registry.call_meta, meta, args)
                assert_only_toolkiln_errors(registry.call_meta, meta, {"definition": record, "args": args})
        finally:
            registry.close()


@HEAVY
@given(deep_documents())
def test_deep_documents(source: Any) -> None:
    every_entry_point(source)


@pytest.mark.slow
@settings(HEAVY, max_examples=examples(8))
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
