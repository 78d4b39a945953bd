"""Constant values in a program: parameter defaults must be constants, and a constant list
must fit its declared item type at any depth."""

from __future__ import annotations

from toolkiln.ast import compute as n
from toolkiln.ast.types import ANY, NULL, Type, fits


def misfit_item(expr: n.Expr, expected: Type, types: dict[int, Type]) -> tuple[n.Expr, Type] | None:
    """The first item of a constant list (at any depth) that does not fit its item type."""
    if not isinstance(expr, n.ListExpr) or expected.name != "array":
        return None
    item_type = expected.item_type()
    for item in expr.items:
        actual = types.get(id(item), ANY)
        if item_type.name != "any" and (actual == NULL or not fits(actual, item_type)):
            return item, item_type
        inner = misfit_item(item, item_type, types)
        if inner is not None:
            return inner
    return None


def is_constant(expr: n.Expr) -> bool:
    match expr:
        case n.NumberLit() | n.StringLit() | n.BoolLit() | n.NullLit():
            return True
        case n.Unary(op="-", operand=n.NumberLit()):
            return True
        case n.ListExpr(items=items):
            return all(is_constant(item) for item in items)
        case n.RecordExpr(entries=entries):
            return all(is_constant(entry.value) for entry in entries)
    return False
