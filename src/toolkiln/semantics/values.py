"""Run-time values: what they are, how they compare, how they print.

Values are `Decimal` (numbers), `str`, `bool`, `None` (null), `list`, `dict` (objects),
`datetime.date` and aware `datetime.datetime` (see dates.py; as JSON, ISO 8601 text).
Arguments and table data are converted into this form once, at the boundary (a list of
objects read only by field, as it is read: interpret/lazy_items.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date, datetime
from decimal import Decimal, Overflow
from json.encoder import encode_basestring
from math import isfinite
from typing import Any, Literal

from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.semantics.dates import iso_text
from toolkiln.semantics.numbers import (
    EXTRA_DIGITS,
    LOWEST_DIGIT,
    from_float,
    from_float_fast,
    make_bounds,
    render_number,
    text_length,
)

MAX_NESTING = 64
_INF = float("inf")
# A Decimal whose coefficient fits in the object itself (76 digits on 64-bit builds) reports
# this size; a longer one reports more. (On a build where that differs, no Decimal is taken
# for short: slower checks, never wrong ones.)
SHORT_DECIMAL_SIZE = Decimal(1).__sizeof__()
SHORT_DECIMAL_DIGITS = 76


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    kind = type(value)
    if kind is Decimal:
        return "number"
    if kind is str:
        return "string"
    if kind is bool:
        return "boolean"
    if kind is list:
        return "array"
    if kind is dict:
        return "object"
    if kind is date:
        return "date"
    if kind is datetime:
        return "datetime"
    return kind.__name__


def _same(value: Any) -> Any:
    return value


def _finite_decimal(value: Decimal) -> Decimal:
    if not value.is_finite():
        raise RunError(codes.INVALID_ARGUMENT.code, f"{value} is not a finite number")
    return value


def _aware(value: datetime) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise RunError(codes.INVALID_ARGUMENT.code, f"the datetime {value} has no time zone (no offset from UTC)")
    return value


def _finite_float(value: float) -> Decimal:
    if not -_INF < value < _INF:  # NaN fails both comparisons
        raise RunError(codes.INVALID_ARGUMENT.code, f"{value} is not a finite number")
    return from_float_fast(value)


# Scalars by exact type (bool before int matters not: bool is its own type here). Looking the
# converter up saves a recursive call per item of a list or object, most of their cost.
_SCALARS: dict[type, Any] = {
    str: _same,
    bool: _same,
    type(None): _same,
    int: Decimal,
    float: _finite_float,
    Decimal: _finite_decimal,
    date: _same,
    datetime: _aware,
}


def value_reader(
    max_digits: int, max_length: int, max_text: int, max_values: int, *, floats: bool = False
) -> Callable[..., Any]:
    """`to_value` within bounds (a run's `Limits`): numbers by `make_bounds(max_digits)` (integer
    digits, significant digits, exponent), every list and object at most `max_length` items or
    fields, every string at most `max_text` characters, and at most `max_values` items and fields
    in all (so that data sharing one list many times over cannot make conversion unbounded).
    Raises RunError E0508 for anything outside them. Called inside a run's decimal scope.
    `floats`: a float within them stays a float, an int up to 2**53 becomes one (a program in
    the float domain reads them so)."""
    exact = make_bounds(max_digits).create_decimal  # C: refuses by signal, with no Python frame per int
    real = _real_reader(exact, 10.0 ** min(max_digits, 308))
    scalars: dict[type, Any] = {
        str: _text_reader(max_text),
        bool: _same,
        type(None): _same,
        int: _whole_float_reader(exact) if floats else exact,
        float: _float_reader(real, 10.0 ** min(max_digits, 308)) if floats else real,
        Decimal: _number_reader(exact),
        date: _same,
        datetime: _aware,
    }
    walk = _walker(scalars, max_length, max_values)

    def read(data: Any, left: list[int] | None = None) -> Any:
        """`data` converted; `left` holds how many more items and fields may be read, shared
        by the calls that read one argument (a fresh `[max_values]` when not given)."""
        convert = scalars.get(type(data))
        try:
            if convert is not None:
                return convert(data)
            return walk(data, 0, [max_values] if left is None else left)
        except ArithmeticError as error:
            raise RunError(codes.INVALID_ARGUMENT.code, _number_refusal(error, max_digits)) from None

    return read


def _number_reader(exact: Callable[[Decimal], Decimal]) -> Callable[[Decimal], Decimal]:
    def number(value: Decimal) -> Decimal:
        if not value.is_finite():
            raise RunError(codes.INVALID_ARGUMENT.code, f"{value} is not a finite number")
        return exact(value)

    return number


def _real_reader(exact: Callable[[Decimal], Decimal], float_bound: float) -> Callable[[float], Decimal]:
    def real(value: float) -> Decimal:
        if -float_bound < value < float_bound:  # finite, few enough digits
            return from_float_fast(value)
        if value != value or value in (_INF, -_INF):
            raise RunError(codes.INVALID_ARGUMENT.code, f"{value} is not a finite number")
        return exact(from_float(value))

    return real


def _float_reader(real: Callable[[float], Decimal], float_bound: float) -> Callable[[float], Any]:
    def kept(value: float) -> Any:
        if -float_bound < value < float_bound:  # finite, few enough digits
            return value
        return real(value)  # refused, as in decimals

    return kept


_EXACT_WHOLE = 2**53  # every int up to it is a float exactly


def _whole_float_reader(exact: Callable[[int], Decimal]) -> Callable[[int], Any]:
    def whole(value: int) -> Any:
        return float(value) if -_EXACT_WHOLE <= value <= _EXACT_WHOLE else exact(value)

    return whole


def _text_reader(max_text: int) -> Callable[[str], str]:
    def text(value: str) -> str:
        if len(value) > max_text:
            raise RunError(codes.INVALID_ARGUMENT.code, f"a string in the data is longer than {max_text:,} characters")
        return value

    return text


def _walker(scalars: dict[type, Any], max_length: int, max_values: int) -> Callable[[Any, int, list[int]], Any]:
    """Converts lists and objects (and subclasses of the scalars) item by item, within the
    bounds; a scalar item is converted by its entry in `scalars`, without a call of its own."""

    def walk(data: Any, depth: int, left: list[int]) -> Any:
        convert = scalars.get(type(data))
        if convert is not None:
            return convert(data)
        if depth >= MAX_NESTING:
            raise RunError(codes.INVALID_ARGUMENT.code, f"data nested deeper than {MAX_NESTING} levels")
        kind = type(data)
        if kind is list or kind is tuple or kind is dict:
            size = len(data)
            if size > max_length:
                what = "an object with more than" if kind is dict else "a list of more than"
                raise RunError(codes.INVALID_ARGUMENT.code, f"the data holds {what} {max_length:,} items")
            left[0] -= size
            if left[0] < 0:
                raise RunError(codes.INVALID_ARGUMENT.code, f"the data holds more than {max_values:,} values in all")
        if kind is list or kind is tuple:
            items = []
            for item in data:
                convert = scalars.get(type(item))
                items.append(convert(item) if convert is not None else walk(item, depth + 1, left))
            return items
        if kind is dict:
            out = {}
            for key, item in data.items():
                if type(key) is not str:
                    raise RunError(codes.INVALID_ARGUMENT.code, f"object keys must be strings, not {key!r:.40}")
                convert = scalars.get(type(item))
                out[key] = convert(item) if convert is not None else walk(item, depth + 1, left)
            return out
        return walk(_normalised(data), depth, left)

    return walk


def _normalised(data: Any) -> Any:
    """A subclass of a value's type as that type, by value (a str subclass's own __str__ is
    never called); anything else is refused."""
    if isinstance(data, bool):
        return bool(data)
    if isinstance(data, int):
        return int.__index__(data)
    if isinstance(data, float):
        return float.__float__(data)
    if isinstance(data, str):
        return str.__str__(data)
    if isinstance(data, (list, tuple)):
        return list(data)
    if isinstance(data, dict):
        return dict(data)
    if isinstance(data, Decimal):
        return Decimal(data)
    raise RunError(codes.INVALID_ARGUMENT.code, f"unsupported value of type {type(data).__name__}")


def _number_refusal(error: ArithmeticError, max_digits: int) -> str:
    if isinstance(error, Overflow):
        return f"a number in the data has more than {max_digits:,} digits before the point"
    return (
        f"a number in the data has more than {max_digits + EXTRA_DIGITS:,} significant digits, "
        f"or digits below 1E{LOWEST_DIGIT}"
    )


def to_value(data: Any, depth: int = 0) -> Any:
    """Plain Python / JSON data -> a run-time value (floats by their shortest repr). Called
    inside a run's decimal scope (see `from_float_fast`)."""
    scalars = _SCALARS
    convert = scalars.get(type(data))
    if convert is not None:
        return convert(data)
    if depth >= MAX_NESTING:
        raise RunError(codes.INVALID_ARGUMENT.code, f"data nested deeper than {MAX_NESTING} levels")
    kind = type(data)
    if kind is list or kind is tuple:
        items = []
        for item in data:
            convert = scalars.get(type(item))
            items.append(convert(item) if convert is not None else to_value(item, depth + 1))
        return items
    if kind is dict:
        out = {}
        for key, item in data.items():
            if type(key) is not str:
                raise RunError(codes.INVALID_ARGUMENT.code, f"object keys must be strings, not {key!r}")
            convert = scalars.get(type(item))
            out[key] = convert(item) if convert is not None else to_value(item, depth + 1)
        return out
    return to_value(_normalised(data), depth)  # a subclass, by value; anything else refused


