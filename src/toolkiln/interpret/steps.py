"""Closure shapes for steps: assignments and `if`s in as few Python calls as their parts allow.

A Python call costs more than the decimal operation it wraps, so, as specialize.py does for
expressions, a step whose parts are simple is one closure that does them in place: `x = 0`
stores its constant, `score = score + 10` its one operation, and
`if company_size >= 200 { score = score + 18 } else if ...` (or `{ rate = 0.10 }`) tests,
updates and passes on to its `else` in one call. An `if` without `else` calls nothing when
its test fails.
"""

from __future__ import annotations

import operator
from typing import Any

from toolkiln.interpret.specialize import Fn, Frame, Op, tested_chain

Test = tuple[str, Any]  # ("compare", (op, slot, constant)) | ("fn", closure)
# The comparison that holds exactly when one does not: the values compared are numbers (never
# NaN), strings or booleans, whose order is total.
_NEGATED: dict[Op, Op] = {
    operator.lt: operator.ge,
    operator.ge: operator.lt,
    operator.le: operator.gt,
    operator.gt: operator.le,
    operator.eq: operator.ne,
    operator.ne: operator.eq,
    operator.is_: operator.is_not,
}


def store(slot: int, value: Fn) -> Fn:
    """`f[slot] = value(f)`; a one-operation chain such as `score + 10` is done in place (its
    `update` attribute lets an `if` do it in place too)."""
    chain = getattr(value, "chain", None)
    if chain is not None and len(chain.steps) == 1:
        source, ((op, constant),) = chain.slot, chain.steps

        def store_operation(f: Frame) -> None:
            try:
                f[slot] = op(f[source], constant)
            except ArithmeticError:
                f[slot] = value(f)  # fails again, located (see specialize.py)

        store_operation.update = (slot, source, op, constant, value)  # type: ignore[attr-defined]
        return store_operation

    def store_value(f: Frame) -> None:
        f[slot] = value(f)

    return store_value


def store_constant(slot: int, constant: Any) -> Fn:
    """`f[slot] = constant` (its `constant` attribute lets an `if` do it in place)."""

    def store(f: Frame) -> None:
        f[slot] = constant

    store.constant = (slot, constant)  # type: ignore[attr-defined]
    return store


def when(test: Test, then: Fn, otherwise: Fn | None) -> Fn:
    """An `if` run for its effect: `then(f)` when the test holds, else `otherwise(f)` (nothing
    when None). The test is a comparison of a variable with a constant, or a closure that
    returns a boolean (its type already tested)."""
    kind, parts = test
    if kind == "fn":
        holds: Fn = parts
        if otherwise is None:

            def if_fn(f: Frame) -> None:
                if holds(f):
                    then(f)

            return if_fn
        return choose(test, then, otherwise)
    compare, slot, constant = parts
    update = getattr(then, "update", None)
    if update is not None:
        return _when_update(compare, slot, constant, update, otherwise)
    stored = getattr(then, "constant", None)
    if stored is not None:
        return _when_store(compare, slot, constant, stored, otherwise)
    if otherwise is None:

        def if_compare(f: Frame) -> None:
            if compare(f[slot], constant):
                then(f)

        return if_compare
    return choose(test, then, otherwise)


def _when_update(
    compare: Op, slot: int, constant: Any, update: tuple[int, int, Op, Any, Fn], otherwise: Fn | None
) -> Fn:
    """`if x >= 200 { score = score + 18 }` (and its `else`), the update done in place."""
    target, source, op, operand, located = update

    def if_update(f: Frame) -> None:
        if compare(f[slot], constant):
            try:
                f[target] = op(f[source], operand)
            except ArithmeticError:
                f[target] = located(f)
        elif otherwise is not None:
            otherwise(f)

    return if_update


def _when_store(compare: Op, slot: int, constant: Any, stored: tuple[int, Any], otherwise: Fn | None) -> Fn:
    """`if subtotal >= 1000 { rate = 0.10 } else ...`, the store done in place."""
    target, value = stored

    def if_store(f: Frame) -> None:
        if compare(f[slot], constant):
            f[target] = value
        elif otherwise is not None:
            otherwise(f)

    return if_store


def returning(test: Test, then: Fn, otherwise: Fn | None, go_on: object) -> Fn:
    """An `if` that may return: `then(f)` when the test holds, else `otherwise(f)`; without
    an `else`, `go_on` (the block's marker for "no return here")."""
    if otherwise is not None:
        return choose(test, then, otherwise)
    kind, parts = test
    if kind == "fn":
        holds: Fn = parts
        return lambda f: then(f) if holds(f) else go_on
    compare, slot, constant = parts
    return lambda f: then(f) if compare(f[slot], constant) else go_on


def choose(test: Test, then: Fn, otherwise: Fn) -> Fn:
    """`then(f)` when the test holds, else `otherwise(f)`: an `if` with both branches, or the
    expression `a if test else b`. A branch that is a chain of operations on the variable
    tested is done in the same call (the `else`, or else the `then` under the opposite test)."""
    kind, parts = test
    if kind == "fn":
        holds: Fn = parts
        return lambda f: then(f) if holds(f) else otherwise(f)
    compare, slot, constant = parts
    fused = tested_chain(compare, slot, constant, then, otherwise) or tested_chain(
        _NEGATED[compare], slot, constant, otherwise, then
    )
    if fused is not None:
        return fused
    return lambda f: then(f) if compare(f[slot], constant) else otherwise(f)
