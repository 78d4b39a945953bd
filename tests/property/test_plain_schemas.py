"""A program tool's `parameters` is checked without jsonschema when it is plainly valid
(executables/plain_schemas.py, issue 34). That may only skip jsonschema where jsonschema would
take the schema: whatever `plainly_valid` takes, `Draft202012Validator.check_schema` takes; every
other schema still goes to jsonschema, so a tool's diagnostics are what they were."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]

from toolkiln.executables.plain_schemas import _KEYWORDS, SIMPLE_TYPES, plainly_valid
from toolkiln.executables.program_tools import parse_program

# Values of every shape a keyword may be given, right and nearly right: what a YAML front matter
# or a JSON definition can hold (a Decimal from toolkiln's JSON reader, NaN and infinities from
# YAML, a bool where a number goes, a name twice).
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.integers(),
    st.floats(),
    st.decimals(allow_nan=False, places=2),
    st.sampled_from(sorted(SIMPLE_TYPES)),
    st.sampled_from(["", "(", "[a-z]+", "#/$defs/x", "date-time", "objekt", "a", "b"]),
    st.text(max_size=5),
)
names = st.one_of(st.sampled_from(["a", "b", "c"]), st.text(max_size=3), st.integers(0, 2))
type_names = st.sampled_from([*sorted(SIMPLE_TYPES), "strin", "Object"])
numbers = st.one_of(st.integers(-3, 10), st.floats(), st.decimals(allow_nan=False, places=1), st.booleans())


def right_values(key: str, inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Values the meta-schema takes for the keyword `key`."""
    check = _KEYWORDS.get(key)
    texts = st.text(max_size=3)
    right = {
        "type": st.one_of(
            st.sampled_from(sorted(SIMPLE_TYPES)),
            st.sets(st.sampled_from(sorted(SIMPLE_TYPES)), min_size=1).map(sorted),
        ),
        "properties": st.dictionaries(texts, inner, max_size=3),
        "required": st.sets(texts, max_size=3).map(sorted),
        "items": inner,
        "additionalProperties": inner,
    }
    if key in right:
        return right[key]
    if check is _KEYWORDS["minLength"]:
        return st.integers(0, 10)
    if check in (_KEYWORDS["minimum"], _KEYWORDS["multipleOf"]):
        return st.one_of(st.integers(1, 10), st.floats(min_value=0.5, max_value=9))
    if check is _KEYWORDS["uniqueItems"]:
        return st.booleans()
    if check is _KEYWORDS["title"]:
        return texts
    if check is _KEYWORDS["enum"]:
        return st.lists(scalars, max_size=3)
    return scalars


def near_misses(key: str) -> st.SearchStrategy[Any]:
    """Values of nearly the shape the keyword `key` takes: a name twice, no type at all, a count
    below zero, written as a bool, a float or a Decimal, a zero step, text where a flag goes."""
    check = _KEYWORDS.get(key)
    near = {
        _KEYWORDS["required"]: st.lists(names, min_size=2, max_size=3),
        _KEYWORDS["type"]: st.one_of(st.lists(type_names, max_size=3), type_names),
        _KEYWORDS["minLength"]: st.one_of(st.integers(-3, -1), st.booleans(), st.sampled_from([2.0, Decimal(2)])),
        _KEYWORDS["multipleOf"]: st.one_of(st.sampled_from([0, -1, 0.0, -0.5, float("nan")]), st.booleans()),
        _KEYWORDS["minimum"]: st.one_of(st.booleans(), st.decimals(allow_nan=False, places=1), st.text(max_size=2)),
        _KEYWORDS["uniqueItems"]: st.one_of(st.integers(0, 1), st.text(max_size=2)),
        _KEYWORDS["title"]: st.one_of(st.integers(), st.none()),
        _KEYWORDS["enum"]: st.one_of(st.dictionaries(names, scalars, max_size=2), st.text(max_size=2)),
        _KEYWORDS["properties"]: st.one_of(
            st.lists(scalars, max_size=2), st.dictionaries(st.integers(), st.booleans())
        ),
    }
    return near.get(check, scalars) if check is not None else scalars


