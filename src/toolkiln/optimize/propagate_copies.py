"""Copy and constant propagation: after `rate = 0.1` or `w = weight_kg`, later reads of the
variable use the value itself, until either side is assigned again. The copies left unread
are then removed by `remove_unused_assignments`, and constants reach the folder."""

from __future__ import annotations

from dataclasses import replace
from typing import TypeGuard, assert_never

from toolkiln.ast import compute as n
from toolkiln.optimize.rewrite import (
    any_step,
    copy_changed,
    map_children,
    map_step_exprs,
    rebuild_chain,
    with_steps,
)
from toolkiln.semantics.limits import Limits

MAX_COPIED_TEXT = 100  # longer string constants are not duplicated into every use


def propagate_copies(program: n.Program, *, limits: Limits) -> n.Program:
    if not any_step(program.steps, _is_copy):
        return program  # no copy to propagate (see any_step)
    return with_steps(program, _block(program.steps, {})[0])


def _is_copy(step: n.Step) -> TypeGuard[n.Assign]:
    return isinstance(step, n.Assign) and _copyable(step.value) and not _reads(step.value, step.target)


def _block(steps: tuple[n.Step, ...], known: dict[str, n.Expr]) -> tuple[tuple[n.Step, ...], set[str]]:
    """The block with copies substituted, and the names it assigns (at any depth)."""
    known = dict(known)
    assigned: set[str] = set()
    out: list[n.Step] = []
    for step in steps:
        step = map_step_exprs(step, lambda e: _substitute(e, known))
        match step:
            case n.If():
                then, then_assigned = _block(step.then, known)
                otherwise, else_assigned = _block(step.otherwise, known)
                if then is not step.then or otherwise is not step.otherwise:
                    step = replace(step, then=then, otherwise=otherwise)
                for name in then_assigned | else_assigned:
                    _forget(known, name)
                assigned |= then_assigned | else_assigned
            case n.Assign() | n.Lookup() | n.Format() | n.CallTool():
                _forget(known, step.target)
                assigned.add(step.target)
                if _is_copy(step):
                    known[step.target] = step.value
            case n.Return():
                pass
            case _:
                assert_never(step)
        out.append(step)
    return (steps if all(a is b for a, b in zip(out, steps)) else tuple(out)), assigned


def _copyable(expr: n.Expr) -> bool:
    if isinstance(expr, n.StringLit):
        return len(expr.value) <= MAX_COPIED_TEXT
    return isinstance(expr, (n.Name, n.NumberLit, n.BoolLit, n.NullLit))


def _reads(expr: n.Expr, name: str) -> bool:
    return isinstance(expr, n.Name) and expr.name == name


def _forget(known: dict[str, n.Expr], name: str) -> None:
    known.pop(name, None)
    for key in [k for k, v in known.items() if isinstance(v, n.Name) and v.name == name]:
        del known[key]


def _substitute(expr: n.Expr, known: dict[str, n.Expr]) -> n.Expr:
    if not known:
        return expr
    if isinstance(expr, n.Comprehension):
        # The loop variable hides an outer variable of the same name inside the comprehension.
        inner = {k: v for k, v in known.items() if k != expr.var and not (isinstance(v, n.Name) and v.name == expr.var)}
        return copy_changed(
            expr,
            iterable=_substitute(expr.iterable, known),
            element=_substitute(expr.element, inner),
            condition=None if expr.condition is None else _substitute(expr.condition, inner),
        )
    if isinstance(expr, n.Try):
        # The error variable hides an outer variable of the same name inside the handler.
        inner = {k: v for k, v in known.items() if k != expr.var and not (isinstance(v, n.Name) and v.name == expr.var)}
        return copy_changed(expr, body=_substitute(expr.body, known), handler=_substitute(expr.handler, inner))
    if isinstance(expr, n.Name):
        value = known.get(expr.name)
        return expr if value is None else replace(value, span=expr.span)
    if isinstance(expr, n.Binary):
        return rebuild_chain(expr, lambda operand: _substitute(operand, known))
    return map_children(expr, lambda child: _substitute(child, known))
