"""Rewrites that keep the meaning exactly, decimal semantics included.

Only boolean identities qualify: `not (a < b)` is `a >= b` (numbers and strings are totally
ordered, and mismatched types fail the same way either form), `not not c` is `c` when `c` is
a comparison, and `if not c {A} else {B}` is `if c {B} else {A}`. Arithmetic identities such
as `x * 1 = x` do not hold for decimals with more digits than the precision, so none are made.
"""

from __future__ import annotations

from dataclasses import replace

from toolkiln.ast import compute as n
from toolkiln.optimize.rewrite import any_node, every_expr, map_blocks, with_steps
from toolkiln.semantics.limits import Limits

_NEGATED: dict[str, n.BinaryOp] = {
    "<": ">=",
    "<=": ">",
    ">": "<=",
    ">=": "<",
    "==": "!=",
    "!=": "==",
    "in": "not in",
    "not in": "in",
}


def simplify(program: n.Program, *, limits: Limits) -> n.Program:
    if not any_node(program, _is_not):
        return program  # every rewrite here removes a `not` (see any_step)
    program = every_expr(program, _negation)
    return with_steps(program, map_blocks(program.steps, _swap_negated_ifs))


def _is_not(node: n.Node) -> bool:
    return type(node) is n.Unary and node.op == "not"


def _negation(expr: n.Expr) -> n.Expr:
    if type(expr) is not n.Unary:
        return expr  # only a `not` simplifies (checked first: most nodes are not)
    match expr:
        case n.Unary(op="not", operand=n.Binary(op=op) as inner) if op in _NEGATED:
            return replace(inner, op=_NEGATED[op], span=expr.span)
        case n.Unary(op="not", operand=n.Unary(op="not", operand=n.Binary(op=op) as inner)) if op in _NEGATED:
            return inner
    return expr


def _swap_negated_ifs(steps: tuple[n.Step, ...]) -> tuple[n.Step, ...]:
    out = []
    for step in steps:
        match step:
            case n.If(condition=n.Unary(op="not", operand=operand), then=then, otherwise=otherwise) if (
                otherwise and _is_boolean(operand)
            ):
                step = replace(step, condition=operand, then=otherwise, otherwise=then)
        out.append(step)
    return tuple(out)


def _is_boolean(expr: n.Expr) -> bool:
    """Whether the expression is boolean by its form alone (no type information needed)."""
    match expr:
        case n.BoolLit():
            return True
        case n.Binary(op=op):
            return op in _NEGATED or op in n.LOGIC_OPS
        case n.Unary(op="not"):
            return True
    return False
