"""JavaScript's rules for JsonLogic values: truthiness, numeric coercion, loose and strict
equality, relational comparison and `String(x)`.

Imported JsonLogic rules call these through the `js_*` builtins (js_builtins.py), so a reader
of the tool sees where JavaScript's rules apply and the typed core stays strict. Where
JavaScript would go on with NaN (text that is no numeral, a list or an object in arithmetic),
JsonLogic engines stop with the error "NaN": so does this (E1003).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.semantics.numbers import from_float_fast, render_number
from toolkiln.semantics.values import too_long, type_name

# JavaScript's StringNumericLiteral, decimal form (Number(" 1e2 ") = 100, Number(".5") = 0.5).
_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,6})?")
_RADIX = re.compile(r"0([xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)")
_RADIX_BASE = {"x": 16, "o": 8, "b": 2}
# JavaScript's whitespace and line terminators, trimmed by Number(text).
_JS_SPACE = (
    " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
MAX_NUMERAL_DIGITS = 400
# A number is a Decimal, or a float in a program that computes in floats (the float mode,
# interpret/float_domain.py); a float met by a Decimal compares as JavaScript compares: in floats.
NUMBER_TYPES = (Decimal, float)


def nan(message: str) -> RunError:
    return RunError(codes.JSONLOGIC_NAN.code, message)


def invalid_arguments(message: str) -> RunError:
    return RunError(codes.JSONLOGIC_INVALID_ARGUMENTS.code, message)


def truthy(value: Any) -> bool:
    """JsonLogic's truthiness: JavaScript's, except that an empty list or object is false."""
    if value is None:
        return False
    kind = type(value)
    if kind is bool:
        return bool(value)
    if kind is Decimal:
        return not value.is_zero()
    if kind is float:
        return bool(value != 0.0)
    if kind is str or kind is list or kind is dict:
        return len(value) > 0  # JsonLogic engines take an empty object as false too
    return True


def to_number(value: Any) -> Decimal:
    """JavaScript's Number(value) where it is a finite number; E1003 where it is NaN. (A
    float, in the float mode, is a number as it is.)"""
    kind = type(value)
    if kind is Decimal or kind is float:
        return value  # type: ignore[no-any-return]
    if value is None:
        return Decimal(0)
    if kind is bool:
        return Decimal(1 if value else 0)
    if kind is str:
        return _parse_numeral(value)
    raise nan(f"{type_name(value)} is not a number (JavaScript would compute NaN)")


def _is_numeral(text: str) -> bool:
    try:
        _parse_numeral(text)
    except RunError:
        return False
    return True


def _parse_numeral(text: str) -> Decimal:
    stripped = text.strip(_JS_SPACE)
    if not stripped:
        return Decimal(0)
    if len(stripped) <= MAX_NUMERAL_DIGITS:
        if _DECIMAL.fullmatch(stripped):
            return Decimal(stripped)
        radix = _RADIX.fullmatch(stripped)
        if radix:
            digits = radix.group(1)
            return Decimal(int(digits[1:], _RADIX_BASE[digits[0].lower()]))
    raise nan(f"{text[:40]!r} is not a numeral (JavaScript would compute NaN)")


def to_js_string(value: Any, limit: int, separator: str = ",") -> str:
    """JavaScript's String(value) (null -> "null", a list's items joined by commas, null
    items as ""), or E0504 as soon as it would pass `limit` characters: a list of long numbers
    is not rendered whole first. `separator=""` joins a list's items as `cat` does."""
    out: list[str] = []
    used = _render(value, out, limit, separator, 0)
    if used > limit:
        raise too_long(limit)
    return "".join(out)


def _render(value: Any, out: list[str], limit: int, separator: str, used: int) -> int:
    kind = type(value)
    if kind is list:
        for index, item in enumerate(value):
            if index and separator:
                out.append(separator)
                used += len(separator)
            if item is not None or not separator:
                used = _render(item, out, limit, ",", used)
            if used > limit:
                raise too_long(limit)
        return used
    text = scalar_text(value)
    out.append(text)
    return used + len(text)


def scalar_text(value: Any) -> str:
    """String(value) of anything but a list."""
    kind = type(value)
    if kind is str:
        return value  # type: ignore[no-any-return]
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is Decimal:
        return render_number(value)
    if kind is float:  # as the exact mode renders its decimal (called inside a run)
        return render_number(from_float_fast(value))
    if kind is dict:
        return "[object Object]"
    return str(value)


def _comparable(value: Any, what: str) -> None:
    if type(value) is list or type(value) is dict:
        raise nan(f"{what} of {type_name(value)} (JavaScript would compare NaN)")


def loose_equals(a: Any, b: Any) -> bool:
    """JsonLogic's `==`: JavaScript's loose equality; null equals only null (and 0, as the
    engines answer), and a list or an object is compared with nothing (E1003)."""
    _comparable(a, "== ")
    _comparable(b, "== ")
    if a is None or b is None:
        other = b if a is None else a
        return other is None or (type(other) in NUMBER_TYPES and not other)
    if type(a) is type(b):
        return bool(a == b)
    return _order(to_number(a), to_number(b)) == 0


def strict_equals(a: Any, b: Any) -> bool:
    """JsonLogic's `===`: the same type and value (two lists or objects are never the same)."""
    if type(a) is not type(b):
        return type(a) in NUMBER_TYPES and type(b) in NUMBER_TYPES and _order(a, b) == 0
    if type(a) is list or type(a) is dict:
        return False
    return bool(a == b)


UNORDERED = 2  # neither below, equal nor above: every order comparison of it is false


def compare(a: Any, b: Any) -> int:
    """JavaScript's relational comparison as -1, 0 or 1 (UNORDERED when every comparison is
    false): two strings by their characters, any other pair as numbers (E1003 where one is
    not a number, except null against a word)."""
    _comparable(a, "comparison")
    _comparable(b, "comparison")
    if type(a) is str and type(b) is str:
        return (a > b) - (a < b)
    if (a is None and type(b) is str) or (b is None and type(a) is str):
        text = str(b if a is None else a)
        if not _is_numeral(text):
            return UNORDERED  # null and a word: JavaScript's comparison is false either way
    return _order(to_number(a), to_number(b))


def _order(x: Decimal | float, y: Decimal | float) -> int:
    """-1, 0 or 1 for two numbers: in floats when one is a float, as JavaScript compares."""
    if type(x) is not type(y):
        x, y = float(x), float(y)
    return (x > y) - (x < y)