def equal(a: Any, b: Any, left: list[int] | None = None) -> bool:
    """Equality without Python's coercions: `1 == true` is false, `[1] == [1.0]` is true.

    With `left` (`[n]`), at most n items and fields are compared, at every depth (what is
    compared is subtracted): past that, RunError E0503. Lists that hold one list many times
    over would otherwise take the product of their lengths."""
    if type(a) is not type(b):
        return False
    kind = type(a)
    if kind is list or kind is dict:
        if a is b:
            return True  # (no NaN among values: a value equals itself)
        if len(a) != len(b) or (kind is dict and a.keys() != b.keys()):
            return False
        if left is not None:
            left[0] -= len(a)
            if left[0] < 0:
                raise RunError(codes.OPERATION_BUDGET.code, "the comparison needs more operations than are left")
        if kind is list:
            return all(equal(x, y, left) for x, y in zip(a, b))
        return all(equal(a[k], b[k], left) for k in a)
    same: bool = a == b
    return same


def to_text(value: Any) -> str:
    """How a value prints inside a template or through `text(...)`."""
    kind = type(value)
    if kind is str:
        text: str = value
        return text
    if kind is Decimal:
        return render_number(value)
    if kind is date or kind is datetime:
        return iso_text(value)
    return to_json(value)


def too_long(limit: int) -> RunError:
    return RunError(codes.STRING_TOO_LONG.code, f"the text would be longer than {limit:,} characters")


