"""Closure shapes for binary operations, chosen by what the operands are.

Reading a variable is `f[slot]` and a constant is a captured value: specialising on those
saves one or two Python calls per operation, which is most of an operation's cost. The
shapes that can raise (arithmetic) turn decimal signals into located RunErrors in place,
with no extra wrapper call (a `try` costs nothing in CPython 3.11 until it catches).

Arithmetic uses Decimal's operators (`operator.mul`), which read the current decimal context:
closures run inside the run's context (see decimal_scope.py).

A chain of up to three operations with constant right operands on a variable, such as
`(weight * 2.5 + 5) * 0.9`, becomes one closure of nested C calls. On a decimal signal it
evaluates again one operation at a time (operations are pure), so the error keeps the span
of the operation that failed. A test of the same variable against a constant, with another
branch to call when it holds, joins such a chain too (`tested_chain`): `w * 2.5 + 5 if
w <= 10 else (w * 2.5 + 5) * 0.9` is one call when `w > 10`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from toolkiln.ast.spans import Span
from toolkiln.interpret.faults import arithmetic_fault
from toolkiln.interpret.plan import Chain, Compare, Fn, Frame, Op, Shapes

Operand = tuple[str, Any]  # ("slot", index) | ("const", value) | ("fn", closure)
MAX_CHAIN = 3


def as_fn(operand: Operand) -> Fn:
    kind, value = operand
    if kind == "slot":
        return lambda f: f[value]
    if kind == "const":
        return lambda f: value
    fn: Fn = value  # the third kind, "fn": a closure
    return fn


def pure_binary(op: Op, left: Operand, right: Operand) -> Fn:
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


def arithmetic_binary(op: Op, left: Operand, right: Operand, span: Span, max_digits: int, shapes: Shapes) -> Fn:
    """`op(left, right)` for decimal arithmetic, whose signals become RunErrors at `span`; a
    chain of operations on a variable is recorded in `shapes` (and fused into one closure)."""
    located = _located(op, left, right, span, max_digits)
    (lk, lv), (rk, rv) = left, right
    if rk != "const":
        return located
    if lk == "slot":
        return shapes.computes(located, Chain(lv, ((op, rv),)))
    previous = shapes.chain(lv) if lk == "fn" else None
    if previous is None or len(previous.steps) == MAX_CHAIN:
        return located
    chain = Chain(previous.slot, previous.steps + ((op, rv),))
    return shapes.computes(_fused(chain, located), chain)


def _fused(chain: Chain, located: Fn) -> Fn:
    """The chain as nested calls; `located` computes the same one operation at a time."""
    slot = chain.slot
    if len(chain.steps) == 2:
        (op1, c1), (op2, c2) = chain.steps

        def fused2(f: Frame) -> Any:
            try:
                return op2(op1(f[slot], c1), c2)
            except ArithmeticError:
                return located(f)  # fails again, at the operation that failed

        return fused2
    (op1, c1), (op2, c2), (op3, c3) = chain.steps

    def fused3(f: Frame) -> Any:
        try:
            return op3(op2(op1(f[slot], c1), c2), c3)
        except ArithmeticError:
            return located(f)

    return fused3


READ = object()
"""The default value of a tested chain's second parameter: read the variable from the frame."""


def tested_chain(test: Compare, then: Fn, otherwise: Fn, shapes: Shapes) -> Fn | None:
    """`then(f) if test holds else otherwise(f)` as one closure when `otherwise` is a chain on
    the variable tested: the test and the chain's operations in one call (`then` is called when
    the test holds). None when `otherwise` is not such a chain.

    The closure also takes the variable's value itself, `fn(None, x)`, for a program whose only
    variable it is (`shapes.takes_value` says so): the run then makes no frame unless `then`,
    or the located evaluation after a decimal signal, needs one (`[None, x]`)."""
    chain = shapes.chain(otherwise)
    if chain is None or chain.slot != test.slot:
        return None
    build = (_tested1, _tested2, _tested3)[len(chain.steps) - 1]
    return shapes.by_value(build(test, chain.steps, then, otherwise))


