"""What `try ... catch` catches, and the value its handler reads (docs/decisions.md#try).

A failure is caught when it is a coded run-time error of the program's own making: a
division by zero, a missing field, a JsonLogic `throw`. Budgets and limits (operations,
time, sizes) are never caught, nor toolkiln's own internal failures: a `try` cannot extend a
run past its budget or hide a bug.
"""

from __future__ import annotations

from typing import Any

from toolkiln.ast.types import ANY, STRING, Type
from toolkiln.diagnostics import codes
from toolkiln.errors import RunError

# The error a handler reads: {"code": "E0501", "message": "...", "value": <what was thrown>}.
CAUGHT_ERROR = Type(name="object", fields=(("code", STRING), ("message", STRING), ("value", ANY)))

NEVER_CAUGHT = frozenset(
    code.code
    for code in (
        codes.OPERATION_BUDGET,
        codes.STRING_TOO_LONG,
        codes.LIST_TOO_LONG,
        codes.NUMBER_TOO_LARGE,
        codes.TIME_LIMIT,
        codes.INTERNAL_FAILURE,
    )
)


def caught(error: RunError) -> dict[str, Any] | None:
    """The record a handler binds for `error`, or None when `error` must go on stopping the run."""
    if error.code in NEVER_CAUGHT:
        return None
    return {"code": error.code, "message": error.message, "value": error.value}