def to_text_within(value: Any, limit: int) -> str:
    """`to_text(value)`, or RunError E0504 if it would be longer than `limit`: decided before
    the text is built (a number's length is computed, a list's text built piece by piece and
    given up once over), so that neither time nor memory goes past the limit."""
    kind = type(value)
    if kind is str:
        if len(value) > limit:
            raise too_long(limit)
        text: str = value
        return text
    if kind is Decimal:
        if text_length(value) > limit:
            raise too_long(limit)
        return render_number(value)
    if kind is date or kind is datetime:
        text = iso_text(value)  # (at most 32 characters)
        if len(text) > limit:
            raise too_long(limit)
        return text
    pieces: list[str] = []
    _json_within(value, pieces, [limit], limit)
    return "".join(pieces)


def _json_within(value: Any, out: list[str], left: list[int], limit: int) -> None:
    kind = type(value)
    if kind is list or kind is dict:
        out.append("[" if kind is list else "{")
        left[0] -= 2
        first = True
        for key, item in value.items() if kind is dict else enumerate(value):
            if not first:
                out.append(", ")
                left[0] -= 2
            first = False
            if kind is dict:
                _json_within(key, out, left, limit)
                out.append(": ")
                left[0] -= 2
            _json_within(item, out, left, limit)
        out.append("]" if kind is list else "}")
    elif kind is str:
        if len(value) + 2 > left[0]:
            raise too_long(limit)
        piece = json.dumps(value, ensure_ascii=False)
        left[0] -= len(piece)
        out.append(piece)
    elif kind is Decimal:
        size = text_length(value)
        if size > left[0]:
            raise too_long(limit)
        left[0] -= size
        out.append(render_number(value))
    else:
        piece = to_json(value)  # null, true, false, a date's ISO text
        left[0] -= len(piece)
        out.append(piece)
    if left[0] < 0:
        raise too_long(limit)


def to_json(value: Any, indent: int | None = None, _level: int = 0, *, exact: bool = False) -> str:
    """JSON text for a value or plain data, exact numbers in plain notation (31.5, not
    "31.500"; with `exact`, each number's digits as computed: 19.00 stays 19.00); `indent`
    lays it out like json.dumps(indent=...)."""
    if value is None:
        return "null"
    kind = type(value)
    if kind is str:  # (json's own C encoder: what json.dumps(value, ensure_ascii=False) writes)
        return encode_basestring(value)
    if kind is Decimal:
        return format(value, "f") if exact else render_number(value)
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return int.__repr__(value)
    if kind is float:
        return float.__repr__(value) if isfinite(value) else json.dumps(value)
    if kind is date or kind is datetime:
        return f'"{iso_text(value)}"'
    if kind is list or kind is dict:
        items = (
            [to_json(v, indent, _level + 1, exact=exact) for v in value]
            if kind is list
            else [f"{_key_json(k)}: {to_json(v, indent, _level + 1, exact=exact)}" for k, v in value.items()]
        )
        opening, closing = ("[", "]") if kind is list else ("{", "}")
        if not items:
            return opening + closing
        if indent is None:
            return opening + ", ".join(items) + closing
        pad = " " * (indent * (_level + 1))
        return f"{opening}\n{pad}" + f",\n{pad}".join(items) + f"\n{' ' * (indent * _level)}{closing}"
    raise TypeError(f"not a toolkiln value: {value!r}")


