"""toolkiln.to_jsonable and toolkiln.dumps (issue 15, item 2; issue 25, item 5): results as data
`json.dumps` takes, and as JSON text with each decimal's digits as the run computed them."""

import json
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkiln
from toolkiln.semantics.values import to_json

EXAMPLE = Path(__file__).parents[3] / "examples" / "shipping_cost.json"


def test_the_quick_start_result_goes_through_json_dumps_and_dumps_keeps_its_digits():
    result = toolkiln.compile(EXAMPLE).run({"weight_kg": 12})
    assert result == Decimal("31.500")
    assert json.dumps(toolkiln.to_jsonable(result)) == "31.5"  # was TypeError: Decimal is not JSON serializable
    assert toolkiln.dumps(result) == "31.500"
    assert toolkiln.dumps({"cost": result}, decimals="string") == '{"cost": "31.500"}'


def test_a_computed_scale_is_kept():
    tool = toolkiln.compile('vat = round(net * 0.19, 2)\nreturn {"net": net, "vat": vat, "gross": net + vat}')
    result = tool.run({"net": 100})
    data = toolkiln.to_jsonable(result)
    assert data == {"net": 100, "vat": 19.0, "gross": 119.0}
    assert [type(v) for v in data.values()] == [int, float, float]
    assert toolkiln.to_jsonable(result, decimals="decimal") == {
        "net": 100,
        "vat": Decimal("19.00"),
        "gross": Decimal("119.00"),
    }
    assert toolkiln.dumps(result) == '{"net": 100, "vat": 19.00, "gross": 119.00}'
    assert json.dumps(toolkiln.to_jsonable(result, decimals="string")) == (
        '{"net": "100", "vat": "19.00", "gross": "119.00"}'
    )


@pytest.mark.parametrize(
    ("number", "as_number", "as_decimal", "as_text"),
    [
        (Decimal("19.00"), 19.0, Decimal("19.00"), "19.00"),
        (Decimal("5"), 5, 5, "5"),
        (Decimal("1E+3"), 1000, 1000, "1000"),
        (Decimal("1.5E-5"), 1.5e-5, Decimal("0.000015"), "0.000015"),
        (Decimal("-0.50"), -0.5, Decimal("-0.50"), "-0.50"),
        (7, 7, 7, "7"),
        (0.1, 0.1, Decimal("0.1"), "0.1"),
    ],
)
def test_each_number(number, as_number, as_decimal, as_text):
    number_data = toolkiln.to_jsonable([number])[0]
    assert number_data == as_number and type(number_data) is type(as_number)
    decimal_data = toolkiln.to_jsonable([number], decimals="decimal")[0]
    assert decimal_data == as_decimal and str(decimal_data) == str(as_decimal)
    assert toolkiln.to_jsonable([number], decimals="string") == [as_text]
    assert toolkiln.dumps(number) == as_text and toolkiln.dumps(number, decimals="string") == f'"{as_text}"'


def test_a_number_longer_than_a_float_is_the_nearest_float_and_dumps_keeps_every_digit():
    third = toolkiln.compile("return 1 / 3").run({})
    assert json.dumps(toolkiln.to_jsonable(third)) == "0.3333333333333333"
    assert toolkiln.dumps(third) == "0.3333333333333333333333333333"


def test_dates_are_iso_text():
    tool = toolkiln.compile(
        'tool t(d: date, t: datetime)\ndescription "d"\n{\n  return {"due": add_days(d, 30), "at": t}\n}'
    )
    data = toolkiln.to_jsonable(tool.run({"d": "2026-01-31", "t": "2026-01-31T09:30:00+01:00"}), decimals="string")
    assert data == {"due": "2026-03-02", "at": "2026-01-31T09:30:00+01:00"}


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        toolkiln.to_jsonable(1, decimals="float")
    with pytest.raises(ValueError):
        toolkiln.dumps(1, decimals="float")
    with pytest.raises(ValueError):
        toolkiln.to_jsonable(Decimal("NaN"))
    with pytest.raises(TypeError):
        toolkiln.to_jsonable({1: 2})
    with pytest.raises(TypeError):
        toolkiln.to_jsonable({"a": {1, 2}})


decimals = st.decimals(allow_nan=False, allow_infinity=False, min_value=-(10**10), max_value=10**10, places=4)
values = st.recursive(
    st.one_of(decimals, st.integers(-(10**9), 10**9), st.text(max_size=5), st.booleans(), st.none()),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=15,
)


def _same_digits(a: object, b: object) -> bool:
    """Equal, and every decimal with the same digits and exponent (Decimal("1.0") is not 1)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same_digits(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same_digits, a, b))
    if isinstance(a, Decimal) and a.as_tuple().exponent < 0:
        return isinstance(b, Decimal) and a.as_tuple() == b.as_tuple()
    return a == b


@settings(max_examples=80, deadline=None)
@given(values)
def test_json_text_of_it_reads_back_with_every_digit(value):
    """Reference: the value itself. `dumps`'s text read back with parse_float=Decimal keeps
    every number's digits; as strings, each reads back as the same Decimal; `json.dumps` takes
    `to_jsonable`'s data, and reads back as the same numbers (each has at most 15 digits)."""
    exact = toolkiln.to_jsonable(value, decimals="decimal")
    assert _same_digits(exact, json.loads(toolkiln.dumps(value), parse_float=Decimal))
    as_strings = json.loads(json.dumps(toolkiln.to_jsonable(value, decimals="string")))
    assert _same_digits(_numbers_read(as_strings, value), exact)
    assert json.loads(json.dumps(toolkiln.to_jsonable(value)), parse_float=Decimal) == exact


def _numbers_read(data: object, original: object) -> object:
    """The string-encoded numbers of `data` read back as numbers, where `original` had one."""
    if isinstance(original, dict):
        return {k: _numbers_read(data[k], original[k]) for k in original}  # type: ignore[index]
    if isinstance(original, list):
        return [_numbers_read(d, o) for d, o in zip(data, original)]  # type: ignore[call-overload]
    if isinstance(original, (int, Decimal)) and not isinstance(original, bool):
        return toolkiln.to_jsonable(Decimal(data), decimals="decimal")  # type: ignore[arg-type]
    return data


plain = st.recursive(
    st.one_of(st.integers(), st.floats(), st.text(max_size=6), st.booleans(), st.none()),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=15,
)


@settings(max_examples=150, deadline=None)
@given(plain, st.sampled_from([None, 2]))
def test_plain_data_is_written_as_json_dumps_writes_it(value, indent):
    """Reference: json.dumps, whose C encoders `to_json` uses for strings (escapes, lone
    surrogates, non-ASCII kept), and its float text (NaN, Infinity) for floats."""
    assert to_json(value, indent) == json.dumps(value, ensure_ascii=False, indent=indent, separators=None)
