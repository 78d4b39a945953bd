"""Lists of objects converted as their fields are read (issue 16, items 2 and 3).

A parameter such as `items: array[object]` that the program only iterates in comprehensions
reading fields (`sum(i.price * i.qty for i in items)`) is checked whole when bound and each
field converted when read (interpret/lazy_items.py). The contract: results and errors (code,
message, hint, location) are exactly those of the eager conversion on any data, valid or not.
The eager tool is compiled with the analysis switched off, and both run the same arguments.
"""

from __future__ import annotations

import enum
import pickle
from collections.abc import Iterator, Mapping
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkiln
from toolkiln import RunError

INVOICE = """tool invoice(items: array[object], tax_percent: number = 0)
description "Invoice total"
{
  subtotal = sum(i.price * i.qty for i in items)
  return subtotal + subtotal * tax_percent / 100
}
"""

LINES = """tool lines(lines: array[{"price": number, "qty": integer, "note": string?, "day": date?, "extra": any}])
description "Line totals with their notes"
{
  return [{"total": l.price * l.qty, "note": l.note, "day": l.day, "extra": l.extra} for l in lines if l.qty > 1]
}
"""

# Every way the analysis must see: reads in filters, nested comprehensions, the same list
# twice, text joined from fields, a field's value kept whole.
SHAPES = """tool shapes(items: array[object])
description "Fields read in many places"
{
  names = [i.name + "!" for i in items if i.qty > 0]
  pairs = [[j.qty - i.qty for j in items] for i in items]
  firsts = [i.tags for i in items]
  return {"names": names, "pairs": pairs, "firsts": firsts, "total": sum(i.qty for i in items)}
}
"""

# Field arithmetic on whole numbers and fractions, long enough to round (28 digits).
ARITHMETIC = """tool arithmetic(items: array[object])
description "Products, differences and sums of fields"
{
  return [[i.price * i.qty, i.qty - i.price, i.qty + i.qty] for i in items]
}
"""

# Bare logic: `items` is inferred as `array` (of anything), its items read as objects.
BARE = "return [i.price * i.qty + i.qty for i in items if i.qty != 0]"

SMALL = toolkiln.Limits(max_operations=300, max_list_length=8, max_string_length=12, max_number_digits=6)
TIGHT = toolkiln.Limits(max_operations=60, max_list_length=8, max_string_length=12, max_number_digits=6)


def compiled(source: str, lazy: bool = True) -> toolkiln.Tool:
    """The tool; with `lazy=False`, compiled with the analysis off (every list converted
    eagerly), for the default limits, SMALL and TIGHT."""
    if lazy:
        return toolkiln.compile(source)
    with mock.patch("toolkiln.interpret.program.lazy_parameters", return_value={}):
        tool = toolkiln.compile(source)
        for limits in (SMALL, TIGHT):
            tool._program_for(limits)  # compiled now, while the analysis is off
    assert not lazy_parameters(tool)
    return tool


def outcome(tool: toolkiln.Tool, args: Any, limits: toolkiln.Limits | None = None) -> tuple[Any, ...]:
    """What a run gives, comparable exactly: a result's repr (Decimal digits and exponent
    included) or an error's code, message, hint and location."""
    try:
        return ("ok", repr(tool.run(args, limits=limits)))
    except RunError as error:
        return ("error", error.code, error.message, error.hint, error.span)


def lazy_parameters(tool: toolkiln.Tool) -> dict[str, frozenset[str]]:
    return dict(tool._default.exprs.lazy)