def _key_json(key: Any) -> str:
    return encode_basestring(key) if type(key) is str else json.dumps(key, ensure_ascii=False)


def to_plain(value: Any) -> Any:
    """A value as plain Python data: whole numbers as int, others as float when the float means
    exactly the same number, else they stay Decimal (never a silent loss of digits); dates and
    datetimes as ISO 8601 text, as JSON carries them."""
    kind = type(value)
    if kind is Decimal:
        if value == value.to_integral_value():
            return int(value)
        as_float = float(value)
        return as_float if from_float(as_float) == value else value
    if kind is list:
        return [to_plain(item) for item in value]
    if kind is dict:
        return {k: to_plain(v) for k, v in value.items()}
    if kind is date or kind is datetime:
        return iso_text(value)
    return value


DecimalEncoding = Literal["number", "string", "decimal"]
_ENCODINGS = ("number", "string", "decimal")


def to_jsonable(value: Any, *, decimals: DecimalEncoding = "number") -> Any:
    """A run's result (or any toolkiln value) as data `json.dumps` takes: dicts with string
    keys, lists, strings, booleans, None and numbers; dates and datetimes as their ISO 8601
    text, as JSON Schema's `format: date` / `date-time` read it.

    `decimals="number"` (the default): a number with no digits after the point is an `int`,
    any other the `float` of the same value (Decimal("31.500") -> 31.5). That float is the
    number itself whenever it has at most 15 significant digits; a longer one (1/3's 28) is
    the nearest float, which is what a JSON reader that parses numbers as doubles would read.
    The digits as computed: `toolkiln.dumps(value)` writes them as JSON text (31.500);
    `decimals="string"` gives every number's exact text ("31.500", "1000", "0.000015");
    `decimals="decimal"` keeps the exact `Decimal`s, for a Decimal-aware encoder such as
    `simplejson.dumps`."""
    if decimals not in _ENCODINGS:
        raise ValueError(f'decimals must be "number", "string" or "decimal", not {decimals!r}')
    return _jsonable(value, decimals)


def dumps(value: Any, *, decimals: DecimalEncoding = "number", indent: int | None = None) -> str:
    """JSON text for a run's result (or any toolkiln value, or data holding them), each number
    with the digits the run computed, as a JSON number (`31.500`, what `toolkiln run` prints),
    or with `decimals="string"` as a JSON string ("31.500"). `indent` as json.dumps's."""
    if decimals not in _ENCODINGS:
        raise ValueError(f'decimals must be "number", "string" or "decimal", not {decimals!r}')
    as_text = decimals == "string"
    return to_json(_jsonable(value, "string" if as_text else "decimal"), indent, exact=not as_text)


def _jsonable(value: Any, decimals: str) -> Any:
    kind = type(value)
    if kind is Decimal or kind is int or kind is float:
        return _number(value, decimals)
    if kind is list or kind is tuple:
        return [_jsonable(item, decimals) for item in value]
    if kind is dict:
        return {_key(key): _jsonable(item, decimals) for key, item in value.items()}
    if value is None or kind is str or kind is bool:
        return value
    if kind is date or kind is datetime:
        return iso_text(value)
    raise TypeError(f"not a toolkiln value: {type(value).__name__}")


def _number(value: Decimal | int | float, decimals: str) -> Decimal | int | float | str:
    if isinstance(value, int):
        return str(value) if decimals == "string" else value
    if (isinstance(value, Decimal) and not value.is_finite()) or (
        isinstance(value, float) and not -_INF < value < _INF
    ):
        raise ValueError(f"{value} is not a finite number: JSON has none")
    exact = from_float(value) if isinstance(value, float) else value
    if decimals == "string":
        return format(exact, "f")
    exponent = exact.as_tuple().exponent
    if type(exponent) is int and exponent >= 0:
        return int(exact)
    return exact if decimals == "decimal" else float(exact)


def _key(key: Any) -> str:
    if type(key) is not str:
        raise TypeError(f"object keys must be strings, not {type(key).__name__}")
    return key
