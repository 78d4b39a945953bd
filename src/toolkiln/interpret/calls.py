"""Closures for calls of builtins, by what the call needs at run time: the run's clock, a
charge for work that grows with the arguments, a charge for what it builds, or nothing but
the call (one argument, constants after the first, or any arguments).

A builtin's failure is located at the call: a RunError it raises takes the call's span, and
a decimal signal becomes the located RunError of its kind.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from toolkiln.ast.spans import Span
from toolkiln.errors import RunError
from toolkiln.interpret.faults import arithmetic_fault
from toolkiln.interpret.plan import Fn, Frame
from toolkiln.interpret.runtime import charge, count
from toolkiln.semantics.builtins import Builtin
from toolkiln.semantics.limits import Limits

_ZERO = Decimal(0)


def clocked(function: Builtin, args: tuple[Fn, ...], limits: Limits, span: Span) -> Fn:
    """today(), now(): the instant the run's clock says comes first."""
    impl, work = function.impl, function.work

    def call_clocked(f: Frame) -> Any:
        values = [a(f) for a in args]
        if work is not None:
            charge(f[0], 1 + work(*values), span)
        try:
            return impl(limits, f[0].now(), *values)
        except RunError as error:
            raise error.at(span) from None

    return call_clocked


def charged(function: Builtin, args: tuple[Fn, ...], limits: Limits, span: Span) -> Fn:
    """A cost that grows with the arguments: charged before the call. A call whose arguments
    are scalars costs what an operator costs: counted, the clock not read (runtime.count)."""
    impl, digits = function.impl, limits.max_number_digits
    work = function.work
    assert work is not None  # (the caller chose this closure for it)
    if len(args) == 2:
        return _charged_pair(impl, work, args, limits, span)

    def call_charged(f: Frame) -> Any:
        values = [a(f) for a in args]
        extra = work(*values)
        if extra:
            charge(f[0], 1 + extra, span)
        else:
            count(f[0], span)
        try:
            return impl(limits, *values)
        except RunError as error:
            raise error.at(span) from None
        except ArithmeticError as error:
            raise arithmetic_fault(error, span, digits) from None

    return call_charged


def _charged_pair(
    impl: Callable[..., Any], work: Callable[..., int], args: tuple[Fn, ...], limits: Limits, span: Span
) -> Fn:
    """`charged` of two arguments, without the list of them (js_compare, js_equals, js_in...)."""
    first, second, digits = args[0], args[1], limits.max_number_digits

    def call_charged_pair(f: Frame) -> Any:
        a, b = first(f), second(f)
        extra = work(a, b)
        if extra:
            charge(f[0], 1 + extra, span)
        else:
            count(f[0], span)
        try:
            return impl(limits, a, b)
        except RunError as error:
            raise error.at(span) from None
        except ArithmeticError as error:
            raise arithmetic_fault(error, span, digits) from None

    return call_charged_pair


def building(function: Builtin, args: tuple[Fn, ...], limits: Limits, span: Span) -> Fn:
    """A builtin that builds a text or a list: its work and what it builds (`builds`) charged
    before the call; what it built, when only the result says (`built`), charged before the
    run goes on. A result that is an argument itself was not built."""
    impl, digits = function.impl, limits.max_number_digits
    work, builds, built = function.work or _no_work, function.builds or _no_work, function.built

    def call_building(f: Frame) -> Any:
        values = [a(f) for a in args]
        runtime = f[0]
        charge(runtime, 1 + work(*values) + builds(limits, *values), span)
        try:
            result = impl(limits, *values)
        except RunError as error:
            raise error.at(span) from None
        except ArithmeticError as error:
            raise arithmetic_fault(error, span, digits) from None
        if built is not None and all(result is not value for value in values):
            charge(runtime, built(result), span)
        return result

    return call_building


def plain(function: Builtin, args: tuple[Fn, ...], constants: tuple[Any, ...] | None, limits: Limits, span: Span) -> Fn:
    """A call that charges nothing: of one argument, of one argument and constants after it
    (`round(x, 2)`, `clamp(x, 0, 100)`: no list made per call), or of any arguments."""
    impl, digits = function.impl, limits.max_number_digits
    if len(args) == 1:
        only = args[0]

        def call(f: Frame) -> Any:
            try:
                return impl(limits, only(f))
            except RunError as error:
                raise error.at(span) from None
            except ArithmeticError as error:
                raise arithmetic_fault(error, span, digits) from None

        return call
    if constants is not None:
        return _with_constants(impl, args[0], constants, limits, span)

    def call_many(f: Frame) -> Any:
        try:
            return impl(limits, *[a(f) for a in args])
        except RunError as error:
            raise error.at(span) from None
        except ArithmeticError as error:
            raise arithmetic_fault(error, span, digits) from None

    return call_many


def _with_constants(impl: Callable[..., Any], first: Fn, rest: tuple[Any, ...], limits: Limits, span: Span) -> Fn:
    digits = limits.max_number_digits

    def call_with_constants(f: Frame) -> Any:
        try:
            return impl(limits, first(f), *rest)
        except RunError as error:
            raise error.at(span) from None
        except ArithmeticError as error:
            raise arithmetic_fault(error, span, digits) from None

    return call_with_constants


def summed(build: Fn, numbers: bool, impl: Callable[..., Any], limits: Limits, span: Span) -> Fn:
    """`sum(x for x in xs)`: the list built as always, charged as the builtin charges it, then
    added up by Python's `sum` from Decimal(0), the builtin's own additions in the same order
    (the run's context is current). A list that holds anything but numbers goes to the
    builtin, for its error; `numbers`: the checker proved every element a number."""
    digits = limits.max_number_digits

    def run(f: Frame) -> Any:
        values = build(f)
        charge(f[0], 1 + len(values), span)  # the builtin's work: its list's length
        try:
            if numbers or all(type(value) is Decimal for value in values):
                return sum(values, _ZERO)
            return impl(limits, values)
        except RunError as error:
            raise error.at(span) from None
        except ArithmeticError as error:
            raise arithmetic_fault(error, span, digits) from None

    return run


def _no_work(*values: Any) -> int:
    return 0