# --- which parameters are bound lazily ------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "lazy"),
    [
        ("return sum(i.price * i.qty for i in items)", True),
        ("return [i.a for i in items if i.b]", True),
        ("return [[j.a for j in items] for i in items]", True),
        ("return [items.a for items in items]", True),  # the variable shadows the list
        ("return len(items)", False),  # passed to a builtin
        ("return items", False),  # returned
        ("return [i for i in items]", False),  # an item used whole
        ("return [i.a for i in sort(items, 'a')]", False),
        ("return [len(i) for i in items]", False),
        ("return [i.a for i in items if i == {}]", False),  # an item compared whole
        ("xs = items\nreturn [i.a for i in xs]", False),  # stored in a variable
        ("return [[i.a for i in j] for j in [items]]", False),
        ("return [i['a'] for i in items]", False),  # read by index: kept eager
    ],
)
def test_a_list_is_lazy_only_when_its_items_are_only_read_by_field(body, lazy):
    # (as written: the optimizer would put `items` for `xs` where `xs = items`)
    tool = toolkiln.compile(f'tool t(items: array[object])\ndescription "d"\n{{\n  {body}\n}}\n', optimize=False)
    assert ("items" in lazy_parameters(tool)) is lazy


def test_which_types_qualify():
    def lazy_for(type_: str) -> bool:
        tool = toolkiln.compile(f'tool t(items: {type_})\ndescription "d"\n{{\n  return [i.a for i in items]\n}}\n')
        return "items" in lazy_parameters(tool)

    assert lazy_for("array[object]")
    assert lazy_for("array")  # of anything: bound as given when its items are all objects
    assert lazy_for('array[{"a": number, "b": string?, "c": any, "d": date}]')
    assert not lazy_for('array[{"a": number, "b": array[number]}]')  # a field to walk
    assert not lazy_for('array[{"a": number, "b": datetime}]')
    assert not lazy_for("array[object]?")


def test_a_nullable_record_field_left_out_reads_as_null():
    tool = toolkiln.compile(LINES)
    assert lazy_parameters(tool) == {"lines": frozenset({"note", "day", "extra"})}
    assert tool.run({"lines": [{"price": 2.5, "qty": 4}]}) == [
        {"total": Decimal("10.0"), "note": None, "day": None, "extra": None}
    ]


def test_the_list_is_bound_as_given_and_never_changed():
    tool = toolkiln.compile(INVOICE)
    items = [{"price": 19.99, "qty": 3}, {"price": 0.5, "qty": 1, "note": "kept as given"}]
    program = tool._default
    frame = program.scope.run(program.bind, {"items": items})
    assert frame[1] is items  # not copied
    assert tool.run({"items": items, "tax_percent": 10}) == Decimal("66.517")
    assert items == [{"price": 19.99, "qty": 3}, {"price": 0.5, "qty": 1, "note": "kept as given"}]


# --- the same results and errors as the eager conversion -------------------------------------


@pytest.mark.parametrize(
    "items",
    [
        [{"price": 1.5, "qty": 2, "note": float("nan")}],  # a bad value in a field never read
        [{"price": 1.5, "qty": 2, "note": float("inf")}],
        [{"price": 1.5, "qty": 2, "note": 10**7}],  # more digits than SMALL allows
        [{"price": 1.5, "qty": 2, "note": "x" * 13}],  # longer than SMALL's strings
        [{"price": 1.5, "qty": 2, "note": Decimal("NaN")}],
        [{"price": 1.5, "qty": 2, "note": Decimal("1E-1000100")}],
        [{"price": 1.5, "qty": 2, "note": {1, 2}}],  # not a value at all
        [{"price": 1.5, "qty": 2, 3: "a key that is not text"}],
        [{"price": "1.5", "qty": 2}],  # a read field of the wrong type
        [{"qty": 2}],  # a read field missing
        [{"price": 1.5, "qty": 2}, "not an object"],
        [{"price": 1.5, "qty": 2}] * 9,  # more items than max_list_length
        [{f"f{k}": k for k in range(8)}] * 8,  # 8 + 64 values: within max_list_length each...
        "not a list",
    ],
)
def test_bad_data_is_refused_exactly_as_before(items):
    lazy, eager = compiled(INVOICE), compiled(INVOICE, lazy=False)
    assert outcome(lazy, {"items": items}, TIGHT) == outcome(eager, {"items": items}, TIGHT)
    assert outcome(lazy, {"items": items}, TIGHT)[0] == "error"


def test_the_unread_bad_value_is_refused_with_its_message():
    result = outcome(compiled(INVOICE), {"items": [{"price": 1, "qty": 2, "note": float("nan")}]})
    assert result[:3] == ("error", "E0508", "argument `items`: nan is not a finite number")


