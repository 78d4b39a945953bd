"""Numbers are exact decimals: 28 significant digits, commercial rounding where asked."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import (
    ROUND_HALF_EVEN,
    Context,
    Decimal,
    DivisionByZero,
    InvalidOperation,
    Overflow,
)

PRECISION = 28
MIN_EXPONENT = -999_999


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


@dataclass(frozen=True)
class FormatSpec:
    """`[,][.N](f|%)`, our own small subset of Python's format spec (see the docs)."""

    grouping: bool
    decimals: int | None
    percent: bool


_SPEC = re.compile(r"(?P<group>,)?(?:\.(?P<decimals>\d{1,2})(?P<type>[f%])|(?P<bare>[f%])?)")


def parse_spec(spec: str) -> FormatSpec | None:
    match = _SPEC.fullmatch(spec)
    if match is None or not spec:
        return None
    decimals = match.group("decimals")
    kind = match.group("type") or match.group("bare")
    return FormatSpec(
        grouping=bool(match.group("group")), decimals=None if decimals is None else int(decimals), percent=kind == "%"
    )


# Formatting runs inside a run's context (whose Emax is the digit limit): these make it
# independent of that, and of whichever context the caller has.
_PERCENT_CONTEXT = Context(prec=PRECISION, Emax=10**6, Emin=-(10**6))
_ROUNDING_CONTEXT = Context(prec=PRECISION + 100, Emax=10**6, Emin=-(10**6))


def format_number(value: Decimal, spec: FormatSpec) -> str:
    if spec.percent:
        value = value.scaleb(2, context=_PERCENT_CONTEXT)
    if spec.decimals is not None:
        value = value.quantize(
            Decimal(1).scaleb(-spec.decimals, context=_ROUNDING_CONTEXT),
            rounding="ROUND_HALF_UP",
            context=_ROUNDING_CONTEXT,
        )
        if not value:
            value = value.copy_abs()  # -0.001 shows as 0.00, never -0.00
        text = format(value, ",f" if spec.grouping else "f")
    else:
        text = render_number(value)
        if spec.grouping:
            whole, dot, fraction = text.partition(".")
            text = f"{int(whole):,}" + dot + fraction if whole != "-0" else text
    return text + ("%" if spec.percent else "")
