"""The operators on run-time values, once, with every check: what `a op b` means.

The constant folder computes with these; the interpreter uses them for operands whose types
the checker could not prove, and specialised equivalents (tested against these by the
optimizer's property test) where it could.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Context, Decimal, DivisionByZero, Overflow
from typing import Any

from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.semantics.builtins import contains
from toolkiln.semantics.limits import Limits
from toolkiln.semantics.values import equal, type_name

MAX_EXPONENT = 1000
_ORDERED = frozenset({Decimal, str, date, datetime})
_OPERATIONS = {
    "+": Context.add,
    "-": Context.subtract,
    "*": Context.multiply,
    "/": Context.divide,
    "%": Context.remainder,
    "**": Context.power,
}


def _fault(code: codes.Code, message: str, hint: str | None = None) -> RunError:
    return RunError(code.code, message, hint=hint)


def signal_fault(error: ArithmeticError, max_digits: int) -> RunError:
    """A decimal signal (trapped by the context) as a RunError with its code."""
    if isinstance(error, Overflow):
        return _fault(codes.NUMBER_TOO_LARGE, f"result has more than {max_digits} digits")
    if isinstance(error, DivisionByZero):
        return _fault(codes.DIVISION_BY_ZERO, "division by zero")
    return _fault(codes.INVALID_OPERATION, "invalid numeric operation")


def _numbers(op: str, a: Any, b: Any) -> None:
    if type(a) is not Decimal or type(b) is not Decimal:
        raise _fault(codes.RUNTIME_TYPE, f"`{op}` needs numbers, got {type_name(a)} and {type_name(b)}")


def arithmetic(op: str, a: Any, b: Any, limits: Limits) -> Any:
    if op == "+" and type(a) is str and type(b) is str:
        if len(a) + len(b) > limits.max_string_length:
            raise _fault(codes.STRING_TOO_LONG, f"string longer than {limits.max_string_length:,} characters")
        return a + b
    _numbers(op, a, b)
    ctx = limits.context
    if op in ("/", "%") and not b:
        raise _fault(codes.DIVISION_BY_ZERO, "division by zero", hint="guard it: `x / y if y != 0 else 0`")
    if op == "**":
        if b.copy_abs() > MAX_EXPONENT:  # (abs() rounds in the context: it may overflow)
            raise _fault(codes.INVALID_OPERATION, f"exponent {b} is larger than the cap of {MAX_EXPONENT}")
        if not a and b < 0:
            raise _fault(codes.DIVISION_BY_ZERO, "zero raised to a negative power")
    try:
        return _OPERATIONS[op](ctx, a, b)
    except ArithmeticError as error:
        raise signal_fault(error, limits.max_number_digits) from None


def compare(op: str, a: Any, b: Any, left: list[int] | None = None) -> bool:
    """`a op b`; `left`: how many items equality may compare (see `equal`)."""
    if op == "==":
        return equal(a, b, left)
    if op == "!=":
        return not equal(a, b, left)
    kind = type(a)
    if type(b) is not kind or kind not in _ORDERED:  # two numbers, strings, dates or datetimes
        raise _fault(codes.RUNTIME_TYPE, f"cannot order {type_name(a)} and {type_name(b)}")
    if op == "<":
        ordered: bool = a < b
    elif op == "<=":
        ordered = a <= b
    elif op == ">":
        ordered = a > b
    else:
        ordered = a >= b
    return ordered


def member(op: str, item: Any, container: Any, left: list[int] | None = None) -> bool:
    found = contains(container, item, left)
    return found if op == "in" else not found


def unary(op: str, value: Any, limits: Limits) -> Any:
    if op == "not":
        if type(value) is not bool:
            raise _fault(codes.RUNTIME_TYPE, f"`not` needs a boolean, got {type_name(value)}")
        return not value
    if type(value) is not Decimal:
        raise _fault(codes.RUNTIME_TYPE, f"`{op}` needs a number, got {type_name(value)}")
    try:
        # Unary plus rounds to the precision, as in Python's decimal module.
        return limits.context.minus(value) if op == "-" else limits.context.plus(value)
    except ArithmeticError as error:
        raise signal_fault(error, limits.max_number_digits) from None
