"""The compiled argument checks agree with the published JSON Schema (issue 5).

`Tool.parameters` is the public contract; `tool.run(args)` does not validate with jsonschema
(too slow per call) but with checks compiled from the parameters. These properties generate
argument dicts, valid and invalid (wrong types, missing and extra keys, booleans for numbers,
1.0 and 1.5 for integers, nested lists, ...), and assert that

    Draft202012Validator(tool.parameters).is_valid(args)  is True exactly when
    tool.run(args)  does not raise RunError E0508 (invalid argument).

Every tool body is `return 1`, so a run can fail only on its arguments.

Inputs on which the two legitimately differ are left out of the strategies, each with the
reason beside it (search for "Excluded"). The one real disagreement found (whole floats
beyond 2**53 for integers) is fixed and kept as `test_whole_float_beyond_2_53_is_an_integer`.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, validators

import toolkiln
from toolkiln import RunError

INVALID_ARGUMENT = "E0508"

# --- tools ----------------------------------------------------------------------------------
# name -> (source, declared type of each parameter). Text DSL and JSON DSL, every declarable
# type, with and without defaults.

_BODY = 'description "Arguments only"\n{\n  return 1\n}\n'

TOOLS: dict[str, tuple[Any, dict[str, str]]] = {
    "required": (
        "tool required(n: number, i: integer, s: string, b: boolean, a: array, an: array[number],\n"
        "  o: object, x: any)\n" + _BODY,
        {
            "n": "number",
            "i": "integer",
            "s": "string",
            "b": "boolean",
            "a": "array",
            "an": "array[number]",
            "o": "object",
            "x": "any",
        },
    ),
    "defaults": (
        'tool defaults(n: number = 1.5, i: integer = 2, s: string = "x", b: boolean = true,\n'
        '  a: array = [1, "a"], an: array[number] = [1, 2.5], ai: array[integer] = [], x: any = null,\n'
        "  o: object)\n" + _BODY,
        {
            "n": "number",
            "i": "integer",
            "s": "string",
            "b": "boolean",
            "a": "array",
            "an": "array[number]",
            "ai": "array[integer]",
            "x": "any",
            "o": "object",
        },
    ),
    "nested": (
        "tool nested(m: array[array[number]], ao: array[object], ab: array[boolean] = [true],\n"
        "  ast: array[string], aa: array[any] = [], ai: array[integer])\n" + _BODY,
        {
            "m": "array[array[number]]",
            "ao": "array[object]",
            "ab": "array[boolean]",
            "ast": "array[string]",
            "aa": "array",
            "ai": "array[integer]",
        },
    ),
    "none": ("tool none()\n" + _BODY, {}),
    "json": (
        {
            "name": "json_tool",
            "description": "Arguments only",
            "parameters": {
                "qty": {"type": "integer", "default": 1},
                "price": {"type": "number"},
                "tags": {"type": "array", "items": {"type": "string"}, "default": []},
                "meta": {"type": "object"},
                "flag": {"type": "boolean", "default": False},
            },
            "logic": {"steps": [{"op": "return", "value": "1"}]},
        },
        {"qty": "integer", "price": "number", "tags": "array[string]", "meta": "object", "flag": "boolean"},
    ),
}


def _compile(name: str) -> tuple[toolkiln.Tool, Draft202012Validator]:
    source, _ = TOOLS[name]
    tool = toolkiln.compile(source)
    return tool, Draft202012Validator(tool.parameters)


COMPILED = {name: _compile(name) for name in TOOLS}


def toolkiln_accepts(tool: toolkiln.Tool, args: dict) -> bool:
    try:
        tool.run(args)
    except RunError as error:
        assert error.code == INVALID_ARGUMENT, f"a `return 1` tool failed with {error.code}: {error}"
        return False
    return True


def test_the_tools_publish_the_declared_types():
    for name, (_source, types) in TOOLS.items():
        tool, _ = COMPILED[name]
        assert sorted(tool.parameters["properties"]) == sorted(types), name
        Draft202012Validator.check_schema(tool.parameters)


# --- values ---------------------------------------------------------------------------------
# Excluded, because the two differ on purpose:
#  * NaN and +-Infinity: jsonschema counts them as numbers; JSON has no such values and
#    toolkiln's exact decimals refuse them (E0508).
#  * Numbers of 100 or more integer digits (|x| >= 1e99 is kept out, with margin): toolkiln's
#    Limits.max_number_digits refuses them in number and integer slots; JSON Schema has no
#    size limit.
#  * Strings longer than Limits.max_string_length (100,000) and lists longer than
#    Limits.max_list_length: budgets that JSON Schema does not know. The strategies stay tiny.
#  * Data nested deeper than 64 levels (toolkiln refuses it in `object` and `any`): depth stays small.
#  * Python values that are not JSON: tuples (toolkiln takes them as arrays, jsonschema's type
#    checker does not), non-string object keys, sets, bytes, subclasses of str/int/dict.
#    The schema is a contract over JSON data; the strategies generate only JSON-shaped values.
#  * Decimal: jsonschema's default type checker counts Decimal("1") as a number but not as an
#    integer, while its JSON meaning (1) is one; Decimals get their own property below, with a
#    validator whose "integer" follows the JSON meaning.
#  * `tool.run(None)` (no arguments): toolkiln's API reads None as {}; only dicts are generated.

MAX_ABS = 1e99
EXACT_FLOAT_INT = 2**53

ints = st.integers(min_value=-(10**30), max_value=10**30) | st.sampled_from([0, 1, -1, 10**98, -(10**98)])
floats = st.floats(min_value=-MAX_ABS, max_value=MAX_ABS, allow_nan=False, allow_infinity=False) | st.sampled_from(
    [1.0, 1.5, -0.0, 0.1, 2.0**53, -(2.0**53), 2.0**53 + 2, 1e16, 1e-7, 5e-324, 3.0]
)
numbers = ints | floats
whole_floats = (
    st.integers(min_value=-EXACT_FLOAT_INT, max_value=EXACT_FLOAT_INT)
    | st.integers(min_value=-(10**98), max_value=10**98)
).map(float)
integers = ints | whole_floats
texts = st.text(max_size=6)
keys = st.text(max_size=4)
scalars = st.none() | st.booleans() | numbers | texts
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3), max_leaves=8
)
# Values that are wrong for some type on purpose.
tricky = st.sampled_from(
    [
        True,
        False,
        1.0,
        1.5,
        -2.0,
        "1",
        "",
        None,
        [],
        [[1]],
        [[1.5]],
        [1, "a"],
        [True],
        {},
        {"a": 1},
        [{"a": 1}],
        0,
        10**20,
        1e20,
        [None],
    ]
)


def valid_for(type_: str) -> st.SearchStrategy:
    if type_.startswith("array[") and type_.endswith("]"):
        return st.lists(valid_for(type_[6:-1]), max_size=3)
    return {
        "number": numbers,
        "integer": integers,
        "string": texts,
        "boolean": st.booleans(),
        "array": st.lists(json_values, max_size=3),
        "object": st.dictionaries(keys, json_values, max_size=3),
        "any": json_values,
    }[type_]


@st.composite
def arguments(draw: st.DrawFn, types: dict[str, str], required: frozenset[str]) -> dict:
    """Valid arguments, then none to three mutations: a key dropped, a value replaced by any
    JSON value or a tricky one, an extra key (often a near miss of a parameter's name)."""
    args = {
        name: draw(valid_for(type_)) for name, type_ in types.items() if name in required or draw(st.booleans())
    }  # parameters with a default may be left out
    for _ in range(draw(st.sampled_from([0, 0, 1, 1, 2, 3]))):
        action = draw(st.sampled_from(["drop", "replace", "replace", "extra"]))
        if action == "extra" or not types:
            near = [f"{name}_" for name in types] + [name.upper() for name in types]
            extra = draw(keys | st.sampled_from(near) if near else keys)
            args[extra] = draw(json_values)
        elif action == "drop":
            args.pop(draw(st.sampled_from(sorted(types))), None)
        else:
            args[draw(st.sampled_from(sorted(types)))] = draw(json_values | tricky)
    return args


# --- properties -----------------------------------------------------------------------------

SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TOOLS))
@SETTINGS
@given(data=st.data())
def test_compiled_checks_agree_with_jsonschema(name, data):
    tool, validator = COMPILED[name]
    types = TOOLS[name][1]
    args = data.draw(arguments(types, frozenset(tool.parameters["required"])), label="args")
    expected = validator.is_valid(args)
    event("valid" if expected else "invalid")
    assert toolkiln_accepts(tool, args) is expected, (
        f"jsonschema says {'valid' if expected else 'invalid'}: {sorted(e.message for e in validator.iter_errors(args))}"
    )


