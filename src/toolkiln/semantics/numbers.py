"""Numbers are exact decimals: 28 significant digits, commercial rounding where asked."""

from __future__ import annotations

import re
from decimal import (
    ROUND_HALF_EVEN,
    Context,
    Decimal,
    DivisionByZero,
    Inexact,
    InvalidOperation,
    Overflow,
)

from toolkiln.ast.records import record, set_field

PRECISION = 28
MIN_EXPONENT = -999_999
MAX_NUMBER_DIGITS = 1_000_000  # the largest `Limits.max_number_digits`
LOWEST_DIGIT = MIN_EXPONENT - PRECISION + 1
"""The exponent of the smallest digit a result can have (1E-1000026: decimal's Etiny)."""


def make_context(max_digits: int) -> Context:
    """The arithmetic context: a number may have at most `max_digits` integer digits."""
    # Only large numbers are limited; tiny ones keep their value down to the decimal module's
    # own floor (1E-999999), below which they round to zero.
    return Context(
        prec=PRECISION,
        rounding=ROUND_HALF_EVEN,
        Emax=max_digits - 1,
        Emin=MIN_EXPONENT,
        traps=[InvalidOperation, DivisionByZero, Overflow],
    )


EXTRA_DIGITS = 1_000
"""Significant digits a number from outside may have beyond its integer digits' limit."""


def make_bounds(max_digits: int) -> Context:
    """What a number from outside may be, as a context whose `create_decimal` refuses the rest:
    at most `max_digits` integer digits (Overflow), at most `max_digits + EXTRA_DIGITS`
    significant digits and no digit below the arithmetic's own floor, 1E-1000026 (both
    Inexact). A number inside the bounds comes through unchanged (trailing zeros past the
    precision aside). Every operation on such a number costs at most that many digits' work."""
    digits = max_digits + EXTRA_DIGITS
    return Context(
        prec=digits,
        rounding=ROUND_HALF_EVEN,
        Emax=max_digits - 1,
        Emin=LOWEST_DIGIT + digits - 1,  # so that its lowest digit (Etiny) is the run's
        traps=[InvalidOperation, Overflow, Inexact],
    )


def text_length(value: Decimal) -> int:
    """`len(render_number(value))`, without building the text (O(digits), not O(exponent))."""
    if not value:
        return 1
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)  # a finite number
    count = len(digits)
    if exponent < 0:
        zeros = count - len(bytes(digits).rstrip(b"\0"))  # trailing zeros render_number drops
        drop = min(zeros, -exponent)
        count, exponent = count - drop, exponent + drop
    whole = count + exponent
    return sign + (whole if whole > 0 else 1) + (1 - exponent if exponent < 0 else 0)


def from_float(value: float) -> Decimal:
    """A float means what it prints as: 0.1 is 0.1, not 0.1000000000000000055511151231257827."""
    return Decimal(repr(value))


_EXACT_INT = 2.0**53  # every whole float up to here prints as its exact value
_SCALED_BOUND = 1e11  # |x| * 10**4 below 10**15: the scaled value has <= 15 digits