def test_a_list_sharing_one_item_many_times_is_held_to_the_values_budget():
    item = {f"f{k}": k for k in range(50)} | {"price": 1, "qty": 1}
    limits = toolkiln.Limits(max_operations=1_000, max_list_length=100)
    result = outcome(compiled(INVOICE), {"items": [item] * 30}, limits)
    assert result[:3] == ("error", "E0508", "argument `items`: the data holds more than 1,000 values in all")


def test_a_record_list_is_held_to_the_values_budget_as_before():
    # The record converter counts a field it does not declare twice (once as a field, once
    # as data of its own): 10 items of 2 declared and 15 other fields take 10 + 10 * 32 = 330.
    item = {"price": 1.5, "qty": 2} | {f"f{k}": k for k in range(15)}
    lazy, eager = compiled(LINES), compiled(LINES, lazy=False)
    for budget, refused in ((329, True), (330, False)):
        limits = toolkiln.Limits(max_operations=budget, max_list_length=17)
        result = outcome(lazy, {"lines": [item] * 10}, limits)
        assert result == outcome(eager, {"lines": [item] * 10}, limits)
        assert (result[:2] == ("error", "E0508")) is refused, result


def test_a_long_list_gives_the_same_results_in_chunks():
    # 20,000 items: the comprehension runs in chunks between looks at the clock, and the
    # operation budget is charged for every item as before.
    items = [{"price": k / 7 if k % 3 else k, "qty": k % 13, "note": "n" * (k % 5)} for k in range(20_000)]
    lazy, eager = compiled(INVOICE), compiled(INVOICE, lazy=False)
    assert outcome(lazy, {"items": items, "tax_percent": 19}) == outcome(eager, {"items": items, "tax_percent": 19})
    assert outcome(lazy, {"items": items})[0] == "ok"
    tight = toolkiln.Limits(max_operations=50_000)  # enough for the values, not for the loop
    assert outcome(lazy, {"items": items}, tight) == outcome(eager, {"items": items}, tight)
    assert outcome(lazy, {"items": items}, tight)[:2] == ("error", "E0503")


class Prices(Mapping[str, Any]):
    """A Mapping that is not a dict: converted eagerly, as before."""

    def __init__(self, fields: dict[Any, Any]) -> None:
        self.fields = fields

    def __getitem__(self, key: str) -> Any:
        return self.fields[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)


class Size(enum.IntEnum):
    LARGE = 3


def test_tuples_mappings_and_subclasses_give_the_same_results():
    lazy, eager = compiled(INVOICE), compiled(INVOICE, lazy=False)
    for items in (
        ({"price": 1.5, "qty": 2},),  # a tuple of items
        [Prices({"price": 2.5, "qty": 2}), {"price": 1, "qty": 1}],
        [{"price": 2.5, "qty": Size.LARGE}],
        [{"price": Decimal("2.50"), "qty": 2}],
        [{"price": 2.5, "qty": 2, "when": date(2026, 1, 31), "at": datetime(2026, 1, 31, tzinfo=UTC)}],
        [{"price": 2.5, "qty": 2, "tags": ["a", {"b": 1.5}]}],
    ):
        assert outcome(lazy, {"items": items}) == outcome(eager, {"items": items})
        assert outcome(lazy, {"items": items})[0] == "ok"


