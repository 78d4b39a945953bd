"""The fast path, in one place: a program's run plan lowered to the closure that binds the
arguments and runs the body, and the handle (`Runner`) that callers keep to run it.

`CompiledProgram` builds the closures of a program's steps and says what its run needs (a
`RunPlan`: the frame, the binder, the body and how the usual call binds); `lower` picks the
executor for that plan; `fast_run` wraps it in the run's decimal scope. A `Runner` is what
`Tool.runner()` and `Registry.runner(name)` return: `runner.run(args) -> value`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol, cast

from toolkiln.ast.records import record, set_field
from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.interpret.decimal_scope import DecimalScope
from toolkiln.interpret.faults import fault, unexpected
from toolkiln.interpret.memory import HEAVY_OPERATIONS, give_back_memory
from toolkiln.interpret.plan import Fn, Frame, SingleScalar
from toolkiln.interpret.runtime import Runtime
from toolkiln.semantics.dates import Clock, real_clock
from toolkiln.semantics.limits import Limits
from toolkiln.semantics.numbers import from_float_fast

Args = Mapping[str, Any] | None
Binder = Callable[[Args], Frame]


class Executor(Protocol):
    def __call__(self, args: Args, tables: Mapping[str, Any], clock: Clock | None = None) -> Any: ...


class Runner:
    """A handle on one tool's fast path: `runner.run(args) -> value` runs it with its own
    tables and limits (a plain function: the cheapest call Python has). `name` is the tool's."""

    __slots__ = ("run", "name")

    def __init__(self, run: Callable[[Args], Any], name: str | None) -> None:
        self.run = run
        self.name = name

    def __repr__(self) -> str:
        return f"<Runner {self.name or '(logic)'}>"


@record(slots=True)
class RunPlan:
    """What a run of a compiled program needs: the frame's size, the binder, the body, the
    operation budget's static charge, and which executor fits."""

    limits: Limits
    frame_size: int
    bind: Binder
    body: Fn
    cost: int
    stateful: bool  # slot 0 holds the run's state (comprehensions, lookups, calls, the clock)
    timed: bool  # the run reads the deadline
    single: SingleScalar | None  # a lone scalar parameter, bound inline
    by_value: bool  # the body takes the lone parameter's value itself: `body(None, x)`

    def __init__(
        self,
        limits: Limits,
        frame_size: int,
        bind: Binder,
        body: Fn,
        cost: int,
        stateful: bool,
        timed: bool,
        single: SingleScalar | None,
        by_value: bool,
    ) -> None:
        set_field(self, "limits", limits)
        set_field(self, "frame_size", frame_size)
        set_field(self, "bind", bind)
        set_field(self, "body", body)
        set_field(self, "cost", cost)
        set_field(self, "stateful", stateful)
        set_field(self, "timed", timed)
        set_field(self, "single", single)
        set_field(self, "by_value", by_value)


def lower(plan: RunPlan) -> Executor:
    """`execute(args, tables, clock=None) -> value`, to be called in the decimal scope: binds
    the arguments into a new frame and runs the body (`clock`: what today() and now() read,
    the real clock if None). The operation budget is charged before: statically for the
    program's size (refused when over budget), at run time only for comprehensions."""
    if plan.cost > plan.limits.max_operations:
        return _refusing(plan)
    if not plan.stateful and plan.single is not None:
        return _single(plan, plan.single)
    if not plan.stateful:
        return _plain(plan)
    return _with_state(plan)


def _refusing(plan: RunPlan) -> Executor:
    message = f"the program has {plan.cost:,} operations; the budget is {plan.limits.max_operations:,}"

    def refuse(args: Args, tables: Mapping[str, Any], clock: Clock | None = None) -> Any:
        raise fault(codes.OPERATION_BUDGET, message)

    return refuse


def _single(plan: RunPlan, single: SingleScalar) -> Executor:
    """The usual call of a program with one scalar parameter, bound inline (a number's float
    converted directly); anything else goes through the binder, which says what is wrong."""
    body, bind, name, convert = plan.body, plan.bind, single.name, single.convert
    low, high = single.floats
    rest = [None] * (plan.frame_size - 2)  # the slots after the parameter's (slot 1)
    by_value = plan.by_value and not rest  # (the parameter is the program's only slot)
    on_value = cast(Callable[[None, Any], Any], body)

    def execute_single(args: Args, tables: Mapping[str, Any], clock: Clock | None = None) -> Any:
        try:  # (free in CPython 3.11 unless it catches)
            if type(args) is dict and len(args) == 1:
                try:
                    value = args[name]
                except KeyError:
                    pass  # another name: the binder says which, below
                else:
                    value = from_float_fast(value) if type(value) is float and low < value < high else convert(value)
                    if by_value:
                        return on_value(None, value)
                    return body([None, value, *rest]) if rest else body([None, value])
            return body(bind(args))
        except RunError:
            raise
        except Exception as error:  # never a plain Python exception out of a run
            raise unexpected(error) from error

    return execute_single


def _plain(plan: RunPlan) -> Executor:
    body, bind = plan.body, plan.bind

    def execute(args: Args, tables: Mapping[str, Any], clock: Clock | None = None) -> Any:
        try:
            return body(bind(args))
        except RunError:
            raise
        except Exception as error:
            raise unexpected(error) from error

    return execute


def _with_state(plan: RunPlan) -> Executor:
    """A run with its state in slot 0: the tables, the operation count, the deadline (read
    before binding: binding counts) and the clock; a heavy run gives its memory back after."""
    body, bind, limits, cost, timed = plan.body, plan.bind, plan.limits, plan.cost, plan.timed

    def execute_with_state(args: Args, tables: Mapping[str, Any], clock: Clock | None = None) -> Any:
        deadline = time.monotonic() + limits.max_seconds if timed else math.inf
        runtime = Runtime(limits, tables, cost, deadline, clock or real_clock)
        frame = None
        try:
            frame = bind(args)
            frame[0] = runtime
            value = body(frame)
        except RunError as error:
            if runtime.operations > HEAVY_OPERATIONS:
                frame = None
                give_back_memory(error)
            raise
        except Exception as error:
            raise unexpected(error) from error
        if runtime.operations > HEAVY_OPERATIONS:  # what it built is free once the frame is
            frame = None
            give_back_memory()
        return value

    return execute_with_state


def in_scope(scope: DecimalScope, execute: Executor) -> Executor:
    """`run(args, tables, clock=None) -> value`: `execute` in the decimal scope, as one
    closure over what it needs (no attribute lookups)."""
    enter, recover = scope.enter, scope.recover

    def run(args: Args, tables: Mapping[str, Any], clock: Clock | None = None) -> Any:
        try:
            return enter(execute, args, tables, clock)
        except RuntimeError as error:
            return recover(error, execute, args, tables, clock)

    return run


def fast_run(scope: DecimalScope, execute: Executor, tables: Mapping[str, Any]) -> Callable[[Args], Any]:
    """`run(args) -> value` with `tables` and the real clock: a Runner's run."""
    enter, recover = scope.enter, scope.recover

    def run(args: Args) -> Any:
        try:
            return enter(execute, args, tables)
        except RuntimeError as error:
            return recover(error, execute, args, tables)

    return run
