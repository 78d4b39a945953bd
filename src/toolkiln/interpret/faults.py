"""Run-time errors with their codes: the interpreter's vocabulary for what went wrong."""

from __future__ import annotations

from typing import Any

from toolkiln.ast.spans import Span
from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.semantics.operators import signal_fault
from toolkiln.semantics.values import type_name


def fault(code: codes.Code, message: str, span: Span | None = None, hint: str | None = None) -> RunError:
    return RunError(code.code, message, span, hint)


def arithmetic_fault(error: ArithmeticError, span: Span, max_digits: int) -> RunError:
    return signal_fault(error, max_digits).at(span)


def type_fault(what: str, value: Any, span: Span) -> RunError:
    return fault(
        codes.RUNTIME_TYPE,
        f"{what}, got {type_name(value)}",
        span,
        hint="declare the parameter's type so the checker catches this before run time",
    )


def unexpected(error: Exception) -> RunError:
    """A Python exception that escaped the closures, as the run's error (E0514): a run never
    ends in a plain Python exception."""
    what = "out of memory" if isinstance(error, MemoryError) else f"{type(error).__name__}: {error}"
    return fault(codes.INTERNAL_FAILURE, f"the run failed unexpectedly ({what:.200})")
