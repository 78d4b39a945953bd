"""The JavaScript-semantics builtins of imported JsonLogic rules, called from the compute
language as an imported tool calls them."""

from __future__ import annotations

from decimal import Decimal

import pytest

import toolkiln
from toolkiln.errors import RunError

D = Decimal


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('truthy([]) or truthy({}) or truthy("") or truthy(0) or truthy(null)', False),
        ('truthy([0]) and truthy({"a": 1}) and truthy("0")', True),
        ('to_number(" 12 ") + to_number("") + to_number(true) + to_number("0x10")', D(29)),
        ('js_equals(1, "1") and js_equals(null, 0) and not js_equals(null, "")', True),
        ('js_strict_equals(1, 1) and not js_strict_equals(1, "1") and not js_strict_equals([1], [1])', True),
        ('[js_compare("a", "b"), js_compare("21", 3), js_compare(null, "A")]', [D(-1), D(1), D(2)]),
        ('js_add([1, "2", true, null])', D(4)),
        ("js_add_f64([0.1, 0.2])", D("0.30000000000000004")),
        ('[js_sub([5]), js_sub([5, "2"]), js_sub_f64([1, 0.9])]', [D(-5), D(3), D("0.09999999999999998")]),
        ('[js_mul([2, "3"]), js_mul_f64([0.1, 3])]', [D(6), D("0.30000000000000004")]),
        ("[js_div([1, 4]), js_div_f64([1, 3])]", [D("0.25"), D("0.3333333333333333")]),
        ("[js_mod([-7, 3]), js_mod_f64([7.5, 2])]", [D(-1), D("1.5")]),
        ("[js_max([1, 3, 2]), js_min(4)]", [D(3), D(4)]),
        ('js_cat(["a", 1.50, null, [1, 2], true])', "a1.5null1,2true"),
        (
            '[js_substr("jsonlogic", 4), js_substr("jsonlogic", -5, 2), js_substr("jsonlogic", 1, -3)]',
            ["logic", "lo", "sonlo"],
        ),
        ('js_in("Spring", "Springfield") and js_in(1, [1, 2]) and not js_in("1", [1]) and not js_in(1, null)', True),
        ("js_merge([[1, 2], 3, [[4]]])", [D(1), D(2), D(3), [D(4)]]),
        ('[js_list([1]), js_list("no")]', [[D(1)], []]),
        ('[js_entries(["a", "b"]), js_entries("no")]', [[[D(0), "a"], [D(1), "b"]], []]),
        ('[js_f64([0.1, 3, 0.2], ". . *2 . +2"), js_f64(["2", 5], ". . -2")]', [D("0.5"), D(-3)]),
        ("[js_all([true, true]), js_all([])]", [True, False]),
        ('[js_last([1, 2], "none"), js_last([], "none")]', [D(2), "none"]),
        ('[js_length("abc"), js_length([1, 2])]', [D(3), D(2)]),
        ('[js_var({"a": {"b": [5, 6]}}, "a.b.1"), js_var({"a": null}, "a", 7), js_var(3, "")]', [D(6), D(7), D(3)]),
        ('[js_val({"a.b": 1}, ["a.b"]), js_val([1, 2], [1]), js_val({}, ["x"])]', [D(1), D(2), None]),
        ('[js_exists({"a": null}, ["a"]), js_exists({}, ["a"])]', [True, False]),
        ('js_missing({"a": 1, "b": ""}, ["a", "b", "c.d"])', ["b", "c.d"]),
        ('[js_missing_some({"a": 1}, 1, ["a", "b"]), js_missing_some({"a": 1}, 2, ["a", "b"])]', [[], ["b"]]),
    ],
)
def test_builtin(expression, expected):
    assert toolkiln.compile(f"return {expression}").run({}) == expected


@pytest.mark.parametrize(
    ("expression", "code"),
    [
        ('to_number("abc")', "E1003"),
        ("to_number([1])", "E1003"),
        ("js_equals([], [1])", "E1003"),
        ('js_compare(1, "A")', "E1003"),
        ("js_div([1, 0])", "E1003"),
        ("js_mod_f64([1, 0])", "E1003"),
        ('js_f64([1, 0], ". . /2")', "E1003"),
        ('js_f64([1], ". . +2")', "E1002"),
        ('js_f64([1, 2], ". . ^2")', "E1002"),
        ("js_sub([])", "E1002"),
        ('js_max(["1", 2])', "E1002"),
        ("js_min([])", "E1002"),
        ("js_length(5)", "E1002"),
        ('js_throw({"type": "Not an admin"})', "E1004"),
    ],
)
def test_builtin_failure(expression, code):
    with pytest.raises(RunError) as failed:
        toolkiln.compile(f"return {expression}").run({})
    assert failed.value.code == code