# Values valid under SMALL (and the default limits), and values some converter refuses or
# converts in its own way: a run meets at most one of the latter, so that it decides the outcome.
_VALID = st.one_of(
    st.floats(min_value=-1e4, max_value=1e4),
    st.integers(min_value=-99_999, max_value=99_999),
    st.decimals(min_value=-(10**4), max_value=10**4, places=2),
    st.text(max_size=12),
    st.booleans(),
    st.none(),
    st.dates(),
)
_ODD = st.sampled_from(
    [
        float("nan"),
        float("inf"),
        -float("inf"),
        1e300,
        10**7,  # more digits than SMALL allows
        10**120,
        "x" * 13,  # longer than SMALL's strings
        "é" * 14,
        Decimal("NaN"),
        Decimal("-Infinity"),
        Decimal("1E+7"),
        Decimal("1E-1000100"),
        Decimal(10**80),
        Size.LARGE,
        datetime(2026, 1, 31, tzinfo=UTC),
        datetime(2026, 1, 31),  # no offset
        {1, 2},
        b"x",
        (1.5, "a"),
        [1, [2.5, "b"]],
        {"a": 1.25},
        {"a": float("nan")},
        Prices({"a": 1}),
    ]
)
_KEYS = st.sampled_from(["price", "qty", "name", "tags", "note", "day", "extra"])
_LINE = st.fixed_dictionaries(
    {
        "price": st.one_of(
            st.floats(-1e4, 1e4), st.integers(-99, 99), st.decimals(-100, 100, places=2), st.integers(-(10**40), 10**40)
        ),
        "qty": st.one_of(
            st.integers(-9, 9), st.floats(-9, 9), st.integers(-9, 9).map(float), st.integers(-(10**40), 10**40)
        ),
    },
    optional={"note": st.text(max_size=3) | st.none(), "day": st.dates() | st.none(), "extra": _VALID},
)
_ITEM = st.one_of(
    _LINE,
    st.dictionaries(_KEYS, _VALID, max_size=6),
    st.fixed_dictionaries({"price": st.floats(-1e4, 1e4), "qty": st.integers(-50, 50)}),
    st.fixed_dictionaries({"price": st.floats(-1e4, 1e4), "qty": st.integers(1, 9), "note": st.text(max_size=3)}),
    st.fixed_dictionaries(
        {"price": st.integers(-99, 99), "qty": st.integers(0, 9), "name": st.text(max_size=3), "tags": st.just([])}
    ),
)
_ODD_ITEMS = st.sampled_from(["an item", None, 3]) | st.builds(Prices, st.dictionaries(_KEYS, _VALID, max_size=3))


@st.composite
def _items(draw: st.DrawFn) -> Any:
    """A list (tuple, or one item many times over) of objects with valid values, and maybe
    one odd thing in it: a value, a key that is not text, an item that is not a dict."""
    if draw(st.booleans()):
        items = draw(st.builds(lambda item, k: [item] * k, _ITEM, st.integers(0, 10)))
    else:
        items = draw(st.lists(_ITEM, max_size=10))
    odd = draw(st.sampled_from(["none", "value", "value", "key", "item"]))
    if items and odd != "none":
        at = draw(st.integers(0, len(items) - 1))
        if odd == "item":
            items[at] = draw(_ODD_ITEMS)
        else:
            key = draw(_KEYS) if odd == "value" else draw(st.integers(0, 2))
            items[at] = {**items[at], key: draw(_ODD)}
    return tuple(items) if draw(st.booleans()) else items


@pytest.mark.parametrize("source", [INVOICE, LINES, SHAPES, ARITHMETIC, BARE])
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_lazy_and_eager_binding_agree_on_any_data(source, data):
    name = "lines" if source == LINES else "items"
    items = data.draw(_items(), label=name)
    limits = data.draw(st.sampled_from([None, SMALL]), label="limits")
    lazy, eager = _TOOLS[source]
    assert name in lazy_parameters(lazy)
    assert outcome(lazy, {name: items}, limits) == outcome(eager, {name: items}, limits)


_TOOLS = {
    source: (compiled(source), compiled(source, lazy=False)) for source in (INVOICE, LINES, SHAPES, ARITHMETIC, BARE)
}


def test_a_lazy_tool_pickles_and_runs_in_a_pool():
    tool = compiled(INVOICE)
    copy = pickle.loads(pickle.dumps(tool))
    rows = [{"items": [{"price": 0.1 * k, "qty": k}], "tax_percent": 7} for k in range(40)]
    assert lazy_parameters(copy) == {"items": frozenset()}
    expected = [tool.run(row) for row in rows]
    assert copy.run_many(rows) == expected
    assert tool.run_many(rows, workers=2) == expected