def _decimal_places() -> bytes:
    """For r = n % 10**4 of a scaled value n = x * 10**4: how many decimal places x has
    (4 minus r's trailing zeros). A table, as three `%` tests cost more than the lookup."""
    places = bytearray([4]) * 10_000
    for step, count in ((10, 3), (100, 2), (1_000, 1)):
        places[::step] = bytes([count]) * (10_000 // step)
    return bytes(places)


_PLACES = _decimal_places()
# By decimal places: the unit (1E-places) and what divides n to drop the trailing zeros.
_SCALES: tuple[tuple[Decimal, int], ...] = tuple((Decimal(f"1E-{places}"), 10 ** (4 - places)) for places in range(5))


def from_float_fast(value: float) -> Decimal:
    """`from_float(value)` for a finite float, in value, digits and exponent (except whole
    floats below 2**53, which come as Decimal(12) for 12.0, as the int 12 would), without
    printing the float in most cases: printing its shortest repr costs more than a whole run.

    A float with at most four decimal places is found by scaling: n = round(x * 10**4) is
    exact enough, and n / 10**4 == x says that the decimal n * 10**-4 converts back to x.
    Two different decimals of at most 15 significant digits never convert to the same float
    (DBL_DIG), and the shortest repr has no more digits than n, so it is that decimal; trailing
    zeros are dropped as repr drops them. Anything else takes the repr.

    Call it inside a run's decimal scope: the product below is exact only in a context of
    at least 15 digits of precision (the run's has 28) and no trap for Inexact or Rounded."""
    if value.is_integer():
        if -_EXACT_INT <= value <= _EXACT_INT:
            return Decimal(int(value))
    elif -_SCALED_BOUND < value < _SCALED_BOUND:
        scaled = round(value * 1e4)
        if scaled / 1e4 == value:
            unit, shift = _SCALES[_PLACES[scaled % 10_000]]
            try:
                return unit * (scaled // shift)
            except Overflow:  # over a small digit limit: the repr's Decimal,
                pass  # which the first operation on it refuses
    return Decimal(repr(value))


def render_number(value: Decimal) -> str:
    """Plain notation without trailing zeros or exponent: 31.500 -> 31.5, 1E+3 -> 1000."""
    if not value:
        return "0"
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


@record()
class FormatSpec:
    """`[,][.N](f|%)`, our own small subset of Python's format spec (see the docs)."""

    grouping: bool
    decimals: int | None
    percent: bool

    def __init__(self, grouping: bool, decimals: int | None, percent: bool) -> None:
        set_field(self, "grouping", grouping)
        set_field(self, "decimals", decimals)
        set_field(self, "percent", percent)


# (text: `re` compiles it on a first format spec and keeps it; see semantics/dates.py)
_SPEC = r"(?P<group>,)?(?:\.(?P<decimals>\d{1,2})(?P<type>[f%])|(?P<bare>[f%])?)"


def parse_spec(spec: str) -> FormatSpec | None:
    match = re.fullmatch(_SPEC, spec)
    if match is None or not spec:
        return None
    decimals = match.group("decimals")
    kind = match.group("type") or match.group("bare")
    return FormatSpec(
        grouping=bool(match.group("group")), decimals=None if decimals is None else int(decimals), percent=kind == "%"
    )


# Formatting runs inside a run's context (whose Emax is the digit limit): this one makes it
# independent of that, and of whichever context the caller has. It is exact for every number
# a run can hold (at most MAX_NUMBER_DIGITS integer digits and as many more significant ones,
# exponents from the bounds' floor): scaling by 100 and rounding to 99 places never round
# or overflow in it, so neither raises.
_EXACT = 3 * MAX_NUMBER_DIGITS
_FORMAT_CONTEXT = Context(prec=_EXACT, Emax=_EXACT, Emin=-_EXACT, traps=[])
_QUANTA = tuple(Decimal(1).scaleb(-places) for places in range(100))


def format_number(value: Decimal, spec: FormatSpec) -> str:
    """`value` by `spec`. Its length is at most `format_length(value, spec)`."""
    if spec.percent:
        value = value.scaleb(2, context=_FORMAT_CONTEXT)
    if spec.decimals is not None:
        value = value.quantize(_QUANTA[spec.decimals], rounding="ROUND_HALF_UP", context=_FORMAT_CONTEXT)
        if not value:
            value = value.copy_abs()  # -0.001 shows as 0.00, never -0.00
        text = format(value, ",f" if spec.grouping else "f")
    else:
        text = render_number(value)
        if spec.grouping:
            whole, dot, fraction = text.partition(".")
            # (grouped by Decimal's format: int() of a long text is refused past 4,300 digits)
            text = format(Decimal(whole), ",f") + dot + fraction if whole != "-0" else text
    return text + ("%" if spec.percent else "")


def format_length(value: Decimal, spec: FormatSpec) -> int:
    """A bound of `len(format_number(value, spec))`, computed without formatting."""
    if not value:
        whole, fraction = 1, 0
    else:
        whole = max(value.adjusted() + 1 + (2 if spec.percent else 0), 1)
        fraction = text_length(value) + 2 if spec.decimals is None else spec.decimals
    grouped = whole + whole // 3 if spec.grouping else whole
    return 1 + grouped + 1 + fraction + 1