def _tested1(test: Compare, steps: tuple[tuple[Op, Any], ...], then: Fn, otherwise: Fn) -> Fn:
    compare, slot, constant = test.op, test.slot, test.constant
    ((op1, c1),) = steps

    def tested1(f: Frame | None, x: Any = READ) -> Any:
        if x is READ:
            x = f[slot]  # type: ignore[index]  # (f is a frame when x is not given)
        if compare(x, constant):
            return then(f or [None, x])
        try:
            return op1(x, c1)
        except ArithmeticError:
            return otherwise(f or [None, x])  # fails again, located

    return cast(Fn, tested1)


def _tested2(test: Compare, steps: tuple[tuple[Op, Any], ...], then: Fn, otherwise: Fn) -> Fn:
    compare, slot, constant = test.op, test.slot, test.constant
    (op1, c1), (op2, c2) = steps

    def tested2(f: Frame | None, x: Any = READ) -> Any:
        if x is READ:
            x = f[slot]  # type: ignore[index]
        if compare(x, constant):
            return then(f or [None, x])
        try:
            return op2(op1(x, c1), c2)
        except ArithmeticError:
            return otherwise(f or [None, x])

    return cast(Fn, tested2)


def _tested3(test: Compare, steps: tuple[tuple[Op, Any], ...], then: Fn, otherwise: Fn) -> Fn:
    compare, slot, constant = test.op, test.slot, test.constant
    (op1, c1), (op2, c2), (op3, c3) = steps

    def tested3(f: Frame | None, x: Any = READ) -> Any:
        if x is READ:
            x = f[slot]  # type: ignore[index]
        if compare(x, constant):
            return then(f or [None, x])
        try:
            return op3(op2(op1(x, c1), c2), c3)
        except ArithmeticError:
            return otherwise(f or [None, x])

    return cast(Fn, tested3)


def _located(op: Op, left: Operand, right: Operand, span: Span, max_digits: int) -> Fn:
    """One operation, its signal reported at `span`: a closure shaped by what its operands
    are (a slot read in place, a constant captured), or the general one."""
    (lk, lv), (rk, rv) = left, right
    shaped = _LOCATED.get((lk, rk))
    if shaped is not None:
        return shaped(op, lv, rv, span, max_digits)
    lf, rf = as_fn(left), as_fn(right)

    def general(f: Frame) -> Any:
        a = lf(f)  # left before right: errors come in reading order
        try:
            return op(a, rf(f))
        except ArithmeticError as error:
            raise arithmetic_fault(error, span, max_digits) from None

    return general


def _slot_const(op: Op, lv: Any, rv: Any, span: Span, max_digits: int) -> Fn:
    def slot_const(f: Frame) -> Any:
        try:
            return op(f[lv], rv)
        except ArithmeticError as error:
            raise arithmetic_fault(error, span, max_digits) from None

    return slot_const


def _fn_const(op: Op, lv: Any, rv: Any, span: Span, max_digits: int) -> Fn:
    def fn_const(f: Frame) -> Any:
        try:
            return op(lv(f), rv)
        except ArithmeticError as error:
            raise arithmetic_fault(error, span, max_digits) from None

    return fn_const


def _slot_slot(op: Op, lv: Any, rv: Any, span: Span, max_digits: int) -> Fn:
    def slot_slot(f: Frame) -> Any:
        try:
            return op(f[lv], f[rv])
        except ArithmeticError as error:
            raise arithmetic_fault(error, span, max_digits) from None

    return slot_slot


def _slot_fn(op: Op, lv: Any, rv: Any, span: Span, max_digits: int) -> Fn:
    """`subtotal * (1 - rate)`."""

    def slot_fn(f: Frame) -> Any:
        try:
            return op(f[lv], rv(f))
        except ArithmeticError as error:
            raise arithmetic_fault(error, span, max_digits) from None

    return slot_fn


def _const_slot(op: Op, lv: Any, rv: Any, span: Span, max_digits: int) -> Fn:
    """`1 - rate`."""

    def const_slot(f: Frame) -> Any:
        try:
            return op(lv, f[rv])
        except ArithmeticError as error:
            raise arithmetic_fault(error, span, max_digits) from None

    return const_slot


# (left operand's kind, right operand's kind) -> the closure of that shape
_LOCATED: dict[tuple[str, str], Callable[[Op, Any, Any, Span, int], Fn]] = {
    ("slot", "const"): _slot_const,
    ("fn", "const"): _fn_const,
    ("slot", "slot"): _slot_slot,
    ("slot", "fn"): _slot_fn,
    ("const", "slot"): _const_slot,
}
