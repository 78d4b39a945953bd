"""Closure shapes for binary operations, chosen by what the operands are.

Reading a variable is `f[slot]` and a constant is a captured value: specialising on those
saves one or two Python calls per operation, which is most of an operation's cost. The
shapes that can raise (arithmetic) turn decimal signals into located RunErrors in place,
with no extra wrapper call (a `try` costs nothing in CPython 3.11 until it catches).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolkiln.interpret.faults import arithmetic_fault
from toolkiln.syntax.spans import Span

Fn = Callable[[list], Any]
Operand = tuple[str, Any]     # ("slot", index) | ("const", value) | ("fn", closure)


def as_fn(operand: Operand) -> Fn:
    kind, value = operand
    if kind == "slot":
        return lambda f: f[value]
    if kind == "const":
        return lambda f: value
    return value


def pure_binary(op: Callable[[Any, Any], Any], left: Operand, right: Operand) -> Fn:
    """`op(left, right)` for operations that cannot fail (comparisons of checked types)."""
    (lk, lv), (rk, rv) = left, right
    if lk == "slot" and rk == "const":
        return lambda f: op(f[lv], rv)
    if lk == "slot" and rk == "slot":
        return lambda f: op(f[lv], f[rv])
    if lk == "fn" and rk == "const":
        return lambda f: op(lv(f), rv)
    if lk == "const" and rk == "slot":
        return lambda f: op(lv, f[rv])
    lf, rf = as_fn(left), as_fn(right)
    return lambda f: op(lf(f), rf(f))


def arithmetic_binary(op: Callable[[Any, Any], Any], left: Operand, right: Operand, span: Span,
                      max_digits: int) -> Fn:
    """`op(left, right)` for decimal arithmetic, whose signals become RunErrors at `span`."""
    (lk, lv), (rk, rv) = left, right
    if lk == "slot" and rk == "const":
        def slot_const(f: list) -> Any:
            try:
                return op(f[lv], rv)
            except ArithmeticError as error:
                raise arithmetic_fault(error, span, max_digits) from None
        return slot_const
    if lk == "fn" and rk == "const":
        def fn_const(f: list) -> Any:
            try:
                return op(lv(f), rv)
            except ArithmeticError as error:
                raise arithmetic_fault(error, span, max_digits) from None
        return fn_const
    if lk == "slot" and rk == "slot":
        def slot_slot(f: list) -> Any:
            try:
                return op(f[lv], f[rv])
            except ArithmeticError as error:
                raise arithmetic_fault(error, span, max_digits) from None
        return slot_slot
    lf, rf = as_fn(left), as_fn(right)

    def general(f: list) -> Any:
        a = lf(f)               # left before right: errors come in reading order
        try:
            return op(a, rf(f))
        except ArithmeticError as error:
            raise arithmetic_fault(error, span, max_digits) from None
    return general
