"""Removal of assignments whose value is never read (the checker warns about them, W0209).

Liveness runs backwards through each block; a dead assignment is removed only when
computing its value cannot fail, so removing it cannot turn a failing run into a passing one.
"""

from __future__ import annotations

from dataclasses import replace
from typing import assert_never

from toolkiln.ast import compute as n
from toolkiln.ast.visitor import walk
from toolkiln.optimize.rewrite import any_step, with_steps
from toolkiln.semantics.limits import Limits


def remove_unused_assignments(program: n.Program, *, limits: Limits) -> n.Program:
    if not any_step(program.steps, _removable):
        return program  # only such an assignment is ever removed (see any_step)
    steps, _ = _block(program.steps, frozenset())
    return with_steps(program, steps)


def _block(steps: tuple[n.Step, ...], live_after: frozenset[str]) -> tuple[tuple[n.Step, ...], frozenset[str]]:
    """The block without dead assignments, and the names live at its start."""
    live = live_after
    kept: list[n.Step] = []
    for step in reversed(steps):
        match step:
            case n.Return(value=value):
                live = _reads(value)
            case n.If(condition=condition, then=then, otherwise=otherwise):
                then, then_live = _block(then, live)
                otherwise, else_live = _block(otherwise, live)
                if then is not step.then or otherwise is not step.otherwise:
                    step = replace(step, then=then, otherwise=otherwise)
                live = then_live | else_live | _reads(condition)
            case n.Assign(target=target, value=value) if target not in live and _cannot_fail(value):
                continue
            case n.Assign() | n.Lookup() | n.Format() | n.CallTool():  # a call can fail: always kept
                live = (live - {step.target}) | _reads(step)
            case _:
                assert_never(step)
        kept.append(step)
    kept.reverse()
    unchanged = len(kept) == len(steps) and all(a is b for a, b in zip(kept, steps))
    return (steps if unchanged else tuple(kept)), live


def _removable(step: n.Step) -> bool:
    return isinstance(step, n.Assign) and _cannot_fail(step.value)


def _reads(node: n.Node) -> frozenset[str]:
    return frozenset(x.name for x in walk(node) if isinstance(x, n.Name))


def _cannot_fail(expr: n.Expr) -> bool:
    """Literals, variables (checked to be assigned) and lists and records of them."""
    if isinstance(expr, n.ListExpr):
        return all(_cannot_fail(item) for item in expr.items)
    if isinstance(expr, n.RecordExpr):
        return all(_cannot_fail(entry.value) for entry in expr.entries)
    return isinstance(expr, (n.Name, *n.LITERALS))
