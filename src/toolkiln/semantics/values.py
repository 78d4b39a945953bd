"""Run-time values: what they are, how they compare, how they print.

Values are `Decimal` (numbers), `str`, `bool`, `None` (null), `list` and `dict` (objects).
Arguments and table data are converted into this form once, at the boundary.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.semantics.numbers import from_float, from_float_fast, render_number

MAX_NESTING = 64
_INF = float("inf")


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
    return kind.__name__


def _same(value: Any) -> Any:
    return value


def _finite_decimal(value: Decimal) -> Decimal:
    if not value.is_finite():
        raise RunError(codes.INVALID_ARGUMENT.code, f"{value} is not a finite number")
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
}


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
    if isinstance(data, (int, float, str, list, tuple, dict)):  # subclasses: normalise
        base: Callable[[Any], Any] = next(t for t in (bool, int, float, str, list, dict) if isinstance(data, t))
        return to_value(base(data), depth)
    raise RunError(codes.INVALID_ARGUMENT.code, f"unsupported value of type {kind.__name__}")


def equal(a: Any, b: Any) -> bool:
    """Equality without Python's coercions: `1 == true` is false, `[1] == [1.0]` is true."""
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
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
    return to_json(value)


def to_json(value: Any, indent: int | None = None, _level: int = 0) -> str:
    """JSON text for a value or plain data, exact numbers in plain notation (31.5, not
    "31.500"); `indent` lays it out like json.dumps(indent=...)."""
    if value is None:
        return "null"
    kind = type(value)
    if kind is bool:
        return "true" if value else "false"
    if kind is Decimal:
        return render_number(value)
    if kind is int or kind is float:
        return json.dumps(value)
    if kind is str:
        return json.dumps(value, ensure_ascii=False)
    if kind is list or kind is dict:
        items = (
            [to_json(v, indent, _level + 1) for v in value]
            if kind is list
            else [f"{json.dumps(k, ensure_ascii=False)}: {to_json(v, indent, _level + 1)}" for k, v in value.items()]
        )
        opening, closing = ("[", "]") if kind is list else ("{", "}")
        if not items:
            return opening + closing
        if indent is None:
            return opening + ", ".join(items) + closing
        pad = " " * (indent * (_level + 1))
        return f"{opening}\n{pad}" + f",\n{pad}".join(items) + f"\n{' ' * (indent * _level)}{closing}"
    raise TypeError(f"not a toolkiln value: {value!r}")


def to_plain(value: Any) -> Any:
    """A value as plain Python data: whole numbers as int, others as float when the float means
    exactly the same number, else they stay Decimal (never a silent loss of digits)."""
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
    return value