def _json_meaning_validator() -> type:
    """Draft 2020-12 where an integral Decimal is an integer, as its JSON text would be."""
    base = Draft202012Validator.TYPE_CHECKER

    def is_integer(checker: Any, instance: Any) -> bool:
        if type(instance) is Decimal:
            return instance.is_finite() and instance == instance.to_integral_value()
        return base.is_type(instance, "integer")

    return validators.extend(Draft202012Validator, type_checker=base.redefine("integer", is_integer))


JSON_MEANING = _json_meaning_validator()
# Finite decimals with fewer than 100 integer digits (see the exclusions above).
decimals = st.decimals(allow_nan=False, allow_infinity=False, min_value=-(10**98), max_value=10**98) | st.sampled_from(
    [Decimal(1), Decimal("1.0"), Decimal("1.5"), Decimal("-0"), Decimal("1E+50"), Decimal("1E-1000"), Decimal("12.50")]
)


@SETTINGS
@given(value=decimals, slot=st.sampled_from(["n", "i", "an", "ai"]))
def test_decimal_arguments_follow_their_json_meaning(value, slot):
    tool, _ = COMPILED["defaults"]  # n: number, i: integer, an: array[number], ai: array[integer]
    args = {"o": {}, slot: [value] if slot.startswith("a") else value}
    assert toolkiln_accepts(tool, args) is JSON_MEANING(tool.parameters).is_valid(args)


