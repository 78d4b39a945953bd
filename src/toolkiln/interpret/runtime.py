"""The state of one run, kept in slot 0 of the frame, and what charges it.

Work whose cost grows with the data (a comprehension's items, a builtin over a long list or
text, equality of lists, a fractional power) is charged to the operation budget as it runs,
and each charge looks at the clock: so that a run stops within about one charge of its budget
and of its deadline, however its work is spread. Scalar arithmetic is never charged here: the
program's static size is, once, before it runs.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from toolkiln.ast.spans import Span
from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.semantics.dates import Clock, read_clock
from toolkiln.semantics.limits import Limits

CHECK_EVERY = 256
"""Operations between two looks at the clock inside a comprehension."""


class Runtime:
    __slots__ = ("limits", "tables", "operations", "deadline", "clock", "instant")

    def __init__(
        self, limits: Limits, tables: Mapping[str, Any], operations: int, deadline: float, clock: Clock
    ) -> None:
        self.limits = limits
        self.tables = tables
        self.operations = operations
        self.deadline = deadline
        self.clock = clock
        self.instant: datetime | None = None

    def now(self) -> datetime:
        """What the run's clock says, read once a run: its today() and now() calls agree, and
        the tools it calls read the same time."""
        instant = self.instant
        if instant is None:
            instant = self.instant = read_clock(self.clock)
        return instant


def over_budget(limits: Limits, span: Span | None) -> RunError:
    return RunError(
        codes.OPERATION_BUDGET.code,
        f"more than {limits.max_operations:,} operations",
        span,
        hint="raise Limits(max_operations=...) if this is expected",
    )


def out_of_time(limits: Limits, span: Span | None) -> RunError:
    return RunError(codes.TIME_LIMIT.code, f"the run took more than {limits.max_seconds} s", span)


def charge(runtime: Runtime, work: int, span: Span | None) -> None:
    """Add `work` operations to the run's count; refuse over the budget or past the deadline."""
    runtime.operations += work
    if runtime.operations > runtime.limits.max_operations:
        raise over_budget(runtime.limits, span)
    if time.monotonic() > runtime.deadline:
        raise out_of_time(runtime.limits, span)


def count(runtime: Runtime, span: Span | None) -> None:
    """One operation of constant work (a builtin called on scalars): counted against the
    budget; the clock is not read, as for an operator (the program's size bounds them)."""
    runtime.operations += 1
    if runtime.operations > runtime.limits.max_operations:
        raise over_budget(runtime.limits, span)


def check_clock(runtime: Runtime, span: Span | None) -> None:
    if time.monotonic() > runtime.deadline:
        raise out_of_time(runtime.limits, span)
