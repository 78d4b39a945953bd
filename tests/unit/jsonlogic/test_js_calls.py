"""interpret/js_calls.py: `js_var(data, "field")` read in place answers as the builtin does,
whatever the data is."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

import toolkiln
from toolkiln.ast import compute as n
from toolkiln.interpret import js_calls
from toolkiln.semantics.builtins import BUILTINS
from toolkiln.semantics.limits import DEFAULT_LIMITS

DATA = [{"a": 1}, {"a": None}, {"b": 1}, {}, ["x", "y"], [], None, "abc", True, Decimal(3), {"a": {"b": [1]}}]


@pytest.mark.parametrize("data", DATA, ids=repr)
@pytest.mark.parametrize("field", ["a", "0", "length"])
def test_a_field_read_in_place_answers_as_js_var(data: Any, field: str) -> None:
    tool = toolkiln.compile(f'tool t(data: any) description "d" {{ return js_var(data, "{field}") }}')
    expected = BUILTINS["js_var"].impl(
        DEFAULT_LIMITS, toolkiln.compile('tool t(data: any) description "d" { return data }').run({"data": data}), field
    )
    assert tool.run({"data": data}) == expected


def test_only_a_one_step_path_without_default_is_read_in_place() -> None:
    def call(*args: n.Expr) -> n.Call:
        return n.Call(function="js_var", args=(n.Name(name="data"), *args))

    def closure(expr: n.Expr) -> Any:
        return lambda f: None

    assert js_calls.specialised(call(n.StringLit(value="a")), closure, DEFAULT_LIMITS, False) is not None
    for args in ((n.StringLit(value="a.b"),), (n.StringLit(value=""),), (n.StringLit(value="a"), n.NullLit())):
        assert js_calls.specialised(call(*args), closure, DEFAULT_LIMITS, False) is None
