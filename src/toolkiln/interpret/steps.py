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

from toolkiln.interpret.plan import Compare, Fn, Frame, Op, Shapes, StoredConstant, Test, Update
from toolkiln.interpret.specialize import tested_chain

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


def store(slot: int, value: Fn, shapes: Shapes) -> Fn:
    """`f[slot] = value(f)`; a one-operation chain such as `score + 10` is done in place (an
    Update in `shapes` lets an `if` do it in place too)."""
    chain = shapes.chain(value)
    if chain is not None and len(chain.steps) == 1:
        source, ((op, constant),) = chain.slot, chain.steps

        def store_operation(f: Frame) -> None:
            try:
                f[slot] = op(f[source], constant)
            except ArithmeticError:
                f[slot] = value(f)  # fails again, located (see specialize.py)

        return shapes.updates(store_operation, Update(slot, source, op, constant, value))

    def store_value(f: Frame) -> None:
        f[slot] = value(f)

    return store_value


def store_constant(slot: int, constant: Any, shapes: Shapes) -> Fn:
    """`f[slot] = constant` (a StoredConstant in `shapes` lets an `if` do it in place)."""

    def store(f: Frame) -> None:
        f[slot] = constant

    return shapes.stores(store, StoredConstant(slot, constant))


def when(test: Test, then: Fn, otherwise: Fn | None, shapes: Shapes) -> Fn:
    """An `if` run for its effect: `then(f)` when the test holds, else `otherwise(f)` (nothing
    when None). The test is a comparison of a variable with a constant, or a closure that
    returns a boolean (its type already tested)."""
    if not isinstance(test, Compare):
        holds = test
        if otherwise is None:

            def if_fn(f: Frame) -> None:
                if holds(f):
                    then(f)

            return if_fn
        return choose(test, then, otherwise, shapes)
    compare, slot, constant = test.op, test.slot, test.constant
    update = shapes.update(then)
    if update is not None:
        return _when_update(compare, slot, constant, update, otherwise)
    stored = shapes.constant(then)
    if stored is not None:
        return _when_store(compare, slot, constant, stored, otherwise)
    if otherwise is None:

        def if_compare(f: Frame) -> None:
            if compare(f[slot], constant):
                then(f)

        return if_compare
    return choose(test, then, otherwise, shapes)


def _when_update(compare: Op, slot: int, constant: Any, update: Update, otherwise: Fn | None) -> Fn:
    """`if x >= 200 { score = score + 18 }` (and its `else`), the update done in place."""
    target, source, op, operand, located = update.target, update.source, update.op, update.constant, update.located

    def if_update(f: Frame) -> None:
        if compare(f[slot], constant):
            try:
                f[target] = op(f[source], operand)
            except ArithmeticError:
                f[target] = located(f)
        elif otherwise is not None:
            otherwise(f)

    return if_update


def _when_store(compare: Op, slot: int, constant: Any, stored: StoredConstant, otherwise: Fn | None) -> Fn:
    """`if subtotal >= 1000 { rate = 0.10 } else ...`, the store done in place."""
    target, value = stored.slot, stored.value

    def if_store(f: Frame) -> None:
        if compare(f[slot], constant):
            f[target] = value
        elif otherwise is not None:
            otherwise(f)

    return if_store


def returning(test: Test, then: Fn, otherwise: Fn | None, go_on: object, shapes: Shapes) -> Fn:
    """An `if` that may return: `then(f)` when the test holds, else `otherwise(f)`; without
    an `else`, `go_on` (the block's marker for "no return here")."""
    if otherwise is not None:
        return choose(test, then, otherwise, shapes)
    if not isinstance(test, Compare):
        holds = test
        return lambda f: then(f) if holds(f) else go_on
    compare, slot, constant = test.op, test.slot, test.constant
    return lambda f: then(f) if compare(f[slot], constant) else go_on


def choose(test: Test, then: Fn, otherwise: Fn, shapes: Shapes) -> Fn:
    """`then(f)` when the test holds, else `otherwise(f)`: an `if` with both branches, or the
    expression `a if test else b`. A branch that is a chain of operations on the variable
    tested is done in the same call (the `else`, or else the `then` under the opposite test)."""
    if not isinstance(test, Compare):
        holds = test
        return lambda f: then(f) if holds(f) else otherwise(f)
    opposite = Compare(_NEGATED[test.op], test.slot, test.constant)
    fused = tested_chain(test, then, otherwise, shapes) or tested_chain(opposite, otherwise, then, shapes)
    if fused is not None:
        return fused
    compare, slot, constant = test.op, test.slot, test.constant
    return lambda f: then(f) if compare(f[slot], constant) else otherwise(f)