def values_for(key: str, inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly right values of the keyword `key`, else near misses of its shape or anything."""
    right, near = right_values(key, inner), st.one_of(near_misses(key), scalars)
    return st.integers(0, 3).flatmap(lambda pick: right if pick else near)  # (one_of would weigh them alike)


def schemas(depth: int = 3) -> st.SearchStrategy[Any]:
    inner = schemas(depth - 1) if depth else st.booleans()
    other = st.one_of(st.sampled_from(["pattern", "$ref", "x-y"]), names)
    keys = st.integers(0, 9).flatmap(lambda pick: st.sampled_from(sorted(_KEYWORDS)) if pick else other)
    entries = keys.flatmap(lambda key: st.tuples(st.just(key), values_for(str(key), inner)))
    return st.one_of(st.booleans(), st.lists(entries, max_size=4).map(dict))


def jsonschema_takes(schema: Any) -> bool:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError:
        return False
    return True


@settings(max_examples=examples(3000), deadline=None)  # (load moves the time of a check_schema)
@given(schemas())
def test_whatever_it_takes_jsonschema_takes(schema: Any) -> None:
    if plainly_valid(schema):
        assert jsonschema_takes(schema), schema


PLAIN = [
    {"type": "object", "properties": {"text": {"type": "string", "description": "The text to count"}}},
    {
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 1, "maxLength": 80, "enum": ["Berlin", "Paris"]},
            "days": {"type": "integer", "minimum": 1, "maximum": 14, "default": 3},
            "units": {"type": ["string", "null"], "format": "unit"},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "maxItems": 5},
            "limits": {"type": "object", "additionalProperties": {"type": "number", "multipleOf": 0.5}},
        },
        "required": ["city"],
        "additionalProperties": False,
    },
]
# Each is valid or not only as jsonschema says: left to it (a pattern is a regex only jsonschema
# checks, a Decimal bound is no integer to it, a keyword outside the list is its to judge).
UNUSUAL = [
    {"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}},
    {"type": "object", "properties": {"a": {"type": "string", "pattern": "^[a-z]+$"}}},
    {"type": "object", "required": ["a", "a"]},
    {"type": "object", "properties": {"a": {"type": ["string", "string"]}}},
    {"type": "object", "properties": {"a": {"type": []}}},
    {"type": "object", "properties": {"a": {"minItems": True}}},
    {"type": "object", "properties": {"a": {"type": "strin"}}},
    {"type": "object", "properties": {"a": {"minLength": -1}}},
    {"type": "object", "properties": {"a": {"minLength": Decimal(2)}}},
    {"type": "object", "properties": {"a": {"maxLength": 2.0}}},
    {"type": "object", "properties": {"a": {"multipleOf": 0}}},
    {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}},
    {"type": "object", "properties": {1: {"type": "string"}}},
    {"type": "object", "x-extension": True},
]


@pytest.mark.parametrize("schema", PLAIN)
def test_the_schemas_tools_write_are_plain(schema: dict[str, Any]) -> None:
    assert plainly_valid(schema) and jsonschema_takes(schema)


@pytest.mark.parametrize("schema", UNUSUAL)
def test_an_unusual_schema_is_left_to_jsonschema_and_gets_its_diagnostic(schema: dict[str, Any]) -> None:
    assert not plainly_valid(schema)
    definition = {"kind": "script", "name": "t", "description": "d", "runtime": "bash", "body": "true"}
    spec, problems = parse_program({**definition, "parameters": schema})
    if jsonschema_takes(schema):
        assert spec is not None and problems == []
    else:
        with pytest.raises(SchemaError) as refused:
            Draft202012Validator.check_schema(schema)
        assert [p.message for p in problems] == [f"`parameters` is not a valid JSON Schema: {refused.value.message}"]
