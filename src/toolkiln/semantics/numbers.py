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
    return Context(prec=PRECISION, rounding=ROUND_HALF_EVEN, Emax=max_digits - 1,
                   Emin=MIN_EXPONENT, traps=[InvalidOperation, DivisionByZero, Overflow])


def from_float(value: float) -> Decimal:
    """A float means what it prints as: 0.1 is 0.1, not 0.1000000000000000055511151231257827."""
    return Decimal(repr(value))


_EXACT_INT = 2.0 ** 53            # every whole float up to here prints as its exact value


def from_float_fast(value: float) -> Decimal:
    """`from_float(value)` in value, and in digits and exponent too except for whole floats
    below 2**53, which take the faster exact way: 12.0 -> Decimal(12), as the int 12 would.
    (Scaling other short floats by 10 or 100 in Python, then checking that the scaled value
    round-trips, was measured: no faster than the repr.)"""
    if value.is_integer() and -_EXACT_INT <= value <= _EXACT_INT:
        return Decimal(int(value))
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
    return FormatSpec(grouping=bool(match.group("group")),
                      decimals=None if decimals is None else int(decimals),
                      percent=kind == "%")


# Formatting runs inside a run's context (whose Emax is the digit limit): these make it
# independent of that, and of whichever context the caller has.
_PERCENT_CONTEXT = Context(prec=PRECISION, Emax=10**6, Emin=-10**6)
_ROUNDING_CONTEXT = Context(prec=PRECISION + 100, Emax=10**6, Emin=-10**6)


def format_number(value: Decimal, spec: FormatSpec) -> str:
    if spec.percent:
        value = value.scaleb(2, context=_PERCENT_CONTEXT)
    if spec.decimals is not None:
        value = value.quantize(Decimal(1).scaleb(-spec.decimals, context=_ROUNDING_CONTEXT),
                               rounding="ROUND_HALF_UP", context=_ROUNDING_CONTEXT)
        if not value:
            value = value.copy_abs()          # -0.001 shows as 0.00, never -0.00
        text = format(value, ",f" if spec.grouping else "f")
    else:
        text = render_number(value)
        if spec.grouping:
            whole, dot, fraction = text.partition(".")
            text = f"{int(whole):,}" + dot + fraction if whole != "-0" else text
    return text + ("%" if spec.percent else "")