# --- examples that must agree (and say which way) -------------------------------------------

BASE = {"n": 1, "i": 1, "s": "", "b": True, "a": [], "an": [], "o": {}, "x": None}


@pytest.mark.parametrize(
    "change, valid",
    [
        ({}, True),
        ({"n": True}, False),
        ({"n": False}, False),
        ({"i": True}, False),  # bools are not numbers
        ({"i": 1.0}, True),
        ({"i": -0.0}, True),
        ({"i": 1.5}, False),
        ({"i": 2.0**53}, True),
        ({"i": 10**98}, True),
        ({"n": 0.1}, True),
        ({"n": 5e-324}, True),
        ({"n": -1e98}, True),
        ({"n": "1"}, False),
        ({"n": None}, False),
        ({"s": 1}, False),
        ({"b": 1}, False),
        ({"b": "true"}, False),
        ({"a": {}}, False),
        ({"a": "abc"}, False),
        ({"a": [[1, [2, [3]]], None, {"k": [1.5]}]}, True),
        ({"an": [1, 2.5, -3]}, True),
        ({"an": [[1]]}, False),
        ({"an": [True]}, False),
        ({"an": ["1"]}, False),
        ({"an": [None]}, False),
        ({"o": []}, False),
        ({"o": {"k": [1, {"l": None}]}}, True),
        ({"x": [[[]]]}, True),
        ({"x": {"a": {"b": 1.5}}}, True),
        ({"x": True}, True),
        ({"extra": 1}, False),
        ({"N": 1}, False),
        ({"": None}, False),
    ],
)
def test_examples_required(change, valid):
    tool, validator = COMPILED["required"]
    args = {**BASE, **change}
    assert validator.is_valid(args) is valid
    assert toolkiln_accepts(tool, args) is valid


@pytest.mark.parametrize("name", sorted(BASE))
def test_each_missing_required_key_is_refused(name):
    tool, validator = COMPILED["required"]
    args = {k: v for k, v in BASE.items() if k != name}
    assert validator.is_valid(args) is False
    assert toolkiln_accepts(tool, args) is False


@pytest.mark.parametrize(
    "args, valid",
    [
        ({"o": {}}, True),
        ({}, False),
        ({"o": {}, "n": None}, True),  # an optional parameter given null takes its default
        ({"o": {}, "x": None}, True),
        ({"o": {}, "ai": [1, 2.0, -3]}, True),
        ({"o": {}, "ai": [1.5]}, False),
        ({"o": {}, "ai": [False]}, False),
    ],
)
def test_examples_defaults(args, valid):
    tool, validator = COMPILED["defaults"]
    assert validator.is_valid(args) is valid
    assert toolkiln_accepts(tool, args) is valid


def test_examples_from_json_text():
    """Arguments as json.loads gives them: 1.0 stays a float, 1 an int."""
    tool, validator = COMPILED["json"]
    for text, valid in [
        ('{"price": 2.5, "meta": {}}', True),
        ('{"price": 2.5, "meta": {"k": [1.5]}, "qty": 3.0, "tags": ["a"]}', True),
        ('{"price": 2.5, "meta": {}, "qty": 3.5}', False),
        ('{"price": 2.5, "meta": {}, "tags": [1]}', False),
        ('{"price": 2.5, "meta": {}, "flag": 0}', False),
        ('{"price": 2.5}', False),
        ('{"meta": {}}', False),
        ('{"price": 2.5, "meta": null}', False),
        ('{"price": 2.5, "meta": {}, "Qty": 1}', False),
    ]:
        args = json.loads(text)
        assert validator.is_valid(args) is valid, text
        assert toolkiln_accepts(tool, args) is valid, text


# --- a disagreement found by this test, since fixed -----------------------------------------


@example(value=2.0**53 + 2)
@example(value=1e16)
@example(value=-1e20)
@settings(max_examples=30, deadline=None)
@given(
    value=st.one_of(
        st.integers(min_value=EXACT_FLOAT_INT + 1, max_value=10**98),
        st.integers(min_value=-(10**98), max_value=-EXACT_FLOAT_INT - 1),
    )
    .map(float)
    .filter(lambda v: abs(v) > EXACT_FLOAT_INT)
)
def test_whole_float_beyond_2_53_is_an_integer(value):
    """A float like 1e16 is a whole number: JSON Schema's "integer" accepts it, and toolkiln
    must too (the fast path for whole floats once refused those beyond 2**53)."""
    tool, validator = COMPILED["required"]
    args = {**BASE, "i": value}
    assert validator.is_valid(args) is True
    assert toolkiln_accepts(tool, args) is True
