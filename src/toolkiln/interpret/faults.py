"""Run-time errors with their codes: the interpreter's vocabulary for what went wrong."""

from __future__ import annotations

from decimal import DivisionByZero, Overflow
from typing import Any

from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.semantics.values import type_name
from toolkiln.syntax.spans import Span


def fault(code: codes.Code, message: str, span: Span | None = None, hint: str | None = None) -> RunError:
    return RunError(code.code, message, span, hint)


def arithmetic_fault(error: ArithmeticError, span: Span, max_digits: int) -> RunError:
    if isinstance(error, Overflow):
        return fault(codes.NUMBER_TOO_LARGE, f"result has more than {max_digits} digits", span)
    if isinstance(error, DivisionByZero):
        return fault(codes.DIVISION_BY_ZERO, "division by zero", span)
    return fault(codes.INVALID_OPERATION, "invalid numeric operation", span)


def type_fault(what: str, value: Any, span: Span) -> RunError:
    return fault(codes.RUNTIME_TYPE, f"{what}, got {type_name(value)}", span,
                 hint="declare the parameter's type so the checker catches this before run time")
